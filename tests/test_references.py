"""References in the docs and docstrings point at things that exist.

Over ``README*.md``, ``CONTRIBUTING.md``, ``docs/*.md`` and every module of
the package (its docstrings and comments):

* every backticked repository path (``tests/catalog.py``, ``_core/base.py``,
  ``docs/img/``) exists, relative to the repository, to the package or to
  the page; a ``path.py::test_name`` names a test that the file defines;
* every backticked dotted name -- ``fairshard.…``, a private layer path
  such as ``_core.registry.is_fairshard``, a test module path such as
  ``tests.catalog.CATALOG`` -- imports and resolves;
* every backticked ``Class.member`` of a fairshard class names a member
  that class has (or sets on its instances);
* every relative Markdown link leads to a file;

and the layer diagram of ``docs/architecture.md`` is ``tests/test_layering.py``'s
``RANK`` table: the same layers, in the same order.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
from pathlib import Path
from typing import Any

import pytest

import fairshard
from tests.test_layering import RANK, TOP

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "src" / "fairshard"
PAGES = sorted(
    [
        ROOT / "README.md",
        *ROOT.glob("README.*.md"),
        ROOT / "CONTRIBUTING.md",
        *ROOT.glob("docs/*.md"),
    ]
)
#: Pages whose backticked paths name files of other repositories, not of this one.
FOREIGN_PAGES = {
    ROOT / "docs" / "lint-measurement.md": "the measured third-party repositories' files",
}
PAGES = [p for p in PAGES if p not in FOREIGN_PAGES]
MODULES = sorted(p for p in PKG.rglob("*.py"))
SOURCES = PAGES + MODULES

TICK = re.compile(r"``([^`\n]+)``|`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
TEST_REF = re.compile(r"((?:tests|benchmarks|examples)/[\w/]+\.py)::(\w+)")
EXTENSIONS = (".py", ".md", ".json", ".toml", ".yaml", ".yml", ".cfg", ".txt", ".png", ".svg")
LAYER_PATH = re.compile(
    r"_(errors|random|distributed|core|samplers|batching|streams|evaluation|diagnostics|cli)"
    r"(\.\w+)+"
)
DOTTED_FAIRSHARD = re.compile(r"\bfairshard(?:\.[A-Za-z_]\w*)+")

#: Backticked paths that are not repository paths, and why.
NOT_PATHS = {
    "./fairshard-demo/": "the folder the demo writes its output to",
    "test/": "a folder name the linter leaves out, wherever it is",
}


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _ticks(text: str) -> list[tuple[int, str]]:
    return [
        (_line(text, m.start()), (m.group(1) or m.group(2)).strip()) for m in TICK.finditer(text)
    ]


def _path(token: str) -> str | None:
    """The repository path ``token`` names, or ``None`` if it names none."""
    path = re.split(r"::|#|:(?=\d)", token)[0]
    if any(c in path for c in " *<>{}$~") or path.startswith(("http", "/")) or "/" not in path:
        return None
    return path if path.endswith(EXTENSIONS) or path.endswith("/") else None


def _exists(path: str, page: Path) -> bool:
    return any((base / path).exists() for base in (ROOT, PKG, ROOT / "src", page.parent))


def _resolves(dotted: str) -> bool:
    parts = re.split(r"[(\[ ]", dotted)[0].rstrip(".,:;").split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            try:
                if not hasattr(obj, attr):
                    return False
            except ModuleNotFoundError as exc:  # a lazy name whose optional peer is absent
                if os.environ.get("FAIRSHARD_FLOORS") == "1":  # only the floors lack peers
                    return True
                raise AssertionError(f"{dotted} needs {exc.name}, which is not installed") from exc
            obj = getattr(obj, attr)
        return True
    return False


def _classes() -> dict[str, list[type]]:
    """Every class the package defines, by name (private modules included)."""
    out: dict[str, list[type]] = {}
    for info in pkgutil.walk_packages(fairshard.__path__, "fairshard."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            known = out.setdefault(name, [])
            if isinstance(value, type) and value.__module__.startswith("fairshard"):
                known += [] if value in known else [value]
    return out


def _has_member(cls: type, name: str) -> bool:
    if hasattr(cls, name):
        return True
    methods = [f for k in cls.__mro__ for f in vars(k).values() if inspect.isfunction(f)]
    sets = re.compile(rf"self\.{name}\s*[:=]")  # set on instances
    return any(sets.search(inspect.getsource(f)) for f in methods)


def _problems(source: Path, classes: dict[str, list[type]]) -> list[str]:
    text = source.read_text()
    where = source.relative_to(ROOT) if source.is_relative_to(ROOT) else source.name
    found = []
    for line, token in _ticks(text):
        path = _path(token)
        if path and path not in NOT_PATHS and not _exists(path, source):
            found.append(f"{where}:{line}: no such path `{token}`")
        names = DOTTED_FAIRSHARD.findall(token)
        if LAYER_PATH.fullmatch(token):
            names.append(f"fairshard.{token}")
        if re.fullmatch(r"tests(\.\w+)+", token):
            names.append(token)
        found += [f"{where}:{line}: `{n}` does not resolve" for n in names if not _resolves(n)]
        member = re.fullmatch(r"(?:[~.\w]*\.)?([A-Z]\w+)\.(\w+)(?:\(.*\))?", token)
        owners = classes.get(member.group(1), []) if member else []
        if member and owners and not any(_has_member(c, member.group(2)) for c in owners):
            found.append(f"{where}:{line}: {member.group(1)} has no `{member.group(2)}`")
    for match in TEST_REF.finditer(text):
        file = ROOT / match.group(1)
        test = match.group(2)
        if file.exists() and not re.search(rf"(def|class) {test}\b", file.read_text()):
            found.append(f"{where}:{_line(text, match.start())}: no test {match.group(0)}")
    if source.suffix == ".md":
        for match in LINK.finditer(text):
            target = match.group(1).split("#")[0]
            local = target and not target.startswith(("http", "mailto:"))
            if local and not (source.parent / target).exists():
                found.append(f"{where}:{_line(text, match.start())}: broken link {target}")
    return found


def test_every_reference_exists() -> None:
    classes = _classes()
    problems = [p for source in SOURCES for p in _problems(source, classes)]
    assert not problems, "stale references:\n" + "\n".join(problems)


def test_the_checker_catches_what_it_should(tmp_path: Path) -> None:
    page = tmp_path / "probe.md"
    (tmp_path / "here.md").write_text("")
    page.write_text(
        "`docs/nope.md` `fairshard.nope` `_core.nope` `tests.catalog.NOPE` "
        "`DistributedSampler.nope()` `tests/test_docs.py::test_nope` [x](nope.md)\n"
        "`docs/architecture.md` `fairshard.distributed.verify` `_core.registry.families` "
        "`DistributedSampler.set_epoch` `StopTogether.dropped` [y](here.md)\n"
    )
    found = _problems(page, _classes())
    assert len(found) == 7, found
    assert all(":1:" in p for p in found), found


def _diagram_levels() -> dict[str, int]:
    """Layer -> depth of indentation in the architecture page's layer diagram."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("## The layers", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    levels: dict[str, int] = {}
    for line in block.splitlines():
        if "└─" not in line:
            continue
        head, rest = line.split("└─", 1)
        for name in re.findall(r"(?<![\w/.])(_[a-z]+|integrations)\b", rest):
            levels[name] = len(head)
    return levels


def test_the_architecture_diagram_is_the_layering_table() -> None:
    levels = _diagram_levels()
    layers = {name: rank for name, rank in RANK.items() if name not in (*TOP, "__main__")}
    assert set(levels) == set(layers), (
        f"docs/architecture.md draws {sorted(levels)}; tests/test_layering.py ranks "
        f"{sorted(layers)}"
    )
    for a in layers:
        for b in layers:
            assert (layers[a] < layers[b]) == (levels[a] > levels[b]), (a, b)
    top = (ROOT / "docs" / "architecture.md").read_text()
    for namespace in TOP[1:]:
        assert f"fairshard/{namespace}.py" in top, f"the diagram leaves out {namespace}"


@pytest.mark.parametrize(
    "name", ["fairshard.distributed", "fairshard.diagnostics", "fairshard.formats"]
)
def test_public_namespaces_are_documented(name: str) -> None:
    text = (ROOT / "docs" / "compatibility.md").read_text()
    assert f"`{name}`" in text
