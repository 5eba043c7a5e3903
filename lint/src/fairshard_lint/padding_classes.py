"""Sampler classes of a linted tree that pad by inheritance or by what they build (FS109).

Two kinds, found across the modules of the tree (or in one file alone):

* subclasses of ``DistributedSampler``, at any depth through the tree's own
  classes, that keep its padding: no ``__iter__`` of their own (or one that
  calls ``super().__iter__()`` or pads by repeating), and no constructor that
  passes ``drop_last=True`` up (fairchem's ``StatefulDistributedSampler``);
* classes whose constructor builds a padding sampler (one of the above, or
  ``DistributedSampler`` itself) with its padding on, or with ``drop_last``
  taken from a constructor parameter (fairchem's ``BalancedBatchSampler``,
  ``drop_last: bool = False``, which wraps the sampler above).

Each is given a :class:`Padding`: how a call to the class says whether it
pads (which argument turns padding off, and what leaving it out does).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from .names import Module, argument, dotted, is_constant, tail

__all__ = ["Padding", "padding_classes"]


@dataclass(frozen=True)
class Padding:
    """How a call to a padding class says whether it pads.

    Attributes:
        keyword: The parameter that turns padding off (``drop_last``), or ``None``
            when nothing does.
        position: Its position among the positional arguments, ``None`` when unknown.
        default: Whether the class pads when the argument is left out.
        why: A few words on where the padding comes from, for the message.
    """

    keyword: str | None
    position: int | None
    default: bool
    why: str

    def pads(self, call: ast.Call) -> bool:
        """``call`` builds the class with its padding on."""
        if self.keyword is None:
            return True
        value = argument(call, self.keyword, self.position)
        if value is None:
            return self.default and not any(k.arg is None for k in call.keywords)
        return is_constant(value, False)


#: ``DistributedSampler(dataset, num_replicas, rank, shuffle, seed, drop_last)``.
TORCH = Padding("drop_last", 5, True, "DistributedSampler pads")


def _init(cls: ast.ClassDef) -> ast.FunctionDef | None:
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            return node
    return None


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _parameter(func: ast.FunctionDef, name: str) -> tuple[int | None, ast.expr | None] | None:
    """``(position without self, default)`` of parameter ``name``; ``None`` if it has none."""
    positional = func.args.posonlyargs + func.args.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(func.args.defaults))
    defaults += list(func.args.defaults)
    for index, arg in enumerate(positional):
        if arg.arg == name:
            return index - 1, defaults[index]
    for arg, default in zip(func.args.kwonlyargs, func.args.kw_defaults, strict=True):
        if arg.arg == name:
            return None, default
    return None


def _keeps_iteration(cls: ast.ClassDef, repeats: Callable[[ast.ClassDef], bool] | None) -> bool:
    """No ``__iter__`` of its own, or one that calls ``super().__iter__()`` or repeats."""
    method = _method(cls, "__iter__")
    if method is None:
        return True
    for node in ast.walk(method):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "__iter__"
            and isinstance(node.func.value, ast.Call)
            and tail(node.func.value) == "super"
        ):
            return True
    return repeats is not None and repeats(cls)


def _through(
    func: ast.FunctionDef, value: ast.expr | None, parent: Padding, why: str
) -> Padding | None:
    """The padding of a class whose constructor passes ``value`` as ``parent``'s switch."""
    if value is None:
        if parent.default:
            return Padding(None, None, True, why)
        return None
    if is_constant(value, False):
        return Padding(None, None, True, why)
    name = dotted(value)
    if name is None or "." in name:
        return None
    found = _parameter(func, name)
    if found is None:
        return None
    position, default = found
    pads_by_default = default is not None and is_constant(default, False)
    return Padding(name, position, pads_by_default, why)


def _subclass_padding(cls: ast.ClassDef, parent: Padding) -> Padding | None:
    """A subclass of a padding sampler: its own constructor's switch, or its parent's."""
    init = _init(cls)
    why = f"{cls.name} inherits DistributedSampler's padding"
    if init is None:
        return Padding(parent.keyword, parent.position, parent.default, why)
    supers = [
        node
        for node in ast.walk(init)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "__init__"
        and isinstance(node.func.value, ast.Call)
        and tail(node.func.value) == "super"
    ]
    if not supers:
        return None
    call = supers[0]
    value = argument(call, parent.keyword) if parent.keyword else None
    if value is None and parent.keyword is not None:
        spread = [k.value for k in call.keywords if k.arg is None]
        own = _parameter(init, parent.keyword)
        if own is not None:
            position, default = own
            if default is None or not is_constant(default, False):
                return None  # its own switch, on by default and not given up
            return Padding(parent.keyword, position, True, why)
        if spread:
            return Padding(parent.keyword, None, parent.default, why)
        return Padding(None, None, True, why) if parent.default else None
    return _through(init, value, parent, why)


def padding_classes(
    modules: list[Module], repeats: Callable[[ast.ClassDef], bool] | None = None
) -> dict[str, Padding]:
    """The tree's classes that pad by inheritance or by what they build, by name."""
    classes: dict[str, ast.ClassDef] = {}
    for module in modules:
        for node in module.nodes:
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, node)
    found: dict[str, Padding] = {}
    for _ in range(6):
        before = len(found)
        for name, cls in classes.items():
            if name in found or name == "DistributedSampler":
                continue
            for base in cls.bases:
                base_name = (dotted(base) or "").rpartition(".")[2]
                parent = (
                    TORCH
                    if base_name == "DistributedSampler" and base_name not in found
                    else found.get(base_name)
                )
                if parent is None or not _keeps_iteration(cls, repeats):
                    continue
                padding = _subclass_padding(cls, parent)
                if padding is not None:
                    found[name] = padding
                break
            if name in found:
                continue
            init = _init(cls)
            if init is None or not any((dotted(b) or "").endswith("Sampler") for b in cls.bases):
                continue  # only a sampler wraps a sampler: a data module's builder is not one
            for node in ast.walk(init):
                if not isinstance(node, ast.Call):
                    continue
                inner = tail(node)
                built = TORCH if inner == "DistributedSampler" else found.get(inner)
                if built is None or inner == name:
                    continue
                value = argument(node, built.keyword, built.position) if built.keyword else None
                why = f"{name} builds a padding {inner} in its constructor"
                padding = (
                    Padding(None, None, True, why)
                    if built.keyword is None
                    else _through(init, value, built, why)
                )
                if padding is not None:
                    found[name] = padding
                    break
        if len(found) == before:
            break
    return found
