"""Data cut by the rank by hand: a loader over it reads one rank's share only.

Scripts that shard without a sampler cut the index list (or the dataset)
with the rank before building a plain loader: ``idx.split(n // W)[rank]``,
``np.array_split(idx, W)[rank]``, ``idx[rank::W]``,
``idx[rank * k:(rank + 1) * k]``, ``range(rank, n, W)``,
``dataset.shard(num_shards=W, index=rank)``, a comprehension that keeps the
items ``if i % world == rank``. A ``DataLoader(shuffle=True)``
over the result reorders a disjoint share, which is sharding (FS103's
pitfall, every rank reading everything, is not there).
"""

from __future__ import annotations

import ast

from .flow import flow_of
from .names import Module, dotted, mentions_rank, tail

__all__ = ["FILLING", "bindings", "cut_by_rank"]

#: Calls whose arguments choose a rank's part (``range(rank, n, world)``).
_CUTTING_CALLS = frozenset(
    {"range", "arange", "shard", "split_dataset_by_node", "array_split", "Subset"}
)


#: List methods that put a value in the list they are called on.
FILLING = frozenset({"append", "extend"})


def bindings(scope: ast.AST) -> dict[str, list[ast.expr]]:
    """Values assigned to each dotted name in ``scope`` (tuple targets take the whole value).

    A list filled by ``append`` or ``extend`` holds what they are given.
    """
    found: dict[str, list[ast.expr]] = {}
    for node in ast.walk(scope):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in FILLING
            and (filled := dotted(node.func.value))
        ):
            # datasets.append(Sims(sims[start:end])): what the list holds
            found.setdefault(filled, []).extend(node.args)
            continue
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            for element in ast.walk(target):
                name = dotted(element)
                if name and isinstance(element, ast.Name | ast.Attribute):
                    found.setdefault(name, []).append(value)
    return found


def cut_by_rank(mod: Module, data: ast.expr, depth: int = 2) -> bool:
    """``data``, or a value bound to a name it reads in its function, is cut by the rank.

    Also the result of a function of the module that is handed the rank and
    returns a value it cut by it (tgrs's ``load_distributed_data(rank,
    world_size, ...)``, which slices ``[rank * k:(rank + 1) * k]``), a few calls deep.
    """
    flow = flow_of(mod)
    bound = bindings(mod.function_of(data) or mod.tree)
    seen: set[str] = set()
    stack: list[ast.expr] = [data]
    while stack:
        expr = stack.pop()
        for node in ast.walk(expr):
            if isinstance(node, ast.Subscript) and mentions_rank(
                node.slice, flow.rank_names_at(node)
            ):
                return True
            if isinstance(node, ast.comprehension) and any(
                isinstance(test, ast.Compare) and mentions_rank(test, flow.rank_names_at(test))
                for test in node.ifs
            ):
                return True  # [f for i, f in enumerate(files) if i % world == rank]
            if (
                isinstance(node, ast.Call)
                and tail(node) in _CUTTING_CALLS
                and any(
                    mentions_rank(a, flow.rank_names_at(node))
                    for a in [*node.args, *(k.value for k in node.keywords)]
                )
            ):
                return True
            if (
                depth
                and isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and any(
                    mentions_rank(a, flow.rank_names_at(node))
                    for a in [*node.args, *(k.value for k in node.keywords)]
                )
                and _returns_a_cut(mod, node.func.id, depth - 1)
            ):
                return True
            name = dotted(node) if isinstance(node, ast.Name | ast.Attribute) else None
            if name and name not in seen and name in bound:
                seen.add(name)
                stack.extend(bound[name])
    return False


def _returns_a_cut(mod: Module, name: str, depth: int) -> bool:
    """The module's function ``name`` returns a value cut by the rank."""
    for func in mod.functions.get(name, []):
        for node in ast.walk(func):
            if (
                isinstance(node, ast.Return)
                and node.value is not None
                and mod.function_of(node) is func
                and cut_by_rank(mod, node.value, depth)
            ):
                return True
    return False
