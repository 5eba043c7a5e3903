"""Sampler seeds drawn per process: ``args.seed = random.randint(0, 10000)`` (FS104).

A seed that reads no rank can still differ between ranks: drawn from a
generator nobody seeded alike (Python's and NumPy's start from the
operating system's entropy in each process), from the clock, or from the
process id. Handed to ``DistributedSampler(seed=...)``, directly or through a
builder's parameter from the script that calls it, it gives every rank its
own permutation, so their shares overlap and some samples are never read.

Left alone: a draw after a seed set alike on every rank earlier in its file,
and a value broadcast from rank 0 (``dist.broadcast``, ``broadcast_object_list``)
before the sampler gets it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .flow import bound_argument, parameters
from .hand_splits import seeded_before
from .names import Module, dotted, source_position, tail

__all__ = ["seed_drawn_per_process"]

#: Calls whose value differs from process to process unless something seeded them alike.
_DRAWS = frozenset(
    {
        "random.randint",
        "random.random",
        "random.randrange",
        "random.getrandbits",
        "numpy.random.randint",
        "numpy.random.random",
        "numpy.random.rand",
        "time.time",
        "time.time_ns",
        "os.getpid",
        "secrets.randbits",
        "secrets.randbelow",
    }
)
_BROADCASTS = frozenset({"broadcast", "broadcast_object_list", "all_gather_object"})


def _draw_in(mod: Module, value: ast.AST) -> ast.Call | None:
    """A call in ``value`` that draws a per-process number, not seeded alike before it."""
    for node in ast.walk(value):
        if (
            isinstance(node, ast.Call)
            and (mod.qualified(node.func) or "") in _DRAWS
            and not seeded_before(mod, node)
        ):
            return node
    return None


def _assigned_draw(
    mod: Module, scope: ast.AST, name: str, before: tuple[int, int]
) -> ast.Call | None:
    """The draw that ``name`` holds at ``before``: its last assignment in ``scope`` before it.

    ``None`` where that assignment is no draw (``args.seed = box[0]`` after a
    broadcast), or where ``name`` is broadcast between the two.
    """
    last: ast.Assign | None = None
    for node in ast.walk(scope):
        if (
            isinstance(node, ast.Assign)
            and source_position(node) < before
            and any(dotted(t) == name for t in node.targets)
            and (last is None or source_position(node) > source_position(last))
        ):
            last = node
    if last is None:
        return None
    assigned = last
    for node in ast.walk(scope):
        if (
            isinstance(node, ast.Call)
            and tail(node) in _BROADCASTS
            and source_position(assigned) < source_position(node) < before
            and any(dotted(n) == name for a in node.args for n in ast.walk(a))
        ):
            return None
    return _draw_in(mod, assigned.value)


def _where(mod: Module, node: ast.AST) -> str:
    project = mod.cache.get("project")
    line = getattr(node, "lineno", 0)
    if project is None:
        return f"line {line}"
    return f"{Path(project.paths[mod.cache['module_name']]).as_posix()}:{line}"


def seed_drawn_per_process(mod: Module, call: ast.Call, seed: ast.expr) -> str | None:
    """Where ``seed`` (the ``seed=`` of ``call``) is drawn per process, or ``None``.

    Read in ``call``'s function (``seed = random.randint(...)``), and where it
    is a parameter of that function, at the tree's call sites of the function
    (``get_loaders(cfg, args.seed)`` after ``args.seed = random.randint(...)``).
    """
    func = mod.function_of(call)
    direct = _draw_in(mod, seed)
    if direct is not None:
        return f"{ast.unparse(direct)} at {_where(mod, direct)}"
    name = dotted(seed)
    if name is None:
        return None
    scope = func or mod.tree
    here = _assigned_draw(mod, scope, name, source_position(call))
    if here is not None:
        return f"{name} = {ast.unparse(here)} at {_where(mod, here)}"
    if func is None or name not in parameters(func):
        return None
    return _from_callers(mod, func, name, depth=3)


def _from_callers(
    mod: Module, func: ast.FunctionDef | ast.AsyncFunctionDef, param: str, depth: int
) -> str | None:
    """A draw that the tree's callers of ``func`` pass as ``param`` (or through theirs)."""
    project = mod.cache.get("project")
    if project is None or depth == 0:
        return None
    for owner, site in project.call_sites(mod.cache["module_name"], func.name):
        given = bound_argument(site, func, param)
        if given is None:
            continue
        caller = project.modules[owner]
        outer = caller.function_of(site)
        drawn = _draw_in(caller, given)
        name = dotted(given)
        if drawn is None and name is not None:
            drawn = _assigned_draw(caller, outer or caller.tree, name, source_position(site))
        if drawn is not None:
            return f"{ast.unparse(given)} = {ast.unparse(drawn)} at {_where(caller, drawn)}"
        if outer is not None and name is not None and name in parameters(outer):
            found = _from_callers(caller, outer, name, depth - 1)
            if found is not None:
                return found
    return None
