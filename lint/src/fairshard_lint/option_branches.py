"""Branches on a script's option that every shipped run of the script skips.

retformer's ``train_retnet.py`` builds its ``DistributedSampler`` under ``if
args.isdistributed == 1:``, and both lines of its ``train_scripts.sh`` that
run it (a plain ``python`` line and a six-process launch) pass
``--isdistributed=0``: no shipped run builds that sampler, so a finding on
it, or on the loop over the loader it would feed, describes a run that does
not happen. The transformers ``*_no_trainer`` examples seed under ``if
args.seed is not None:`` with ``--seed`` defaulting to ``None``; where every
shipped run leaves the flag out (gptanomaly's ``run_mlmlog.sh``), the seed
never runs.

An option's shipped values are what each launch line that runs the script
gives the flag, or the option's default on a line that does not name it,
read through the option's ``type=`` (``int``, ``float``, ``str``, or none);
the test is an ``if`` on the option (``args.x``, or a name its function
binds once to it) compared with a literal, its truth (``if args.x:``) or
``is not None``, possibly negated with ``not``. Any part that cannot be read
(a script no shipped line runs, a flag given by a loop's variable, an
``action=`` option, a type of the script's own) leaves the branch taken.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .launch_counts import launch_flag_values
from .names import Module, argument, compare_literals, dotted, is_constant, option_flags
from .options import defines_option, shipped_script
from .project import Project

__all__ = ["option_test_on_shipped_runs", "shipped_option_values", "skipped_option_branch"]

#: Receivers whose attributes are a script's parsed options.
_OPTION_HOLDERS = frozenset({"args", "opt", "opts", "cfg"})
#: ``type=`` of an option, as argparse converts a value given on the command line.
_CONVERTERS = {"int": int, "float": float, "str": str}
_UNREAD = object()


def skipped_option_branch(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a branch (within its function) that every shipped run skips by option."""
    func = mod.function_of(node)
    child: ast.AST = node
    for ancestor in mod.ancestors(node):
        if ancestor is func:
            return False
        if isinstance(ancestor, ast.If):
            holds = option_test_on_shipped_runs(mod, ancestor.test, func)
            if holds is False and child in ancestor.body:
                return True
            if holds is True and child in ancestor.orelse:
                return True
        child = ancestor
    return False


def option_test_on_shipped_runs(mod: Module, test: ast.expr, func: ast.AST | None) -> bool | None:
    """What ``test`` gives on every shipped run of ``mod``: ``True``, ``False``, or ``None``.

    ``None`` where the runs disagree or any part of the test cannot be read.
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = option_test_on_shipped_runs(mod, test.operand, func)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, right_node = test.ops[0], test.comparators[0]
        option = _option_read(mod, test.left, func)
        if option is None:
            return None
        if isinstance(op, ast.Is | ast.IsNot) and is_constant(right_node, None):
            values = shipped_option_values(mod, option)
            if values is None:
                return None
            results = {(v is None) == isinstance(op, ast.Is) for v in values}
        else:
            try:
                right = ast.literal_eval(right_node)  # -1 is a unary minus, not a constant
            except (ValueError, SyntaxError, TypeError):
                return None
            values = shipped_option_values(mod, option)
            if values is None:
                return None
            compared = {compare_literals(op, v, right) for v in values}
            if None in compared:
                return None
            results = {bool(c) for c in compared}
    else:
        option = _option_read(mod, test, func)
        values = None if option is None else shipped_option_values(mod, option)
        if values is None:
            return None
        results = {bool(v) for v in values}
    if len(results) != 1:
        return None
    (result,) = results
    return result


def shipped_option_values(mod: Module, option: str) -> list[object] | None:
    """The value of ``mod``'s option ``option`` on each shipped run of the script (read once)."""
    key = f"shipped option values {option}"
    if key not in mod.cache:
        shipped = shipped_script(mod)
        found = None
        if shipped is not None:
            project, path = shipped
            found = _shipped_values(mod, project.root or Path("."), path, option)
        mod.cache[key] = found if found is not None else _unset_default(mod, option)
    found = mod.cache[key]
    return found if isinstance(found, list) else None


def _unset_default(mod: Module, option: str) -> list[object] | None:
    """``[default]`` for the tree's one ``option`` where nothing shipped sets it.

    MaskedProteinEnT's data module reads ``args.h5_file_afsc``, an option of
    a helper module's parser that its launched training script imports, and
    that no launch line, notebook, config or other line of code names: every
    shipped run has its default, ``''``. A parser no shipped line runs says
    nothing of the runs (``--do_train`` of a script with no launch line).
    """
    project = mod.cache.get("project")
    if not isinstance(project, Project) or project.option_default(option) is None:
        return None
    definition = project.option_definition(option)
    if definition is None or not _parsed_by_a_shipped_script(project, definition):
        return None  # a parser no shipped line runs: how it is run is not shown
    if argument(definition, "action") is not None:
        default = project.option_default(option)
        return [default.value] if isinstance(default, ast.Constant) else None
    readable, convert = _converter(definition)
    if not readable:
        return None
    value = _default(definition, convert)
    return None if value is _UNREAD else [value]


def _shipped_values(mod: Module, root: Path, path: Path, option: str) -> list[object] | None:
    definitions = [c for c in mod.calls if defines_option(c, option)]
    if len(definitions) != 1:
        return None
    (definition,) = definitions
    if argument(definition, "action") is not None:
        return None
    readable, convert = _converter(definition)
    if not readable:
        return None
    flags = option_flags(definition)
    given = launch_flag_values(root, flags, path.name)
    if not given:
        return None
    default = _default(definition, convert)
    values: list[object] = []
    for value in given:
        if value is None:
            if default is _UNREAD:
                return None
            values.append(default)
            continue
        try:
            values.append(convert(value) if convert is not None else value)
        except ValueError:
            return None
    return values


def _parsed_by_a_shipped_script(project: Project, definition: ast.Call) -> bool:
    """A script some shipped line runs defines the option, or imports the module that does."""
    owner = next(
        (name for name, module in project.modules.items() if definition in module.calls), None
    )
    if owner is None:
        return False
    for name, module in project.modules.items():
        path = project.tree_path(module)
        if path is None or path.as_posix() not in project.run_scripts:
            continue
        if name == owner or project.imports_module(name, owner):
            return True
    return False


def _converter(definition: ast.Call) -> tuple[bool, type | None]:
    """The option's ``type=`` as argparse applies it: ``(False, None)`` for a type not read here.

    No ``type=`` is ``(True, None)``: the value stays a string.
    """
    kind = argument(definition, "type")
    if kind is None:
        return True, None
    convert = _CONVERTERS.get(kind.id) if isinstance(kind, ast.Name) else None
    return convert is not None, convert


def _default(definition: ast.Call, convert: type | None) -> object:
    """The option's default, as argparse gives it (a string default goes through ``type=``)."""
    node = argument(definition, "default")
    if node is None:
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return _UNREAD
    if isinstance(value, str) and convert is not None:
        try:
            return convert(value)
        except ValueError:
            return _UNREAD
    return value


def _option_read(mod: Module, value: ast.expr, func: ast.AST | None) -> str | None:
    """``args.seed`` (or a name bound once to it in the function): the option ``seed``."""
    if isinstance(value, ast.Name):
        bound = [
            a.value
            for a in ast.walk(func if func is not None else mod.tree)
            if isinstance(a, ast.Assign)
            and mod.function_of(a) is func
            and any(dotted(t) == value.id for t in a.targets)
        ]
        value = bound[0] if len(bound) == 1 else value
    if isinstance(value, ast.Attribute) and dotted(value.value) in _OPTION_HOLDERS:
        return value.attr
    return None
