"""``import fairshard`` resolves its public names lazily (PEP 562) and loses none of them.

The package top names each public object three times: ``__all__`` (the
public surface), ``_EXPORTS`` (where ``__getattr__`` finds it at run time)
and the ``TYPE_CHECKING`` imports (what type checkers see). These tests hold
the three together, and check that whatever a process imports first, the
names, their public paths and the registry of families are the ones an
eager ``__init__`` would give. That it imports no torch is in
``tests/diagnostics/test_lint_standalone.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import fairshard
from tests._launch import run_python

INIT = Path(fairshard.__file__)


def _static_imports() -> dict[str, str]:
    """Name -> module of the ``if typing.TYPE_CHECKING:`` imports of ``fairshard/__init__.py``."""
    tree = ast.parse(INIT.read_text())
    (block,) = [n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n)]
    found: dict[str, str] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1, ast.unparse(node)
        for alias in node.names:
            found[alias.asname or alias.name] = f".{node.module}"
    return found


def test_the_table_the_static_imports_and_all_name_the_same_objects() -> None:
    exports = fairshard._EXPORTS
    assert list(exports) == fairshard.__all__
    assert _static_imports() == exports


def _run(code: str) -> str:
    done = run_python("-c", code)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_star_import_gives_every_public_name() -> None:
    code = (
        "from fairshard import *\n"
        "import fairshard\n"
        "missing = [n for n in fairshard.__all__\n"
        "           if globals().get(n) is not getattr(fairshard, n)]\n"
        "print(missing)"
    )
    assert _run(code) == "[]"


def test_namespaces_and_dir() -> None:
    code = (
        "import fairshard\n"
        "d = fairshard.distributed\n"
        "print(d.__name__, d.verify is fairshard.verify, "
        "set(fairshard.__all__) <= set(dir(fairshard)), 'diagnostics' in dir(fairshard))"
    )
    assert _run(code) == "fairshard.distributed True True True"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'fairshard' has no attribute 'Nope'"):
        _ = fairshard.Nope  # type: ignore[attr-defined]
    assert not hasattr(fairshard, "_nope")


def test_the_first_public_name_gives_every_object_its_public_path() -> None:
    # A class reached privately first still names its public path once any public name is used.
    code = (
        "from fairshard._samplers.weighted import WeightedSampler\n"
        "import fairshard\n"
        "fairshard.split\n"
        "print(WeightedSampler.__module__, fairshard.step_imbalance.__module__)"
    )
    assert _run(code) == "fairshard fairshard.diagnostics"


def test_a_family_is_found_by_name_whatever_was_imported_first() -> None:
    # The simulator (and ``fairshard simulate NAME``) reads the registry, which fills as the
    # families' modules are imported: a private path must not see a partial registry.
    code = (
        "from fairshard._diagnostics.spec import resolve_class\n"
        "from fairshard._core.registry import families\n"
        "print(resolve_class('HardExampleSampler').kind, len(families()))"
    )
    kind, count = _run(code).split()
    assert kind == "HardExampleSampler"
    from fairshard._core.registry import families

    assert fairshard.DistributedSampler  # every public name resolved: every family registered
    assert int(count) == len(families())
