"""The package's folders are its layers: a module imports only its own layer or lower ones.

    _errors < _random < _distributed < _core < {_samplers, _batching, _streams}
            < {_evaluation, _formats} < {_diagnostics, integrations} < _cli
            < the package top (``__init__`` and the public namespaces ``distributed``,
              ``diagnostics`` and ``formats``)

The three family layers never import each other. Every import counts,
including the lazy ones inside functions. The demo app beside the library
imports only fairshard's public top level; the linter beside it
(``lint/src/fairshard_lint``, standard library only) imports nothing of
fairshard: ``fairshard._cli`` mounts it, never the other way round.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "fairshard"
LINT = Path(__file__).resolve().parents[1] / "lint" / "src" / "fairshard_lint"

RANK = {
    "_errors": 0,
    "_version": 0,
    "_random": 1,
    "_distributed": 2,
    "_core": 3,
    "_samplers": 4,
    "_batching": 4,
    "_streams": 4,
    "_evaluation": 5,
    "_formats": 5,
    "_diagnostics": 6,
    "integrations": 6,
    "_cli": 7,
    "__init__": 8,
    "__main__": 8,
    "distributed": 8,
    "diagnostics": 8,
    "formats": 8,
}
#: The package top is one layer: the top-level module and its public namespaces
#: (``fairshard.distributed``, ``fairshard.diagnostics``, ``fairshard.formats``),
#: which it re-exports.
TOP = ("__init__", "distributed", "diagnostics", "formats")


def _module_name(path: Path) -> list[str]:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imports(path: Path) -> list[tuple[int, list[str]]]:
    """(line, absolute dotted target) of every fairshard import in ``path``."""
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = base + (node.module.split(".") if node.module else [])
            else:
                target = (node.module or "").split(".")
            if target[0] != "fairshard":
                continue
            if node.module is None or target == ["fairshard"] or len(target) == 2:
                # ``from . import state`` / ``from fairshard import X``: the names may be modules
                for alias in node.names:
                    found.append((node.lineno, [*target, alias.name]))
            else:
                found.append((node.lineno, target))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "fairshard":
                    found.append((node.lineno, alias.name.split(".")))
    return found


def _layer(dotted: list[str]) -> str:
    if len(dotted) == 1:
        return "__init__"
    head = dotted[1]
    return head if head in RANK and head not in TOP else "__init__"


MODULES = sorted(PKG.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_imports_go_down(path: Path) -> None:
    own = _layer(_module_name(path))
    bad = []
    for line, target in _imports(path):
        other = _layer(target)
        if target[1:2] in (["_errors"], ["_version"]) or other == own:
            continue
        higher = RANK[other] > RANK[own]
        sibling = RANK[other] == RANK[own]
        if higher or sibling:
            bad.append(f"line {line}: {own} imports {'.'.join(target)} ({other})")
    assert not bad, f"{path.relative_to(SRC)} breaks the layering:\n" + "\n".join(bad)


def test_random_imports_only_errors() -> None:
    for path in sorted((PKG / "_random").glob("*.py")):
        for line, target in _imports(path):
            assert target[:2] in (["fairshard", "_random"], ["fairshard", "_errors"]), (
                f"{path.name}:{line} imports {'.'.join(target)}"
            )


def test_every_module_is_in_a_layer() -> None:
    loose = [p.name for p in PKG.glob("*.py") if p.stem not in RANK]
    assert not loose, f"modules outside any layer folder: {loose}; put each in its layer"


def test_demo_uses_only_the_public_api() -> None:
    import fairshard

    public = set(fairshard.__all__) | {"__version__"}
    for path in sorted((SRC / "fairshard_demo").glob("*.py")):
        for line, target in _imports(path):
            exported = len(target) == 2 and target[1] in public
            assert target == ["fairshard"] or exported, (
                f"fairshard_demo/{path.name}:{line} imports {'.'.join(target)}, "
                "which is not fairshard's public API"
            )


@pytest.mark.parametrize("path", sorted(LINT.rglob("*.py")), ids=lambda p: p.name)
def test_the_linter_imports_nothing_of_fairshard(path: Path) -> None:
    bad = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        bad += [f"line {node.lineno}: {n}" for n in names if n.split(".")[0] == "fairshard"]
    assert not bad, f"fairshard_lint/{path.name} imports fairshard:\n" + "\n".join(bad)


def depth() -> int:
    """Longest chain of module-level imports inside the package (for the architecture doc)."""
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        name = ".".join(_module_name(path))
        graph[name] = set()
        for _, target in _imports(path):
            for cut in range(len(target), 0, -1):
                cand = ".".join(target[:cut])
                if (SRC / Path(*target[:cut])).with_suffix(".py").exists() or (
                    SRC / Path(*target[:cut]) / "__init__.py"
                ).exists():
                    graph[name].add(cand)
                    break
    memo: dict[str, int] = {}

    def longest(node: str, stack: frozenset[str]) -> int:
        if node in memo:
            return memo[node]
        best = 0
        for nxt in graph.get(node, ()):
            if nxt not in stack and nxt != node:
                best = max(best, 1 + longest(nxt, stack | {node}))
        memo[node] = best
        return best

    return max(longest(n, frozenset()) for n in graph)


def test_import_depth_is_reported() -> None:
    # The longest chain is printed for the architecture notes; the layers bound it.
    print(f"longest import chain inside fairshard: {depth()} modules")
    assert 0 < depth() <= 12


def _sources_outside(*allowed: str) -> dict[str, str]:
    return {
        str(p.relative_to(PKG)): p.read_text()
        for p in MODULES
        if str(p.relative_to(PKG)) not in allowed
    }


def test_only_the_base_touches_its_private_state() -> None:
    # Subclasses use forget_plans() and pass_epoch(), never the cache or the cursor.
    leaks = [
        name
        for name, text in _sources_outside(
            "_core/base.py", "_core/sampler_state.py", "_core/cursor.py"
        ).items()
        if "._plan_cache" in text or "._cursor" in text
    ]
    assert not leaks, f"private state of PlannedSampler used in {leaks}"


def test_seeds_are_reduced_in_one_place() -> None:
    # stream_words reduces a seed mod 2**64; samplers pass the seed as given.
    copies = [
        name
        for name, text in _sources_outside("_random/seeding.py").items()
        if "% (1 << 64)" in text or "% _U64" in text
    ]
    assert not copies, f"seed reduced again in {copies}"
