"""Lint rules about samplers and seeds: epochs, shuffling, seeding and RNG.

Rules FS101, FS104, FS105, FS107 and FS108: how a script builds and drives
its samplers (``set_epoch`` in the epoch loop, one seed for every rank,
private generators, weighting and shuffling). Each rule reads the syntax tree
(never runs the script) and yields ``(node, message)`` pairs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .names import (
    Module,
    argument,
    calls,
    dotted,
    is_constant,
    loader_shuffles,
    mentions_rank,
    tail,
)
from .registry import rule

__all__: list[str] = []

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_EVAL_WORDS = ("eval", "val", "test", "valid", "infer", "predict")


def _is_distributed_sampler(mod: Module, call: ast.Call) -> bool:
    name = tail(call)
    qualified = mod.qualified(call.func) or ""
    return (name == "DistributedSampler" or qualified.startswith("fairshard.")) and (
        name.endswith("Sampler") and "Eval" not in name
    )


def _needs_set_epoch(mod: Module, call: ast.Call) -> bool:
    """A shuffling distributed sampler that does not advance its epoch by itself."""
    return (
        _is_distributed_sampler(mod, call)
        and not is_constant(argument(call, "auto_epoch"), True)
        and not is_constant(argument(call, "shuffle", 3), False)
    )


def _target_names(mod: Module, node: ast.AST) -> list[str]:
    parent = mod.parents.get(node)
    if isinstance(parent, ast.Assign):
        return [n for t in parent.targets if (n := dotted(t))]
    if isinstance(parent, ast.AnnAssign | ast.NamedExpr) and (n := dotted(parent.target)):
        return [n]
    return []


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(
        dotted(sub) in names for sub in ast.walk(node) if isinstance(sub, ast.Name | ast.Attribute)
    )


@rule(
    "FS101",
    "set-epoch-missing",
    "a distributed sampler is iterated across epochs without set_epoch in the loop, so every "
    "epoch repeats the same order",
    "call sampler.set_epoch(epoch) at the top of the epoch loop, before iterating the loader "
    "(or build a fairshard sampler with auto_epoch=True)",
)
def _set_epoch_missing(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    samplers: set[str] = set()
    inline_loaders: set[str] = set()
    for call in calls(mod.tree):
        if _needs_set_epoch(mod, call):
            samplers.update(_target_names(mod, call))
    for call in calls(mod.tree):
        if tail(call) != "DataLoader":
            continue
        for key, pos in (("sampler", 3), ("batch_sampler", 4)):
            value = argument(call, key, pos)
            if value is None:
                continue
            inline = isinstance(value, ast.Call) and _needs_set_epoch(mod, value)
            if inline or _mentions(value, samplers):
                inline_loaders.update(_target_names(mod, call))
    iterables = samplers | inline_loaders
    if not iterables:
        return
    helpers = {
        f.name
        for f in ast.walk(mod.tree)
        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(tail(c) == "set_epoch" for c in calls(f))
    }
    reported: set[ast.AST] = set()
    for loop in ast.walk(mod.tree):
        if not isinstance(loop, ast.For | ast.AsyncFor) or not _mentions(loop.iter, iterables):
            continue
        outer = next((a for a in mod.ancestors(loop) if isinstance(a, _LOOPS)), None)
        if outer is None or outer in reported:
            continue
        inside = calls(outer)
        if any(tail(c) == "set_epoch" or tail(c) in helpers for c in inside):
            continue
        reported.add(outer)
        what = dotted(loop.iter) or ast.unparse(loop.iter)
        yield (
            outer,
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
    all_calls = calls(mod.tree)
    for call in all_calls:
        name = tail(call)
        if name.endswith("Sampler"):
            seed = argument(call, "seed", 4 if name == "DistributedSampler" else None)
            if seed is not None and mentions_rank(seed):
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
        if is_global and call.args and mentions_rank(call.args[0]):
            later = [
                c
                for c in all_calls
                if (c.lineno, c.col_offset) > (call.lineno, call.col_offset)
                and (
                    tail(c) in _GLOBAL_RNG_SAMPLERS
                    or (tail(c) == "DataLoader" and loader_shuffles(c))
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


@rule(
    "FS105",
    "global-rng-in-sampler",
    "a Sampler subclass draws from module-level RNG (random.*, np.random.*, torch.randperm "
    "without generator=): its order depends on whatever else consumed that RNG in the "
    "process, so ranks disagree and runs do not reproduce",
    "derive a private generator from (seed, epoch): np.random.default_rng([seed, epoch]) or "
    "torch.Generator().manual_seed(...), and pass it explicitly",
)
def _global_rng_in_sampler(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    for cls in ast.walk(mod.tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        if not any((dotted(b) or "").endswith("Sampler") for b in cls.bases):
            continue
        for call in calls(cls):
            name = _global_rng(mod, call)
            if name is not None:
                yield (
                    call,
                    (
                        f"{name}() in Sampler subclass {cls.name} uses module-level RNG: ranks and "
                        "runs disagree; use a generator seeded from (seed, epoch)"
                    ),
                )


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
    for call in calls(mod.tree):
        if tail(call) == "WeightedRandomSampler" and is_constant(
            argument(call, "replacement", 2), False
        ):
            yield (
                call,
                (
                    "WeightedRandomSampler(replacement=False) draws every index at most once: "
                    "the weights reorder the data but do not rebalance it; use replacement=True"
                ),
            )


def _in_eval_context(mod: Module, call: ast.Call) -> bool:
    names = _target_names(mod, call)
    for ancestor in mod.ancestors(call):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef):
            names.append(ancestor.name)
        if isinstance(ancestor, ast.Call) and tail(ancestor) == "DataLoader":
            names.extend(_target_names(mod, ancestor))
    return any(word in name.lower() for name in names for word in _EVAL_WORDS)


@rule(
    "FS108",
    "unshuffled-training-sampler",
    "DistributedSampler(shuffle=False) in a training script: rank r always gets indices "
    "r, r+W, ... in dataset order, so data sorted by class puts whole classes on one rank "
    "and every epoch repeats the same batches",
    "use shuffle=True for training (keep shuffle=False, or DistributedEvalSampler, for "
    "evaluation loaders)",
)
def _unshuffled_training_sampler(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    all_calls = calls(mod.tree)
    if not any(tail(c) == "backward" for c in all_calls):
        return
    for call in all_calls:
        if tail(call) != "DistributedSampler" or not is_constant(
            argument(call, "shuffle", 3), False
        ):
            continue
        if _in_eval_context(mod, call):
            continue
        yield (
            call,
            (
                "DistributedSampler(shuffle=False) in a training script: ranks see fixed, "
                "dataset-ordered slices every epoch; use shuffle=True (evaluation loaders may "
                "keep shuffle=False)"
            ),
        )
