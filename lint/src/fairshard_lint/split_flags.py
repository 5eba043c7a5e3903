"""Evaluation marked by a position in a per-split flag list (rule FS109).

``create_sampler([train, val, test], [True, False, False], ...)`` builds
one sampler per split in ``for dataset, shuffle in zip(datasets,
shuffles)``; which of them serves evaluation is said by nothing but the
flag list: the split whose ``shuffle`` (or ``is_train``, ``training``) is
``False`` is not trained on. Such a sampler, built for every split, is
built for evaluation too.

The flag list is read where it is written: in the ``zip`` itself, in a
name the function assigns a list to, or at the call sites of the function
whose parameter is zipped (in the file, or across the linted tree).
"""

from __future__ import annotations

import ast
from pathlib import Path

from .context import loops_around
from .flow import Function, bound_argument, parameters
from .names import Module, argument, dotted, is_constant, is_train_name, tail
from .project import Project

__all__ = ["flagged_split_loop"]


def _flag_names(call: ast.Call) -> set[str]:
    """Names passed as the call's shuffle flag or as a training flag (``is_train=flag``)."""
    position = 3 if tail(call) == "DistributedSampler" else None
    values = [argument(call, "shuffle", position)]
    values += [k.value for k in call.keywords if k.arg and is_train_name(k.arg)]
    return {v.id for v in values if isinstance(v, ast.Name)}


def _zipped(iterable: ast.expr, target: ast.expr) -> dict[str, ast.expr]:
    """``for a, b in zip(x, y)``: ``{"a": x, "b": y}``."""
    if not (isinstance(iterable, ast.Call) and tail(iterable) == "zip"):
        return {}
    if not isinstance(target, ast.Tuple | ast.List) or len(target.elts) != len(iterable.args):
        return {}
    return {
        element.id: arg
        for element, arg in zip(target.elts, iterable.args, strict=True)
        if isinstance(element, ast.Name) and not isinstance(arg, ast.Starred)
    }


def _marks_evaluation(value: ast.AST | None) -> bool:
    """A list of flags with a ``False`` among them (a split not trained on)."""
    return isinstance(value, ast.List | ast.Tuple) and any(
        is_constant(e, False) for e in value.elts
    )


def _sites(mod: Module, func: Function) -> list[tuple[Module, str, ast.Call]]:
    project = mod.cache.get("project")
    if isinstance(project, Project):
        return [
            (project.modules[owner], Path(project.paths[owner]).as_posix(), site)
            for owner, site in project.call_sites(mod.cache["module_name"], func.name)
        ]
    return [(mod, "", c) for c in mod.calls if tail(c) == func.name]


def _flags_written(mod: Module, func: Function, flags: ast.expr) -> str | None:
    """Where a flag list marking an evaluation split is written: ``"line N"``, ``"path:N"``."""
    if _marks_evaluation(flags):
        return f"line {flags.lineno}"
    name = dotted(flags)
    if name is None:
        return None
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Assign)
            and any(dotted(t) == name for t in node.targets)
            and _marks_evaluation(node.value)
        ):
            return f"line {node.lineno}"
    if name not in parameters(func):
        return None
    for _owner, path, site in _sites(mod, func):
        if _marks_evaluation(bound_argument(site, func, name)):
            return f"{path}:{site.lineno}" if path else f"line {site.lineno}"
    return None


def flagged_split_loop(mod: Module, call: ast.Call) -> str | None:
    """Where the flags are written that mark one of ``call``'s splits as evaluation.

    ``call`` sits in a loop over ``zip(..., flags)`` whose flag reaches its
    ``shuffle`` (or a training flag); some list given as ``flags`` holds a
    ``False``. ``None`` when no such loop or list is found.
    """
    func = mod.function_of(call)
    if func is None:
        return None
    passed = _flag_names(call)
    if not passed:
        return None
    for loop, iterable, _names in loops_around(mod, call):
        target = getattr(loop, "target", None)
        if target is None:
            continue
        for name, flags in _zipped(iterable, target).items():
            if name in passed and (where := _flags_written(mod, func, flags)):
                return where
    return None
