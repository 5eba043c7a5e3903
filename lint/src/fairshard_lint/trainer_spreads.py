"""A trainer's keyword arguments spread from a parameter its callers fill.

kspace-breast-seg's ``run_cv_3d_experiment(..., trainer_kwargs=None)`` copies
``extra_kwargs = dict(trainer_kwargs or {})`` and builds
``pl.Trainer(logger=..., callbacks=..., **extra_kwargs)``; every experiment
script of the tree calls it with ``trainer_kwargs = dict(max_epochs=epochs,
devices=1, ...)``. The device count is written at the calls, not at the
trainer: each call decides, as ``caller_flags`` reads a loader factory's
``shuffle``. Read here: the value each placeable call gives the spread's
``devices`` (or ``gpus``), for the caller of this module to judge.
"""

from __future__ import annotations

import ast
import re

from .caller_flags import function_sites
from .flow import Function, bound_argument, parameters
from .names import Module, dotted, tail, values_bound_before
from .project import Project
from .tree_texts import TooManyFiles, tree_files

__all__ = ["spread_counts_of_callers"]

#: The trainer keywords that set how many devices it takes.
_COUNT_KEYS = ("devices", "gpus")


def spread_counts_of_callers(mod: Module, trainer: ast.Call) -> list[ast.expr | None] | None:
    """The device count each call of the trainer's function spreads into it.

    ``None`` where the trainer's ``**`` spread is not a parameter of its
    function (copied at most once: ``dict(param or {})``, ``{**param}``), a
    call's argument cannot be read as a dict of constant keys, or the
    function is called in the tree's files more often than the calls read
    show (a file the linter did not parse, a call it cannot place): then the
    calls are not all known. An entry a
    call leaves out is ``None`` in the list (the trainer's default). A
    function no file of the tree calls gives an empty list: no shipped run
    builds that trainer.
    """
    func = mod.function_of(trainer)
    spreads = [k.value for k in trainer.keywords if k.arg is None]
    if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) or len(spreads) != 1:
        return None
    param = _spread_parameter(mod, func, spreads[0], trainer.lineno)
    if param is None:
        return None
    project = mod.cache.get("project")
    if not isinstance(project, Project) or project.root is None:
        return None
    sites = function_sites(mod, func)
    if len(sites) != _named_in_the_tree(project, func.name):
        return None  # named where the sites do not show: a file not read, a callback
    counts: list[ast.expr | None] = []
    for owner, site in sites:
        given = bound_argument(site, func, param)
        entries = _dict_entries(owner, given, site.lineno) if given is not None else {}
        if entries is None:
            return None
        counts.append(next((entries[k] for k in _COUNT_KEYS if k in entries), None))
    return counts


def _named_in_the_tree(project: Project, name: str) -> int:
    """How often the text of the tree's Python files calls ``name(`` (its ``def`` aside).

    The sites are read from the parsed modules only; a script the text test
    skipped (an experiment script that names no data word) may call the
    function too, so every file's text is counted.
    """
    if name not in project.call_counts:
        pattern = re.compile(rf"\b{re.escape(name)}\s*\(")
        definition = re.compile(rf"\bdef\s+{re.escape(name)}\b")
        total = 0
        assert project.root is not None
        try:
            for _, text in tree_files(project.root, ("*.py",)):
                if name in text:
                    total += len(pattern.findall(text)) - len(definition.findall(text))
        except TooManyFiles:
            total = -1  # too large a tree to read: the calls are not all known
        project.call_counts[name] = total
    return project.call_counts[name]


def _spread_parameter(mod: Module, func: Function, spread: ast.expr, line: int) -> str | None:
    """The parameter the spread name copies (``x = dict(p or {})``), or names itself."""
    name = dotted(spread)
    if name is None:
        return None
    params = parameters(func)
    if name in params:
        return name
    bound = values_bound_before(mod, func, name, line)
    if len(bound) != 1:
        return None
    value = bound[0]
    if isinstance(value, ast.Call) and tail(value) == "dict" and len(value.args) == 1:
        value = value.args[0]
    elif isinstance(value, ast.Dict) and value.keys == [None]:
        value = value.values[0]  # {**param}
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        value = value.values[0]  # param or {}
    copied = dotted(value)
    return copied if copied in params else None


def _dict_entries(mod: Module, given: ast.expr, line: int) -> dict[str, ast.expr] | None:
    """The constant-key entries of the dict ``given`` is (literal, ``dict(...)``, name of one)."""
    value: ast.expr = given
    if isinstance(given, ast.Name):
        scope = mod.function_of(given) or mod.tree
        bound = values_bound_before(mod, scope, given.id, line)
        if len(bound) != 1:
            return None
        value = bound[0]
    if isinstance(value, ast.Call) and tail(value) == "dict" and not value.args:
        if any(k.arg is None for k in value.keywords):
            return None
        return {k.arg: k.value for k in value.keywords if k.arg is not None}
    if isinstance(value, ast.Dict) and all(
        isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys
    ):
        return {
            k.value: v
            for k, v in zip(value.keys, value.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        }
    return None
