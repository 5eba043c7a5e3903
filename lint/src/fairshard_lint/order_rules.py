"""Lint rules about the order samples come in: weighting and shuffling.

Rules FS107 and FS108: ``WeightedRandomSampler(replacement=False)`` that
cannot rebalance, and an unshuffled ``DistributedSampler`` in training. Each
rule reads the syntax tree (never runs the script) and yields
``(node, message)`` pairs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .context import in_eval_context, is_sampler_class, loaders_over, stored_for_evaluation
from .flow import flow_of, parameters
from .names import Module, argument, dotted, is_constant, tail
from .rulebook import rule

__all__: list[str] = []


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


def _preshuffled(mod: Module) -> bool:
    """The script shuffles its data itself, outside any Sampler class, or has a helper do it.

    NoisySumm's ``run_seq2seq.py`` (UniLM's s2s-ft) loads its features with
    ``utils.load_and_cache_examples(..., shuffle=True)``, whose body runs
    ``random.shuffle(features)`` under ``if shuffle:``: the data is shuffled
    before the ``DistributedSampler(shuffle=False)`` reads it.
    """
    for call in mod.calls:
        if tail(call) in _PRESHUFFLE and not any(is_sampler_class(a) for a in mod.ancestors(call)):
            return True
        if is_constant(argument(call, "shuffle"), True) and _shuffling_helper(mod, call):
            return True
    return False


def _shuffling_helper(mod: Module, call: ast.Call) -> bool:
    """``call`` resolves to a function of the tree that takes ``shuffle`` and shuffles."""
    project = mod.cache.get("project")
    if project is None:
        return False
    where = project.resolve(mod.cache["module_name"], call)
    if where is None:
        return False
    owner = project.modules[where[0]]
    return any(
        "shuffle" in parameters(func)
        and any(isinstance(c, ast.Call) and tail(c) in _PRESHUFFLE for c in ast.walk(func))
        for func in owner.functions.get(where[1], [])
    )


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
        if in_eval_context(mod, call) or stored_for_evaluation(mod, call):
            continue
        if _one_batch_of_everything(mod, call):
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


def _one_batch_of_everything(mod: Module, sampler: ast.Call) -> bool:
    """Every loader over ``sampler`` takes its whole dataset as one batch.

    NOTE (the class): ``DataLoader(t, batch_size=t.shape[0],
    sampler=DistributedSampler(t, shuffle=False))`` built for each batch of
    another loader splits that batch between the ranks: each rank gets its
    strided part as one batch, the order inside it changes nothing, and the
    outer loader decides what each step holds. No batch repeats across
    epochs and none is single-class by the order.
    """
    data = argument(sampler, "dataset", 0)
    name = dotted(data) if data is not None else None
    loaders = loaders_over(mod, sampler)
    return (
        name is not None
        and bool(loaders)
        and all(_size_of(argument(loader, "batch_size", 1), name) for loader in loaders)
    )


def _size_of(value: ast.expr | None, name: str) -> bool:
    """``value`` is the length of ``name``: ``len(x)``, ``x.shape[0]``, ``x.size(0)``."""
    if isinstance(value, ast.Call):
        if tail(value) == "len" and len(value.args) == 1:
            return dotted(value.args[0]) == name
        if (
            isinstance(value.func, ast.Attribute)
            and value.func.attr == "size"
            and dotted(value.func.value) == name
            and len(value.args) == 1
        ):
            return _zero(value.args[0])
        return False
    return (
        isinstance(value, ast.Subscript)
        and isinstance(value.value, ast.Attribute)
        and value.value.attr == "shape"
        and dotted(value.value.value) == name
        and _zero(value.slice)
    )


def _zero(node: ast.AST) -> bool:
    """The literal integer 0."""
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0
