"""Methods that a dispatch on an option reaches only for values no shipped run gives it.

Research code often keeps one method per mode and picks one by an option:
``if self.mining == "full": self.compute_triplets_full(...)``, ``elif
self.mining == "random": ...``, with ``self.mining = args.mining`` and
``--mining`` defaulting to ``"partial_sep"`` (MAG-VLAQ). Where no launch line
names the flag and no config of the tree sets the key, every shipped run
takes the default, and a method called only under tests the default fails
never runs: a finding inside it describes a run that does not happen.

Read only where every piece is sure: each call of the method (by name, in the
parsed modules; every other mention of the name in the tree's Python files
leaves it unknown) sits in the body of an ``if`` that compares one attribute
(``self.mining``) with literals; the attribute is bound in the tree only from
one option (``args.mining``); the option is defined once in the tree, with a
literal default; no launch file or README names the flag and no YAML or JSON
config of the tree has the key.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

from .launch_counts import launch_texts_name
from .names import Module, argument, dotted, tail
from .project import Project
from .tree_texts import TooManyFiles, tree_files

__all__ = ["dispatched_away"]

Function = ast.FunctionDef | ast.AsyncFunctionDef
_UNKNOWN = object()


def dispatched_away(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a method that only option-dispatch branches no shipped run takes call."""
    project = mod.cache.get("project")
    if not isinstance(project, Project) or not project.whole_tree or project.root is None:
        return False
    method = _outer_method(mod, node)
    if method is None:
        return False
    key = f"dispatched away {id(method)}"
    if key not in project.facts:
        project.facts[key] = _dispatched_away(project, method)
    return bool(project.facts[key])


def _outer_method(mod: Module, node: ast.AST) -> Function | None:
    """The method of a module-level class that holds ``node``."""
    chain = [node, *mod.ancestors(node)]
    for inner, outer in itertools.pairwise(chain):
        if (
            isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef)
            and isinstance(outer, ast.ClassDef)
            and mod.parents.get(outer) is mod.tree
        ):
            return inner
    return None


def _dispatched_away(project: Project, method: Function) -> bool:
    name = method.name
    sites: list[tuple[Module, ast.Call]] = [
        (other, call)
        for other in project.modules.values()
        for call in other.calls
        if isinstance(call.func, ast.Attribute) and call.func.attr == name
    ]
    if not sites or _mentions(project.root, name) != len(sites):
        return False  # called nowhere here, or named somewhere the reading does not see
    for other, call in sites:
        test = _guarding_test(other, call)
        if test is None:
            return False
        reading = _compared(test)
        if reading is None:
            return False
        attribute, literals = reading
        value = _shipped_value(project, other, call, attribute)
        if value is _UNKNOWN or value in literals:
            return False
    return True


def _mentions(root: Path | None, name: str) -> int:
    """How many times the tree's Python files name ``name``, its definitions left out."""
    if root is None:
        return -1
    word = re.compile(rf"\b{re.escape(name)}\b")
    definition = re.compile(rf"\bdef\s+{re.escape(name)}\b")
    count = 0
    try:
        for _, text in tree_files(root, ("*.py",)):
            if name in text:
                count += len(word.findall(text)) - len(definition.findall(text))
    except TooManyFiles:
        return -1
    return count


def _guarding_test(mod: Module, call: ast.Call) -> ast.expr | None:
    """The test of the ``if`` whose body holds ``call``'s statement directly (an ``elif`` too)."""
    statement = mod.parents.get(call)
    holder = mod.parents.get(statement) if statement is not None else None
    if isinstance(holder, ast.If) and statement in holder.body:
        return holder.test
    return None


def _compared(test: ast.expr) -> tuple[str, set[object]] | None:
    """``self.mining == "full"`` (``in [...]``, or an ``or`` of such): the attribute and values."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        parts = [_compared(v) for v in test.values]
        if any(p is None for p in parts) or len({p[0] for p in parts if p}) != 1:
            return None
        return parts[0][0], set().union(*(p[1] for p in parts if p))  # type: ignore[index]
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    attribute = dotted(test.left)
    if attribute is None or not attribute.startswith("self."):
        return None
    right = test.comparators[0]
    if isinstance(test.ops[0], ast.Eq) and isinstance(right, ast.Constant):
        return attribute, {right.value}
    if (
        isinstance(test.ops[0], ast.In)
        and isinstance(right, ast.List | ast.Tuple | ast.Set)
        and all(isinstance(e, ast.Constant) for e in right.elts)
    ):
        return attribute, {e.value for e in right.elts if isinstance(e, ast.Constant)}
    return None


def _shipped_value(project: Project, mod: Module, call: ast.Call, attribute: str) -> object:
    """The value every shipped run gives ``self.<attr>``: its option's default, or unknown."""
    cls = next((a for a in mod.ancestors(call) if isinstance(a, ast.ClassDef)), None)
    if cls is None:
        return _UNKNOWN
    field = attribute.removeprefix("self.")
    options: set[str] = set()
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign) and any(dotted(t) == attribute for t in node.targets):
            source = dotted(node.value)
            if source is None or source.count(".") != 1:
                return _UNKNOWN
            options.add(source.split(".")[1])
    if len(options) != 1:
        return _UNKNOWN
    (option,) = options
    for other in project.modules.values():  # written anywhere else: not the option's alone
        for node in other.nodes:
            if isinstance(node, ast.Assign | ast.AugAssign) and any(
                isinstance(t, ast.Attribute)
                and t.attr in (field, option)
                and dotted(t) != attribute
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            ):
                return _UNKNOWN
    return _option_default(project, option)


def _option_default(project: Project, option: str) -> object:
    """The literal default of the tree's one ``--option``, where nothing shipped sets it."""
    root = project.root
    if root is None:
        return _UNKNOWN
    flag = "--" + option
    defaults: list[object] = []
    try:
        for _, text in tree_files(root, ("*.py",)):
            if flag not in text:
                continue
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError, RecursionError):
                return _UNKNOWN
            for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
                if tail(call) == "add_argument" and any(
                    isinstance(a, ast.Constant) and a.value in (flag, flag.replace("_", "-"))
                    for a in call.args
                ):
                    given = argument(call, "default")
                    if given is not None and not isinstance(given, ast.Constant):
                        return _UNKNOWN
                    defaults.append(None if given is None else given.value)
        key = re.compile(rf"^\s*[\"']?{re.escape(option)}[\"']?\s*:", re.M)
        for _, text in tree_files(root, ("*.yaml", "*.yml", "*.json")):
            if key.search(text):
                return _UNKNOWN  # a config of the tree sets it
    except TooManyFiles:
        return _UNKNOWN
    if len(defaults) != 1 or launch_texts_name(root, [flag, flag.replace("_", "-")]):
        return _UNKNOWN
    return defaults[0]
