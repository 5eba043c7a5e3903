"""An evaluation split across ranks by hand, padded with its own head, then combined (FS109).

``DistributedSampler``'s padding written out by hand: ``pad = (-len(work)) %
world``, ``work = work + work[:pad]``, ``my_work = work[rank::world]``, then
the ranks' sums all-reduced (flow_wm's validation). The first ``pad`` items
are evaluated twice, on the last ranks, and the combined sums count them
twice, as PyTorch's sampler does.

Read only in a function that trains nothing (no backward pass, no optimizer
step): a list padded so and cut by rank, in the same function, with a
combine after the cut.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .dedup import world_size_of
from .names import Module, dotted, mentions_rank, tail
from .shares import combining

__all__ = ["hand_padded_evaluations"]

_TRAINING = frozenset({"backward", "step", "zero_grad"})


def hand_padded_evaluations(mod: Module) -> Iterator[tuple[ast.stmt, str]]:
    """``(padding statement, padded name)`` of each evaluation padded and cut by hand."""
    for funcs in mod.functions.values():
        for func in funcs:
            calls = [n for n in ast.walk(func) if isinstance(n, ast.Call)]
            if any(tail(c) in _TRAINING for c in calls):
                continue
            for stmt in ast.walk(func):
                if not isinstance(stmt, ast.stmt) or mod.function_of(stmt) is not func:
                    continue
                padded = _padding(stmt, func)
                if padded is None:
                    continue
                cut = _cut_by_rank(func, padded, stmt.lineno)
                if cut is None:
                    continue
                if any(combining(c) and c.lineno > cut.lineno for c in calls):
                    yield stmt, padded


def _padding(stmt: ast.AST, func: ast.AST) -> str | None:
    """``x = x + x[:pad]`` (or ``x += x[:pad]``, ``x.extend(x[:pad])``) with a pad by the world."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        name = dotted(stmt.targets[0])
        value = stmt.value
        if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)):
            return None
        if dotted(value.left) != name:
            return None
        head = value.right
    elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
        name, head = dotted(stmt.target), stmt.value
    elif (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and tail(stmt.value) == "extend"
        and isinstance(stmt.value.func, ast.Attribute)
        and len(stmt.value.args) == 1
    ):
        name, head = dotted(stmt.value.func.value), stmt.value.args[0]
    else:
        return None
    if name is None or not _head_of(head, name):
        return None
    bound = head.slice.upper  # type: ignore[attr-defined]
    return name if bound is not None and _by_the_world(bound, func) else None


def _head_of(node: ast.expr, name: str) -> bool:
    """``name[:k]``: the first items of the list itself."""
    return (
        isinstance(node, ast.Subscript)
        and dotted(node.value) == name
        and isinstance(node.slice, ast.Slice)
        and node.slice.lower is None
        and node.slice.step is None
        and node.slice.upper is not None
    )


def _by_the_world(bound: ast.expr, func: ast.AST) -> bool:
    """The pad is a remainder by the world size: ``(-len(x)) % world``, or a name bound to one."""
    values = [bound]
    if isinstance(bound, ast.Name):
        values = [
            node.value
            for node in ast.walk(func)
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == bound.id for t in node.targets)
        ]
    return bool(values) and all(
        any(
            isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) and _names_world(n.right, func)
            for n in ast.walk(value)
        )
        for value in values
    )


def _names_world(node: ast.expr, func: ast.AST) -> bool:
    """Some part of ``node`` is the world size (``max(1, world)``; see ``dedup.world_size_of``)."""
    return any(world_size_of(func, sub) for sub in ast.walk(node))


def _cut_by_rank(func: ast.AST, name: str, after: int) -> ast.Subscript | None:
    """``name[rank::world]`` after line ``after``: a rank's stride of the padded list."""
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Subscript)
            and node.lineno > after
            and dotted(node.value) == name
            and isinstance(node.slice, ast.Slice)
            and node.slice.lower is not None
            and node.slice.step is not None
            and mentions_rank(node.slice.lower)
            and _names_world(node.slice.step, func)
        ):
            return node
    return None
