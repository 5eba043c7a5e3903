"""Lint rules about samplers and seeds: epochs, shuffling, seeding and RNG.

Rules FS101, FS104, FS105, FS107 and FS108: how a script builds and drives
its samplers (``set_epoch`` in the epoch loop, one seed for every rank,
private generators, weighting and shuffling). Each rule reads the syntax tree
(never runs the script) and yields ``(node, message)`` pairs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .flow import LOADERS, flow_of, shuffles
from .names import (
    Module,
    argument,
    calls,
    dotted,
    is_constant,
    is_eval_name,
    mentions_rank,
    tail,
)
from .registry import rule

__all__: list[str] = []

_EVAL_CONTAINERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _target_names(mod: Module, node: ast.AST) -> list[str]:
    parent = mod.parents.get(node)
    if isinstance(parent, ast.Assign):
        return [n for t in parent.targets if (n := dotted(t))]
    if isinstance(parent, ast.AnnAssign | ast.NamedExpr) and (n := dotted(parent.target)):
        return [n]
    return []


def in_eval_context(mod: Module, call: ast.Call) -> bool:
    """The call builds something for evaluation, judged by the names around it.

    The variable it is assigned to, the loader it is passed to (and that
    loader's variable), the enclosing functions, and the dataset argument
    (``DistributedSampler(val_dataset)``).
    """
    names = _target_names(mod, call)
    first = argument(call, "dataset", 0)
    if first is not None and (name := dotted(first)):
        names.append(name)
    for ancestor in mod.ancestors(call):
        if isinstance(ancestor, _EVAL_CONTAINERS):
            names.append(ancestor.name)
        if isinstance(ancestor, ast.Call) and tail(ancestor) in LOADERS:
            names.extend(_target_names(mod, ancestor))
            data = argument(ancestor, "dataset", 0)
            if data is not None and (name := dotted(data)):
                names.append(name)
    return any(is_eval_name(name) for name in names)


@rule(
    "FS101",
    "set-epoch-missing",
    "a distributed sampler is iterated across epochs without set_epoch in the loop, so every "
    "epoch repeats the same order",
    "call sampler.set_epoch(epoch) at the top of the epoch loop, before iterating the loader "
    "(or build a fairshard sampler with auto_epoch=True)",
)
def _set_epoch_missing(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    for loop, what in flow_of(mod).unsynced_loops:
        yield (
            loop,
            (
                f"loop iterates {what} (a distributed sampler) every pass without set_epoch: "
                "each epoch repeats the same order; call sampler.set_epoch(epoch) first"
            ),
        )


_GLOBAL_SEEDERS = ("manual_seed", "seed")
_GLOBAL_RNG_SAMPLERS = ("RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler")


@rule(
    "FS104",
    "rank-dependent-seed",
    "a sampler's seed depends on the rank (seed=rank, seed + rank, or torch.manual_seed(rank) "
    "before a sampler that draws from the global generator): ranks shuffle differently, so "
    "their shares overlap and miss samples",
    "give every rank the same sampler seed; seed augmentation per rank separately "
    "(e.g. a per-worker generator), never the sampler",
)
def _rank_dependent_seed(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    flow = flow_of(mod)
    all_calls = mod.calls
    for call in all_calls:
        name = tail(call)
        if name.endswith("Sampler"):
            seed = argument(call, "seed", 4 if name == "DistributedSampler" else None)
            if seed is not None and mentions_rank(seed, flow.rank_names):
                yield (
                    call,
                    (
                        f"{name}(seed={ast.unparse(seed)}) depends on the rank: ranks shuffle "
                        "differently and their shares overlap; use the same seed on every rank"
                    ),
                )
        qualified = mod.qualified(call.func) or ""
        is_global = name in _GLOBAL_SEEDERS and qualified.split(".")[0] in (
            "torch",
            "random",
            "numpy",
        )
        if is_global and call.args and mentions_rank(call.args[0], flow.rank_names):
            later = [
                c
                for c in all_calls
                if (c.lineno, c.col_offset) > (call.lineno, call.col_offset)
                and (
                    (tail(c) in _GLOBAL_RNG_SAMPLERS and argument(c, "generator") is None)
                    or (tail(c) in LOADERS and shuffles(flow, c))
                )
            ]
            if later:
                yield (
                    call,
                    (
                        f"{qualified}({ast.unparse(call.args[0])}) seeds the global generator per "
                        f"rank before {tail(later[0])} (line {later[0].lineno}) draws its order "
                        "from it: every rank gets a different order; use a distributed sampler "
                        "with one shared seed"
                    ),
                )


_NUMPY_SAFE = frozenset(
    {
        "Generator",
        "SeedSequence",
        "PCG64",
        "PCG64DXSM",
        "Philox",
        "SFC64",
        "MT19937",
        "BitGenerator",
    }
)
_NUMPY_SEEDABLE = frozenset({"default_rng", "RandomState"})
_TORCH_RNG = frozenset(
    {
        "randperm",
        "rand",
        "randn",
        "randint",
        "multinomial",
        "normal",
        "bernoulli",
        "rand_like",
        "randint_like",
        "randn_like",
    }
)


def _global_rng(mod: Module, call: ast.Call) -> str | None:
    name = mod.qualified(call.func) or ""
    head, _, fn = name.rpartition(".")
    if head == "random":
        if fn in ("Random", "SystemRandom") and (call.args or call.keywords):
            return None
        return name
    if head == "numpy.random":
        if fn in _NUMPY_SAFE or (fn in _NUMPY_SEEDABLE and (call.args or call.keywords)):
            return None
        return name
    if head == "torch" and fn in _TORCH_RNG and argument(call, "generator") is None:
        return name
    return None


def _partitioned_before(cls: ast.ClassDef, call: ast.Call) -> bool:
    """An index by the rank (``x[self.rank :: n]``, ``chunks[rank]``) precedes the call.

    Shuffling a rank's own, already disjoint share with a global RNG changes
    only that rank's order, never which samples it owns. Anywhere earlier in
    the class counts: the share is often cut in ``__init__`` and shuffled in
    ``__iter__``.
    """
    return any(
        isinstance(node, ast.Subscript)
        and mentions_rank(node.slice)
        and (node.lineno, node.col_offset) < (call.lineno, call.col_offset)
        for node in ast.walk(cls)
    )


_WORLD_WORDS = ("num_replicas", "world_size", "rank")


@rule(
    "FS105",
    "global-rng-in-sampler",
    "a Sampler subclass in a distributed script draws from module-level RNG (random.*, "
    "np.random.*, torch.randperm without generator=) before splitting the data between "
    "ranks: its order depends on whatever else consumed that RNG in the process, so ranks "
    "disagree on the order and their shares overlap",
    "derive a private generator from (seed, epoch): np.random.default_rng([seed, epoch]) or "
    "torch.Generator().manual_seed(...), and pass it explicitly",
)
def _global_rng_in_sampler(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    distributed = flow_of(mod).distributed
    for cls in mod.nodes:
        if not isinstance(cls, ast.ClassDef) or not _is_sampler_class(cls):
            continue
        source_words = {
            node.attr if isinstance(node, ast.Attribute) else node.id
            for node in ast.walk(cls)
            if isinstance(node, ast.Attribute | ast.Name)
        }
        if not distributed and not any(word in source_words for word in _WORLD_WORDS):
            continue  # one process: nothing to disagree with
        for call in calls(cls):
            name = _global_rng(mod, call)
            if name is not None and not _partitioned_before(cls, call):
                yield (
                    call,
                    (
                        f"{name}() in Sampler subclass {cls.name} uses module-level RNG before "
                        "the data is split between ranks: ranks disagree on the order and "
                        "their shares overlap; use a generator seeded from (seed, epoch)"
                    ),
                )


def _whole_dataset(mod: Module, node: ast.AST | None) -> bool:
    """``num_samples`` reads as the data's size: ``len(...)``, a literal, or a name bound to one.

    Any other expression (``subset_size``, ``int(0.1 * n)``) reads as the
    deliberate weighted subset the rule's fix allows.
    """
    if node is None or isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Call) and tail(node) == "len":
        return True
    name = dotted(node)
    if name is None:
        return False
    bound = [value for names, value in flow_of(mod).bindings if name in names]
    return any(_whole_dataset(mod, value) for value in bound if value is not node)


@rule(
    "FS107",
    "weighted-without-replacement",
    "WeightedRandomSampler(replacement=False) draws each index at most once, so with "
    "num_samples=len(weights) every sample appears exactly once per epoch and the weights "
    "only change the order, not the class balance",
    "use replacement=True to rebalance (or fairshard.WeightedSampler, which also shards "
    "across ranks); keep replacement=False only to pick a weighted subset smaller than the data",
)
def _weighted_without_replacement(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    for call in mod.calls:
        if (
            tail(call) == "WeightedRandomSampler"
            and is_constant(argument(call, "replacement", 2), False)
            and _whole_dataset(mod, argument(call, "num_samples", 1))
        ):
            yield (
                call,
                (
                    "WeightedRandomSampler(replacement=False) draws every index at most once: "
                    "the weights reorder the data but do not rebalance it; use replacement=True"
                ),
            )


#: Calls that shuffle data up front (a pre-shuffled dataset may keep ``shuffle=False``).
_PRESHUFFLE = frozenset({"shuffle", "permutation", "randperm", "shuffled"})


def _is_sampler_class(node: ast.AST) -> bool:
    return isinstance(node, ast.ClassDef) and any(
        (dotted(b) or "").endswith("Sampler") for b in node.bases
    )


def _preshuffled(mod: Module) -> bool:
    """The script shuffles its data itself, outside any Sampler class."""
    for call in mod.calls:
        if tail(call) not in _PRESHUFFLE:
            continue
        if not any(_is_sampler_class(a) for a in mod.ancestors(call)):
            return True
    return False


@rule(
    "FS108",
    "unshuffled-training-sampler",
    "DistributedSampler(shuffle=False) in a training script: the strided layout still gives "
    "every rank every class, but each rank reads its indices r, r+W, ... in dataset order, "
    "so data sorted by class makes batches of a single class, and every epoch repeats the "
    "same batches in the same order",
    "use shuffle=True for training (keep shuffle=False, or DistributedEvalSampler, for "
    "evaluation loaders; data you shuffle yourself beforehand may keep shuffle=False)",
)
def _unshuffled_training_sampler(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    all_calls = mod.calls
    if not any(tail(c) == "backward" for c in all_calls) or _preshuffled(mod):
        return
    for call in all_calls:
        if tail(call) != "DistributedSampler" or not is_constant(
            argument(call, "shuffle", 3), False
        ):
            continue
        if in_eval_context(mod, call):
            continue
        yield (
            call,
            (
                "DistributedSampler(shuffle=False) in a training script: every rank reads its "
                "share in dataset order, so class-sorted data gives single-class batches and "
                "every epoch repeats the same batches; use shuffle=True (evaluation loaders may "
                "keep shuffle=False)"
            ),
        )
