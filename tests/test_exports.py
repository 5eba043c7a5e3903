"""The public surface: names, public paths and signatures, pinned (docs/compatibility.md).

Four public modules: ``fairshard`` and its three namespaces
``fairshard.distributed`` (the job tools), ``fairshard.diagnostics`` (the
simulator and the checks) and ``fairshard.formats`` (sharded formats as
datasets), whose names the top level re-exports as the same objects. Each
has an explicit, sorted ``__all__``; every public object's ``__module__`` is
its public path; samplers and public functions pickle.

``tests/golden/exports.json`` pins every public name, what it is, its
signature and, for a class, the signatures of its public members, as httpx
and numpy test their public surface. A change to it is a change to the API:
make it on purpose and regenerate the file in the same commit with
``python -m tests.test_exports`` (CONTRIBUTING.md).
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

import fairshard
from tests.catalog import sampler_families

GOLDEN = Path(__file__).parent / "golden" / "exports.json"
PUBLIC = ("fairshard", "fairshard.diagnostics", "fairshard.distributed", "fairshard.formats")


def _module(name: str) -> Any:
    return importlib.import_module(name)


def _home(name: str) -> str:
    """The public path of top-level name ``name``: the namespace that owns it, else the top."""
    for namespace in PUBLIC[1:]:
        if name in _module(namespace).__all__:
            return namespace
    return "fairshard"


def _signature(obj: Any) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):  # a class whose __init__ is a builtin's (the exceptions)
        return "(no signature)"


def _members(cls: type) -> dict[str, str]:
    """Public members a fairshard class defines or inherits from a fairshard base."""
    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("fairshard"):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_"):
                continue
            if isinstance(value, property):
                out[name] = "property"
            elif isinstance(value, staticmethod | classmethod):
                out[name] = f"{type(value).__name__} {_signature(value.__func__)}"
            elif inspect.isfunction(value):
                out[name] = _signature(value)
            else:
                out[name] = f"attribute {type(value).__name__}"
    return dict(sorted(out.items()))


def surface() -> dict[str, dict[str, Any]]:
    """Every public module's names: kind and signature (and a class's members)."""
    out: dict[str, dict[str, Any]] = {}
    for module_name in PUBLIC:
        module = _module(module_name)
        names: dict[str, Any] = {}
        for name in module.__all__:
            obj = getattr(module, name)
            if module_name == "fairshard" and _home(name) != "fairshard":
                names[name] = f"alias of {_home(name)}.{name}"
            elif isinstance(obj, type):
                names[name] = {
                    "kind": "class",
                    "bases": [b.__name__ for b in obj.__bases__],
                    "signature": _signature(obj),
                    "members": _members(obj),
                }
            else:
                names[name] = {"kind": "function", "signature": _signature(obj)}
        out[module_name] = names
    return out


def write() -> None:
    GOLDEN.write_text(json.dumps(surface(), indent=1, sort_keys=True) + "\n")


@pytest.mark.parametrize("module_name", PUBLIC)
def test_all_is_sorted_and_unique(module_name: str) -> None:
    names = list(_module(module_name).__all__)
    assert names == sorted(set(names))


@pytest.mark.parametrize("module_name", PUBLIC)
def test_every_exported_name_exists_and_is_documented(module_name: str) -> None:
    module = _module(module_name)
    assert module.__doc__, f"{module_name} has no docstring"
    for name in module.__all__:
        obj = getattr(module, name)
        assert obj.__doc__, f"{module_name}.{name} has no docstring"


@pytest.mark.parametrize("module_name", PUBLIC)
def test_nothing_public_is_left_out(module_name: str) -> None:
    module = _module(module_name)
    public = {n for n in vars(module) if not n.startswith("_") and n not in {"annotations"}}
    modules = {n for n in public if inspect.ismodule(getattr(module, n))}
    assert public - modules - set(module.__all__) == set()


def test_the_top_level_keeps_every_namespace_name_as_the_same_object() -> None:
    for namespace in PUBLIC[1:]:
        for name in _module(namespace).__all__:
            assert name in fairshard.__all__, f"fairshard.{name} (alias) is missing"
            assert getattr(fairshard, name) is getattr(_module(namespace), name)


def test_every_public_object_names_its_public_path() -> None:
    for name in fairshard.__all__:
        obj = getattr(fairshard, name)
        assert obj.__module__ == _home(name), f"{name}.__module__ is {obj.__module__}"
        assert getattr(_module(obj.__module__), obj.__qualname__) is obj


def test_names_and_signatures_are_pinned() -> None:
    pinned = json.loads(GOLDEN.read_text())
    current = json.loads(json.dumps(surface()))
    for module_name in PUBLIC:
        old, new = pinned.get(module_name, {}), current[module_name]
        assert sorted(new) == sorted(old), (
            f"{module_name}: names added {sorted(set(new) - set(old))}, removed "
            f"{sorted(set(old) - set(new))}; regenerate with python -m tests.test_exports"
        )
        for name in new:
            assert new[name] == old[name], (
                f"{module_name}.{name} changed; if on purpose, regenerate with "
                "python -m tests.test_exports"
            )


def _pickle_cases() -> list[Any]:
    return [pytest.param(family.name) for family in sampler_families()]


@pytest.mark.parametrize("name", _pickle_cases())
def test_samplers_pickle_under_their_public_path(name: str) -> None:
    family = next(f for f in sampler_families() if f.name == name)
    sampler = family.make(54, 1, 2)
    it = iter(sampler)
    next(it)  # mid-pass
    twin, fresh = pickle.loads(pickle.dumps(sampler)), family.make(54, 1, 2)
    assert type(twin) is type(sampler)
    twin.set_epoch(1)
    fresh.set_epoch(1)
    assert list(twin) == list(fresh)


def test_public_functions_and_classes_pickle_by_reference() -> None:
    for name in fairshard.__all__:
        obj = getattr(fairshard, name)
        assert pickle.loads(pickle.dumps(obj)) is obj, name


def _method_doctests() -> list[Any]:
    """Doctests of public classes' methods.

    pytest's ``--doctest-modules`` finds a class through the module its
    ``__module__`` names (now the public one) and a method through the module
    whose globals it has (the defining one), so it runs neither's examples:
    they run here, in the defining module's globals.
    """
    finder, found = doctest.DocTestFinder(recurse=False), []
    for name in fairshard.__all__:
        obj = getattr(fairshard, name)
        if not isinstance(obj, type):
            continue
        for attr, value in vars(obj).items():
            func = value.fget if isinstance(value, property) else value
            func = getattr(func, "__func__", func)
            if inspect.isfunction(func) and func.__doc__ and ">>>" in func.__doc__:
                globs = dict(func.__globals__)
                found.extend(finder.find(func, f"{name}.{attr}", globs=globs))
    return found


def test_method_examples_still_run() -> None:
    tests = _method_doctests()
    assert tests, "no method examples found: the finder is broken"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} failing method examples"


if __name__ == "__main__":  # regenerate (a deliberate API change only)
    write()
    sys.exit(0)
