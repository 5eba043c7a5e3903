"""Data split by the rank before a framework splits it again (FS115).

accelerate shards every loader it prepares: a map-style loader through
``BatchSamplerShard``, an iterable one through ``IterableDatasetShard``
(every W-th batch of each process's stream) or by dispatching the main
process's batches, and a ``datasets.IterableDataset`` by ``.shard()``
(``accelerate/data_loader.py``, ``prepare_data_loader``). transformers'
``Trainer`` prepares the loaders it builds the same way. Data that already
holds one rank's share is split a second time: each process keeps 1/W of
its share and (W-1)/W of the data is never read, with no error and a
normal-looking loss (accelerate issues 3547 and 4062).

A rank's share, as read here: a value cut by the rank (``rank_cuts``:
``Subset(ds, range(rank, n, world))``, ``split_dataset_by_node(ds, rank,
world)``), a webdataset pipeline with ``split_by_node`` (``nodesplitter=``,
``.split_by_node()``, a stage of ``DataPipeline``), and an instance of an
``IterableDataset`` class of the module whose ``__iter__`` reads the rank
and the world size (itself or through a function of the module it calls),
or of a subclass of one; and a loader over a ``DistributedSampler`` handed
to ``accelerator.prepare``. fairshard's own samplers are ``FS114``'s.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .flow import LOADERS, bound_argument, parameters
from .names import RANK_FUNCTIONS, Module, argument, dotted, env_key, tail
from .rank_cuts import bindings, cut_by_rank

__all__ = ["sharded_twice"]

#: webdataset's stage that keeps one node's shards.
_NODE_SPLIT = "split_by_node"
_WORLD_FUNCTIONS = frozenset({"get_world_size"})
#: Keyword arguments of a training framework's constructor that take a dataset it prepares.
_TRAINER_DATASETS = ("train_dataset", "eval_dataset")
#: Packages whose ``...Trainer`` builds and prepares its own loaders.
_TRAINER_PACKAGES = frozenset({"transformers", "trl"})
#: accelerate's opt-out of the second split of an iterable dataset (``DataLoaderConfiguration``).
_OPT_OUT = "shard_iterable_dataset"


def _last(node: ast.AST) -> str:
    """The last part of a dotted name (``wds.split_by_node`` -> ``split_by_node``)."""
    return (dotted(node) or "").rpartition(".")[2]


def _names_node_split(node: ast.AST) -> bool:
    """``node`` names webdataset's ``split_by_node`` (also ``getattr(wds, "split_by_node")``)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name | ast.Attribute) and _last(sub) == _NODE_SPLIT:
            return True
        if isinstance(sub, ast.Constant) and sub.value == _NODE_SPLIT:
            return True
    return False


def _reads(mod: Module, func: ast.AST, depth: int = 1) -> tuple[bool, bool]:
    """Whether ``func`` reads the rank and the world size (through module functions too)."""
    rank = world = False
    for node in ast.walk(func):
        key = env_key(node)
        if key == "RANK" or (isinstance(node, ast.Call) and tail(node) in RANK_FUNCTIONS):
            rank = True
        if key == "WORLD_SIZE" or (isinstance(node, ast.Call) and tail(node) in _WORLD_FUNCTIONS):
            world = True
        if depth and isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for callee in mod.functions.get(node.func.id, []):
                if callee is not func:
                    more = _reads(mod, callee, depth - 1)
                    rank, world = rank or more[0], world or more[1]
    return rank, world


def _self_splitting_classes(mod: Module) -> dict[str, str]:
    """``IterableDataset`` classes of ``mod`` that keep one rank's share, with why."""
    found: dict[str, str] = {}
    classes = [n for n in ast.walk(mod.tree) if isinstance(n, ast.ClassDef)]
    for cls in classes:
        if not any((dotted(b) or "").endswith("IterableDataset") for b in cls.bases):
            continue
        if _names_node_split(cls):
            found[cls.name] = f"{cls.name} splits its shards by node (split_by_node)"
            continue
        for item in cls.body:
            if (
                isinstance(item, ast.FunctionDef)
                and item.name == "__iter__"
                and all(_reads(mod, item))
            ):
                found[cls.name] = f"{cls.name}.__iter__ keeps its rank's share"
    grown = True
    while grown:  # subclasses inherit the split
        grown = False
        for cls in classes:
            if cls.name in found:
                continue
            for base in cls.bases:
                parent = _last(base)
                if parent in found:
                    found[cls.name] = found[parent]
                    grown = True
                    break
    return found


#: How many values the walk behind one dataset reads at most.
_MAX_STEPS = 64


def _rank_share(mod: Module, data: ast.expr, classes: dict[str, str]) -> str | None:
    """Why ``data`` (a dataset handed on) already holds one rank's share; ``None`` if not seen.

    The values behind it are followed within the module: a name to what its
    function binds to it, a parameter to what the module's calls of that
    function pass, and a call of a function of the module to what it returns
    (mRNABERT's ``build_trainer(..., train_dataset)``, fed by
    ``build_local_text_streaming_datasets``, which returns the class's instances).
    """
    seen: set[tuple[int, str]] = set()
    stack: list[ast.expr] = [data]
    steps = 0
    while stack and steps < _MAX_STEPS:
        expr = stack.pop()
        steps += 1
        if cut_by_rank(mod, expr):
            return "it is cut by the rank"
        if _names_node_split(expr):
            return "webdataset's split_by_node keeps one rank's shards"
        func = mod.function_of(expr)
        bound = bindings(func or mod.tree)
        for node in ast.walk(expr):
            if isinstance(node, ast.Call) and tail(node) in classes:
                return classes[tail(node)]
            name = dotted(node) if isinstance(node, ast.Name | ast.Attribute) else None
            if name and name in classes:
                return classes[name]  # dataset_cls = FileShardDataset, then dataset_cls(...)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                for callee in mod.functions.get(node.func.id, []):
                    if (id(callee), "return") not in seen:
                        seen.add((id(callee), "return"))
                        stack.extend(
                            r.value
                            for r in ast.walk(callee)
                            if isinstance(r, ast.Return) and r.value is not None
                        )
            if name is None or (id(func), name) in seen:
                continue
            seen.add((id(func), name))
            if name in bound:
                stack.extend(bound[name])
            elif func is not None and name in parameters(func):
                stack.extend(
                    given
                    for site in mod.calls
                    if tail(site) == func.name
                    and (given := bound_argument(site, func, name)) is not None
                )
    return None


def _loaders(mod: Module, handed: ast.expr) -> list[ast.Call]:
    """The loader calls ``handed`` is (a ``DataLoader`` call or a name bound to one)."""
    if isinstance(handed, ast.Call) and tail(handed) in LOADERS:
        return [handed]
    name = dotted(handed)
    scope = mod.function_of(handed) or mod.tree
    return [
        value
        for value in bindings(scope).get(name or "", [])
        if isinstance(value, ast.Call) and tail(value) in LOADERS
    ]


def _rank_sampler(mod: Module, loader: ast.Call) -> str | None:
    """Why the loader's ``sampler=`` keeps one rank's share (a ``DistributedSampler``).

    Deep-Sick builds its evaluation loader over ``DistributedSampler(eval_dataset,
    num_replicas=accelerator.num_processes, rank=accelerator.process_index)`` and
    hands it to ``accelerator.prepare``, whose ``BatchSamplerShard`` splits each
    rank's half again (a CPU check: 32 of 64 items read on 2 processes).
    """
    given = argument(loader, "sampler")
    if given is None:
        return None
    scope = mod.function_of(loader) or mod.tree
    values = [given]
    if isinstance(given, ast.Name):
        values = list(bindings(scope).get(given.id, []))
    if values and all(
        isinstance(v, ast.Call)
        and tail(v) == "DistributedSampler"
        and not (mod.qualified(v.func) or "").startswith("fairshard.")  # FS114's
        for v in values
    ):
        return "its DistributedSampler already keeps one rank's share"
    return None


def _handed_share(mod: Module, handed: ast.expr, classes: dict[str, str]) -> str | None:
    """Why a loader handed to ``prepare`` already holds one rank's share (sampler or data)."""
    for loader in _loaders(mod, handed):
        why = _rank_sampler(mod, loader)
        data = argument(loader, "dataset", 0)
        if why is None and data is not None:
            why = _rank_share(mod, data, classes)
        if why is not None:
            return why
    return None


def _opted_out(mod: Module) -> bool:
    """The file turns accelerate's second split off (``shard_iterable_dataset=False``)."""
    return any(k.arg == _OPT_OUT for call in mod.calls for k in call.keywords)


def sharded_twice(mod: Module) -> Iterator[tuple[ast.Call, str, str]]:
    """``(call, what, why)``: a framework call handed data that holds one rank's share.

    ``call`` is ``accelerator.prepare(...)`` (a loader over the data) or a
    ``Trainer(train_dataset=...)`` of transformers or trl; ``what`` names
    the framework's split, ``why`` says how the data holds one share.
    """
    if _opted_out(mod):
        return
    classes = _self_splitting_classes(mod)
    trainers = mod.imports_any(_TRAINER_PACKAGES)
    for call in mod.calls:
        name = tail(call)
        if name == "prepare" and isinstance(call.func, ast.Attribute):
            owner = dotted(call.func.value) or ""
            if "accelerator" not in owner.lower() and not mod.imports_any(
                frozenset({"accelerate"})
            ):
                continue
            for handed in call.args:
                why = _handed_share(mod, handed, classes)
                if why is not None:
                    yield call, f"{owner}.prepare() shards the loader again", why
                    break
        elif trainers and name.endswith("Trainer"):
            for key in _TRAINER_DATASETS:
                given = argument(call, key)
                why = None if given is None else _rank_share(mod, given, classes)
                if why is not None:
                    yield call, f"{name} shards its {key} again (through accelerate)", why
                    break
