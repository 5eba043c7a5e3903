"""Loaders carried by objects across the modules of a linted tree (rule FS101).

Training code often keeps its loader on an object: a data class builds it
(``self.data = DataLoader(ds, sampler=self.train_sampler)``) and the script
reads ``DepthDataLoader(cfg, "train").data``; a trainer's constructor keeps
the loader it is handed (``self.train_loader = train_loader``) and a method
runs the epoch loop over it. :func:`imported_attributes` gives a module the
attributes that instances of other modules' classes carry;
:func:`carried_attributes` follows every loader handed to a class of the
tree into the ``self.<attr>`` its ``__init__`` (or a base class's, through
``super().__init__``) stores it in, so that class's module checks the loop.

NOTE (precision over soundness): a class picked at run time
(``get_trainer(cfg)(cfg, model, train_loader)``, ``TRAINERS[name](...)``)
is matched by parameter name: only classes of the tree whose ``__init__``
takes the argument under the name the caller gives it.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .flow import Flow, parameters
from .names import dotted, is_eval_name, tail

if TYPE_CHECKING:
    from .project import Project

__all__ = ["carried_attributes", "imported_attributes", "stored_attributes"]

#: Levels of ``super().__init__`` followed from a constructor to the class that stores.
MAX_BASE_DEPTH = 3
#: A constructor's argument: its position (``self`` not counted) or its keyword.
Slot = int | str


def imported_attributes(project: Project, name: str) -> dict[str, set[str]]:
    """Classes of other modules built in module ``name`` whose instances carry attributes."""
    out: dict[str, set[str]] = {}
    module = project.modules[name]
    for call in module.calls:
        parent = module.parents.get(call)
        if not (isinstance(parent, ast.Attribute) and parent.value is call):
            continue  # only ``Cls(...).attr`` reads an attribute of the new instance
        where = project.resolve(name, call)
        if where is None or where[0] == name:
            continue
        attrs = project.attribute_producers.get(where[0], {}).get(where[1])
        if attrs:
            out.setdefault(tail(call), set()).update(attrs)
    return out


def carried_attributes(project: Project) -> dict[str, set[str]]:
    """Module -> ``self.<attr>`` names that hold a loader handed to a constructor.

    Every call of the tree that passes a carrier (see ``flow``) to a class
    of the tree is followed into that class's ``__init__``: the attribute it
    stores the parameter in carries in the class's module.
    """
    out: dict[str, set[str]] = {}
    for name, module in project.modules.items():
        flow = module.cache.get("flow")
        if not isinstance(flow, Flow) or not (flow.has_carriers() or flow.attribute_producers):
            continue
        for call in module.calls:
            for slot, arg in _carried_arguments(flow, call):
                for owner, cls in _constructors(project, name, call, slot, arg):
                    _store(project, owner, cls, slot, out, MAX_BASE_DEPTH)
    return out


def stored_attributes(project: Project, owner: str, cls: ast.ClassDef, param: str) -> set[str]:
    """The ``self.<attr>`` names ``cls``'s constructor stores its ``param`` in.

    Its own ``__init__``'s stores, and those of the base classes it hands the
    parameter on to (``super().__init__(val_loader=val_loader)``, the base in
    another module storing ``self.val_loader = val_loader``).
    """
    out: dict[str, set[str]] = {}
    _store(project, owner, cls, param, out, MAX_BASE_DEPTH)
    return set().union(*out.values()) if out else set()


def _constructors(
    project: Project, name: str, call: ast.Call, slot: Slot, arg: ast.expr
) -> list[tuple[str, ast.ClassDef]]:
    """Classes of the tree that ``call`` may build, taking ``arg`` at ``slot``.

    A class the call names; or, when the class is the result of another
    expression (``get_trainer(cfg)(...)``, ``TRAINERS[name](...)``), every
    class of the tree whose ``__init__`` names that parameter as the caller
    names the argument (``train_loader`` passed where ``train_loader`` is
    taken).
    """
    where = project.resolve(name, call)
    if where is not None:
        classes = project.modules[where[0]].classes.get(where[1], [])
        return [(where[0], cls) for cls in classes[:1]]
    if not isinstance(call.func, ast.Call | ast.Subscript):
        return []
    passed = (dotted(arg) or "").rpartition(".")[2]
    found: list[tuple[str, ast.ClassDef]] = []
    for owner, module in project.modules.items():
        for classes in module.classes.values():
            for cls in classes:
                init = _own_init(cls)
                if init is None:
                    continue
                params = parameters(init)
                if isinstance(slot, str):
                    if slot in params:
                        found.append((owner, cls))
                elif slot < len(params) and params[slot] == passed:
                    found.append((owner, cls))
    return found


def _store(
    project: Project,
    owner: str,
    cls: ast.ClassDef,
    slot: Slot,
    out: dict[str, set[str]],
    depth: int,
) -> None:
    """Record the ``self.<attr>`` that ``cls``'s constructor stores its ``slot`` argument in."""
    init = _own_init(cls)
    if init is None:  # inherited constructor: the same arguments reach the base class
        for base in cls.bases:
            _store_in_base(project, owner, base, slot, out, depth)
        return
    params = parameters(init)
    if isinstance(slot, str):
        param = slot if slot in params else None
    else:
        param = params[slot] if slot < len(params) else None
    if param is None:
        return
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and _is_name(node.value, param):
            for target in node.targets:
                stored = dotted(target) or ""
                if stored.startswith("self.") and stored.count(".") == 1:
                    out.setdefault(owner, set()).add(stored)
        elif isinstance(node, ast.Call) and depth > 1:
            parent, forwarded = _base_init(node, param)
            if parent is None:
                continue
            bases = cls.bases[:1] if isinstance(parent, str) else [parent]
            for named in bases:
                _store_in_base(project, owner, named, forwarded, out, depth - 1)


def _store_in_base(
    project: Project,
    owner: str,
    base: ast.expr,
    slot: Slot | None,
    out: dict[str, set[str]],
    depth: int,
) -> None:
    where = project.named(owner, base) if slot is not None else None
    if where is None or slot is None:
        return
    for cls in project.modules[where[0]].classes.get(where[1], [])[:1]:
        _store(project, where[0], cls, slot, out, depth)


def _carried_arguments(flow: Flow, call: ast.Call) -> list[tuple[Slot, ast.expr]]:
    """The arguments of ``call`` that carry a training loader or sampler, by slot."""
    out: list[tuple[Slot, ast.expr]] = []
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        out.append((position, arg))
    out.extend((k.arg, k.value) for k in call.keywords if k.arg)
    return [
        (slot, arg)
        for slot, arg in out
        if flow.carries(arg) and not flow.managed(arg) and not is_eval_name(dotted(arg) or "")
    ]


def _own_init(cls: ast.ClassDef) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "__init__":
            return node
    return None


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _base_init(call: ast.Call, param: str) -> tuple[ast.expr | str | None, Slot | None]:
    """``super().__init__(..., param, ...)`` -> ``("super", slot)``; ``Base.__init__(self, ...)``.

    Returns the base (``"super"`` or the expression naming it) and the slot the
    parameter is passed at, or ``(None, None)`` when the call is neither.
    """
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__"):
        return None, None
    base: ast.expr | str
    args = list(call.args)
    if isinstance(func.value, ast.Call) and tail(func.value) == "super":
        base = "super"
    elif args and _is_name(args[0], "self"):
        base, args = func.value, args[1:]
    else:
        return None, None
    for position, arg in enumerate(args):
        if isinstance(arg, ast.Starred):
            break
        if _is_name(arg, param):
            return base, position
    for keyword in call.keywords:
        if keyword.arg and _is_name(keyword.value, param):
            return base, keyword.arg
    return None, None
