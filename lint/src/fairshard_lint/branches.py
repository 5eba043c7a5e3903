"""Which side of an ``if`` a call sits on, and what the test means: one process, training.

Training scripts branch on being distributed (``if args.distributed: ...
else: RandomSampler(ds)``) and helpers branch on being for training
(``if is_train: ... else: DistributedSampler(ds, shuffle=False)``). A rule
that reads a call in such a branch must know which case the branch is: the
``else`` of a distributed test never runs on several processes, the ``else``
of a training test builds the evaluation loader.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .names import Module, argument, dotted, env_key, is_train_name, name_words, tail

__all__ = [
    "follows_an_exiting_if",
    "several_process_branch",
    "single_process_branch",
    "single_process_function",
    "spawning_parent",
    "train_branch",
]

#: Words of a test that asks whether the script runs on several processes.
_WORLD_WORDS = frozenset(
    {
        "distributed",
        "ddp",
        "world",
        "multi",
        "gpus",
        "ngpus",
        "replicas",
        "tasks",
        "initialized",
        "nprocs",
    }
)
_WORLD_CALLS = frozenset({"is_initialized", "get_world_size", "is_dist_avail_and_initialized"})


def _words(test: ast.AST) -> set[str]:
    words: set[str] = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Name):
            words.update(name_words(node.id))
        elif isinstance(node, ast.Attribute):
            words.update(name_words(node.attr))
    return words


def _minus_one_rank(test: ast.AST) -> bool:
    """``args.local_rank == -1`` (or ``!=``): the older transformers examples' "not distributed"."""
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq | ast.NotEq)
        and _number(test.comparators[0]) == -1.0
        and "rank" in _words(test.left)
    )


#: Variables a distributed launcher (torchrun, ``torch.distributed.launch``,
#: accelerate, deepspeed) sets in every process it starts, and a plain run lacks.
_LAUNCHER_ENV = frozenset(
    {"LOCAL_RANK", "RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}
)


def _launcher_env(test: ast.AST) -> bool | None:
    """Whether the test holds when a launcher started the process; ``None``: another test.

    ``"LOCAL_RANK" in os.environ``: ``True``; ``"LOCAL_RANK" not in os.environ``
    and ``os.getenv("RANK") is None``: ``False``.

    llm-embed pins ``CUDA_VISIBLE_DEVICES="0"`` under ``if 'LOCAL_RANK' not in
    os.environ:``, a plain run's single GPU: no launched rank takes that arm.
    """
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if (
        isinstance(op, ast.In | ast.NotIn)
        and isinstance(left, ast.Constant)
        and left.value in _LAUNCHER_ENV
        and (dotted(right) or "").endswith("environ")
    ):
        return isinstance(op, ast.In)
    if (
        isinstance(op, ast.Is | ast.IsNot)
        and isinstance(right, ast.Constant)
        and right.value is None
        and env_key(left) in _LAUNCHER_ENV
    ):
        return isinstance(op, ast.IsNot)
    return None


def _asks_world(test: ast.AST) -> bool:
    if _words(test) & _WORLD_WORDS or _minus_one_rank(test) or _launcher_env(test) is not None:
        return True
    return any(isinstance(n, ast.Call) and tail(n) in _WORLD_CALLS for n in ast.walk(test))


def _number(node: ast.AST) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    return None


def _distributed_when_true(test: ast.AST) -> bool | None:
    """``True``: the test holds on several processes; ``False``: on one; ``None``: unclear."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _distributed_when_true(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        sides = {_distributed_when_true(v) for v in test.values if _asks_world(v)}
        return sides.pop() if len(sides) == 1 else None
    launched = _launcher_env(test)
    if launched is not None:
        return launched
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, right = test.ops[0], test.comparators[0]
        value = _number(right)
        if isinstance(op, ast.Is | ast.IsNot) and isinstance(right, ast.Constant):
            return isinstance(op, ast.IsNot)  # `local_rank is None`: one process
        if value is not None:
            # local_rank == -1, world_size == 1, world_size < 2, world_size <= 1: one process
            single = {
                ast.Eq: value in (-1.0, 1.0, 0.0),
                ast.NotEq: value not in (-1.0, 1.0, 0.0),
                ast.Lt: value <= 2.0,
                ast.LtE: value <= 1.0,
                ast.Gt: False,
                ast.GtE: False,
            }.get(type(op))
            return None if single is None else not single
        return None
    return True if _asks_world(test) else None


def _side(mod: Module, node: ast.AST, branch: ast.If | ast.IfExp) -> bool | None:
    """``True`` when ``node`` is in the branch's body, ``False`` in its ``else``."""
    child = node
    for ancestor in mod.ancestors(node):
        if ancestor is branch:
            break
        child = ancestor
    if isinstance(branch, ast.IfExp):
        return True if child is branch.body else False if child is branch.orelse else None
    if child in branch.body:
        return True
    if child in branch.orelse:
        return False
    return None  # the test itself


def single_process_branch(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a branch that runs only without a process group.

    ``else`` of ``if args.distributed:``, body of ``if args.local_rank == -1:``,
    ``RandomSampler(ds) if world_size == 1 else ...``.
    """
    child: ast.AST = node
    for ancestor in mod.ancestors(node):
        if isinstance(ancestor, ast.If | ast.IfExp) and isinstance(ancestor.test, ast.Constant):
            # `if True:  # args.distributed` -- the other branch never runs at all
            side = _side(mod, node, ancestor)
            if side is not None and side != bool(ancestor.test.value):
                return True
        if isinstance(ancestor, ast.If | ast.IfExp) and _asks_world(ancestor.test):
            when = _distributed_when_true(ancestor.test)
            side = _side(mod, node, ancestor)
            if when is not None and side is not None and when != side:
                return True
        if _after_a_distributed_return(ancestor, child):
            return True
        child = ancestor
    return False


def _after_a_distributed_return(block: ast.AST, child: ast.AST) -> bool:
    """``child`` follows ``if dist.is_initialized(): return ...`` in the same block.

    The ``if`` arm leaves the function whenever a process group exists, so
    what follows it runs only without one (an ``else`` written by leaving).
    """
    return follows_an_exiting_if(
        block,
        child,
        lambda branch: _asks_world(branch.test) and _distributed_when_true(branch.test) is True,
    )


def follows_an_exiting_if(block: ast.AST, child: ast.AST, holds: Callable[[ast.If], bool]) -> bool:
    """``child`` follows, in ``block``'s statements, an ``if`` that ``holds`` whose arm leaves.

    An arm that ends in ``return`` or ``raise``: what follows the ``if`` runs
    only when its test fails, as an ``else`` would.
    """
    for field in ("body", "orelse", "finalbody"):
        statements = getattr(block, field, None)
        if not isinstance(statements, list) or child not in statements:
            continue
        for earlier in statements[: statements.index(child)]:
            if (
                isinstance(earlier, ast.If)
                and bool(earlier.body)
                and isinstance(earlier.body[-1], ast.Return | ast.Raise)
                and holds(earlier)
            ):
                return True
    return False


def several_process_branch(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a branch that runs only with several processes.

    The other arm of :func:`single_process_branch`: ``DistributedSampler(ds)``
    in the ``else`` of ``if args.local_rank == -1:`` (the older transformers
    examples), in ``... if args.distributed else RandomSampler(ds)``.
    """
    for ancestor in mod.ancestors(node):
        if isinstance(ancestor, ast.If | ast.IfExp) and _asks_world(ancestor.test):
            when = _distributed_when_true(ancestor.test)
            side = _side(mod, node, ancestor)
            if when is not None and side is not None and when == side:
                return True
    return False


def _asks_train(test: ast.AST) -> bool | None:
    """``True``: ``is_train``, ``split == "train"``; ``False``: ``not train``; else ``None``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _asks_train(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        right = test.comparators[0]
        if (
            isinstance(right, ast.Constant)
            and isinstance(right.value, str)
            and right.value.lower() in ("train", "training")
        ):
            return isinstance(test.ops[0], ast.Eq)
        return None
    name = dotted(test)
    if name is not None and is_train_name(name.rpartition(".")[2]):
        return True
    if isinstance(test, ast.Call) and is_train_name(tail(test)):
        return True
    return None


def train_branch(mod: Module, node: ast.AST) -> bool | None:
    """Whether the innermost ``if`` on training puts ``node`` in its training branch.

    ``True`` in the body of ``if is_train:`` (or ``x if train else y``),
    ``False`` in its ``else``, ``None`` when no ``if`` tests training.
    """
    for ancestor in mod.ancestors(node):
        if isinstance(ancestor, ast.If | ast.IfExp):
            asks = _asks_train(ancestor.test)
            side = _side(mod, node, ancestor)
            if asks is not None and side is not None:
                return asks == side
    return None


#: Calls that start worker processes running a function of the script.
_SPAWNS = frozenset({"spawn", "start_processes"})


def spawning_parent(mod: Module, node: ast.AST) -> bool:
    """``node`` runs in the parent process of a script that spawns its ranks.

    GrainGraphNN's ``__main__`` block builds a loader to warm the model up,
    then ``mp.spawn(dist_train, ...)``: the block runs once, in the parent,
    and only ``dist_train`` runs on every rank. ``node`` must share its scope
    (the module's top level, or a function) with a ``spawn`` whose target is
    another function of the module.
    """
    scope = mod.function_of(node)
    for call in mod.calls:
        if tail(call) not in _SPAWNS or mod.function_of(call) is not scope:
            continue
        target = argument(call, "fn", 0)
        if (
            isinstance(target, ast.Name)
            and target.id in mod.functions
            and (scope is None or scope.name != target.id)
        ):
            return True
    return False


def single_process_function(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a top-level function that its module calls only where one process runs.

    MolPLA's ``pretrain_ddp.py`` calls ``run_single_fold_multi_gpu`` under ``if
    ngpus_per_node > 1:`` and ``run_single_fold_single_gpu`` in the ``else``:
    the second's ``SubsetRandomSampler`` loaders never meet a second
    process. Every use of the function's name in the module is a plain call
    in a branch that runs only without a process group (see
    :func:`single_process_branch`); a name handed on (``mp.spawn(fn, ...)``)
    or named by another module of the tree keeps the function.
    """
    func = next(
        (
            a
            for a in [node, *mod.ancestors(node)]
            if isinstance(a, ast.FunctionDef | ast.AsyncFunctionDef) and a in mod.tree.body
        ),
        None,
    )
    if func is None or func.decorator_list:
        return False
    uses = [n for n in mod.nodes if isinstance(n, ast.Name) and n.id == func.name]
    sites = [c for c in mod.calls if isinstance(c.func, ast.Name) and c.func.id == func.name]
    if not sites or len(uses) != len(sites):
        return False
    project = mod.cache.get("project")
    others = getattr(project, "modules", {}).values() if project is not None else ()
    if any(
        other is not mod and func.name in other.identifiers and func.name not in other.functions
        for other in others
    ):
        return False  # named by another module (one that defines its own names its own)
    return all(single_process_branch(mod, site) for site in sites)
