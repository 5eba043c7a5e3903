"""Is an evaluation combined across ranks, or does each rank score its own share (FS109)?

Padding repeats samples across ranks, never within one: positions past the
dataset's length go to ranks ``n % W`` and up, one each, so no rank's own
share holds a sample twice. An evaluation that never combines its ranks (no
collective, no per-rank file for a later merge; each rank, often rank 0
alone, reports a metric of its own share) is not corrupted by the padding.
It scores a part of the set, which is another matter; FS109 is about counts
that the repeats enter.
"""

from __future__ import annotations

import ast

from .consumers import (
    Reader,
    block_of,
    carrying_names,
    consumer_sites,
    defs_of,
    readers,
    wrapped_names,
)
from .context import target_names
from .names import Module, dotted, mentions_rank, name_words, tail
from .positions import WHOLE, returned_at

__all__ = ["combining", "own_shares_only"]

#: Words of calls that combine values across ranks: torch.distributed's
#: collectives, and wrappers (``reduce_tensor``, ``synchronize_between_processes``,
#: ``accelerator.gather_for_metrics``, a torchmetrics ``compute``).
_COMBINE_WORDS = frozenset(
    {"reduce", "allreduce", "gather", "allgather", "sync", "synchronize"}
    | {"broadcast", "scatter", "alltoall"}
)
#: Words of calls that convert a model's layers (``convert_sync_batchnorm``), not values.
_MODEL_WORDS = frozenset({"batchnorm", "bn", "norm"})
#: A metric object's own ``compute()`` syncs its states (torchmetrics); a function named
#: ``compute_ssim`` or ``compute_psnr`` scores the values it is given, on this rank.
_METRIC_COMPUTE = "compute"
#: Calls that write results out, for a merge that may read every rank's file.
_WRITES = frozenset({"write", "writelines", "save", "dump", "savez", "savetxt", "to_csv"})


#: A project's helper named for merging across the processes (``merge_distributed``,
#: ``collect_across_ranks``, ``concat_all``) combines too, even where the linter does
#: not read its body.
_MERGE_WORDS = frozenset({"merge", "collect", "concat", "cat", "join"})
_ACROSS_WORDS = frozenset({"distributed", "dist", "ranks", "world", "all", "processes"})


#: Calls named so that wait and carry nothing: ``synchronize()`` (a barrier helper,
#: ``torch.cuda.synchronize()``) combines no value when it is given none.
_WAITS = frozenset({"synchronize", "sync"})


def combining(call: ast.Call) -> bool:
    """``call`` combines values across ranks (a collective, or a helper named for one).

    ``AllReduce.apply(x)`` (an autograd ``Function`` that all-reduces) is read
    by the name of the function class it applies.
    """
    name = tail(call)
    if name in _WAITS and not call.args and not call.keywords:
        return False
    if name[:1].isupper():
        return False  # a class built (ReduceLROnPlateau, SyncBatchNorm): no values combined
    if name == "apply" and isinstance(call.func, ast.Attribute):
        name = (dotted(call.func.value) or "").rpartition(".")[2]
    if name == _METRIC_COMPUTE:
        return isinstance(call.func, ast.Attribute)
    words = set(name_words(name))
    if words & _MODEL_WORDS:
        return False  # nn.SyncBatchNorm.convert_sync_batchnorm(model): a model converted
    return bool(words & _COMBINE_WORDS) or bool(words & _MERGE_WORDS and words & _ACROSS_WORDS)


def _combines_what_it_reads(reader: Reader) -> bool:
    """The reader combines across ranks what its loops over the loader compute.

    NOTE (the class): a training function that validates too all-reduces its
    training loss (``dist.all_reduce(epoch_train_loss)``) while each rank keeps
    its own validation sums; the combine is not the evaluation's. What the
    loops over the loader store or update (``total_val_loss += ...``,
    ``metric_logger.update(...)``, ``preds.append(...)``, the object the loop
    iterates through, ``metric_logger.log_every(loader)``) is followed through
    the function's assignments; a combining call that reads any of it, or one
    inside such a loop, combines the evaluation. Where the function has no
    loop over the loader (it hands it on), any combine in it counts.
    """
    func = reader.function
    names = wrapped_names(reader.module, set(reader.names), func) if reader.names else set()
    loops = [
        node
        for node in ast.walk(func)
        if isinstance(node, ast.For | ast.AsyncFor)
        and any(dotted(n) in names for n in ast.walk(node.iter))
    ]
    if not loops:
        return _combines(reader.module, func)
    derived = _loop_values(loops)
    # what follows the first loop over the loader: a training loop above it may reuse
    # its names (for x, y in train_loader) without touching what it computes
    start = min(loop.lineno for loop in loops)
    assigns = [
        n for n in ast.walk(func) if isinstance(n, ast.Assign | ast.AugAssign) and n.lineno >= start
    ]
    every_loop = [
        n for n in ast.walk(func) if isinstance(n, ast.For | ast.AsyncFor) and n.lineno >= start
    ]
    for _ in range(6):
        before = len(derived)
        for node in assigns:
            if _reads_any(node.value, derived):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                derived.update(n for t in targets for sub in ast.walk(t) if (n := dotted(sub)))
        for loop in every_loop:  # for batch in image_preload: a loop over what was kept
            if loop not in loops and _reads_any(loop.iter, derived):
                loops.append(loop)
                derived |= _loop_values([loop])
        if len(derived) == before:
            break
    inside = {id(n) for loop in loops for n in ast.walk(loop)}
    for call in (n for n in ast.walk(func) if isinstance(n, ast.Call) and n.lineno >= start):
        if (id(call) in inside or _reads_any(call, derived)) and _combining_here(
            reader.module, call, func
        ):
            return True
    return False


def _loop_values(loops: list[ast.For | ast.AsyncFor]) -> set[str]:
    """Names the loops over the loader store to or update, and what they iterate through."""
    out: set[str] = set()
    for loop in loops:
        out.update(n for sub in ast.walk(loop.target) if (n := dotted(sub)))
        if isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Attribute):
            receiver = dotted(loop.iter.func.value)
            if receiver:
                out.add(receiver)  # metric_logger.log_every(loader): the logger holds the values
        for node in ast.walk(loop):
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                out.update(n for t in targets for sub in ast.walk(t) if (n := dotted(sub)))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                receiver = dotted(node.func.value)
                if receiver and receiver != "self":
                    out.add(receiver)  # preds.append(...), metric.update(...)
    return out


def _reads_any(node: ast.AST, names: set[str]) -> bool:
    """``node`` reads one of ``names`` (or an attribute or item of one)."""
    for sub in ast.walk(node):
        name = dotted(sub) if isinstance(sub, ast.Name | ast.Attribute) else None
        if name is not None and (name in names or any(name.startswith(f"{n}.") for n in names)):
            return True
    return False


def _combines(mod: Module, scope: ast.AST, depth: int = 2) -> bool:
    """A call in ``scope`` combines across ranks, itself or through the tree's functions."""
    for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call)):
        if combining(call):
            return True
        if depth > 1:
            found = defs_of(mod, call)
            if found is not None and any(
                d is not scope and _combines(found[0], d, depth - 1) for d in found[1]
            ):
                return True
    return False


#: What a write saves that is no result for a later merge: the model's weights.
_WEIGHT_WORDS = frozenset({"model", "net", "checkpoint", "ckpt", "weights", "optimizer"})
#: Receivers of ``.save`` that are pictures of the outputs, not results.
_PICTURE_WORDS = frozenset({"image", "img", "fromarray", "figure", "fig", "grid", "plot"})
_PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".mp4")


def _writes(scope: ast.AST) -> bool:
    """``scope`` writes results out (a file a later merge may read), not weights or pictures.

    ``torch.save(model.state_dict(), "best_model.pth")`` saves a checkpoint and
    ``Image.fromarray(pred).save(path)`` a picture of one output: neither is a
    per-rank result for a merge, so a padded evaluation around them that
    combines nothing still scores each rank's own share.
    """
    return any(isinstance(n, ast.Call) and _result_write(n) for n in ast.walk(scope))


def _result_write(call: ast.Call) -> bool:
    if tail(call) not in _WRITES:
        return False
    if isinstance(call.func, ast.Attribute):
        receiver = set(name_words(ast.unparse(call.func.value)))
        if receiver & _PICTURE_WORDS:
            return False
    if any(
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.lower().endswith(_PICTURE_SUFFIXES)
        for arg in call.args
        for node in ast.walk(arg)
    ):
        return False  # mask.save(os.path.join(outdir, name + ".png")): a picture
    saved = call.args[0] if call.args and tail(call) == "save" else None
    if isinstance(saved, ast.Call) and tail(saved) == "state_dict":
        return False  # torch.save(model.state_dict(), path)
    if isinstance(saved, ast.Name | ast.Attribute):
        return not set(name_words(dotted(saved) or "")) & _WEIGHT_WORDS  # torch.save(model, path)
    return True


def _results_combined(mod: Module, call: ast.Call) -> bool:
    """What ``call`` returns is combined across ranks in the statements beside it."""
    results = set(target_names(mod, call))
    if not results:
        return False
    for stmt in block_of(mod, call):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and _combining_here(mod, node):
                read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                if read & results:
                    return True
    return False


def _combining_here(mod: Module, call: ast.Call, within: ast.AST | None = None) -> bool:
    """``call`` combines across ranks by its name, or is a function of the tree that does.

    ``collect(acc_sum, device, mode="sum")``, a helper whose body all-reduces:
    its name says nothing, its definition does. A call of ``within`` itself (a
    recursion) is not read again.
    """
    if combining(call):
        return True
    found = defs_of(mod, call)
    return found is not None and any(
        d is not within and _combines(found[0], d, 1) for d in found[1]
    )


def _callers_combine(mod: Module, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A caller of ``func`` combines what it returns (one level up, in the tree or the file)."""
    project = mod.cache.get("project")
    if project is not None:
        sites = project.call_sites(mod.cache["module_name"], func.name)
        return any(_results_combined(project.modules[owner], c) for owner, c in sites)
    return any(
        tail(c) == func.name and _results_combined(mod, c)
        for c in mod.calls
        if isinstance(c.func, ast.Name)
    )


#: Names of tests and helpers that hold on the first process only.
_MAIN_WORDS = frozenset({"main", "master", "primary", "chief"})


def _rank_zero_test(test: ast.expr) -> bool:
    """``test`` holds on rank 0 only: ``rank == 0``, ``local_rank is 0``, ``is_main_process()``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_rank_zero_test(v) for v in test.values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if isinstance(test.ops[0], ast.Eq | ast.Is):
            for value, other in ((left, right), (right, left)):
                if (
                    isinstance(value, ast.Constant)
                    and value.value == 0
                    and value.value is not False
                ):
                    return mentions_rank(other)
        return False
    target = test.func if isinstance(test, ast.Call) and not test.args else test
    if isinstance(target, ast.Name | ast.Attribute):
        words = set(name_words((dotted(target) or "").rpartition(".")[2]))
        return bool(words & _MAIN_WORDS) and not words & {"not", "non"}
    return False


def rank_zero_only(mod: Module, node: ast.AST) -> bool:
    """``node`` runs on rank 0 alone: it sits in the body of an ``if`` that holds only there.

    NOTE (the class): a collective inside such a block would hang the other
    ranks, so what it computes is rank 0's own; and a padded sampler's repeats
    sit at positions ``n`` and up, which go to ranks ``n % W`` to ``W - 1``:
    rank 0's share holds none.
    """
    child = node
    for ancestor in mod.ancestors(node):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return False
        if (
            isinstance(ancestor, ast.If)
            and child in ancestor.body
            and _rank_zero_test(ancestor.test)
        ):
            return True
        child = ancestor
    return False


def own_shares_only(mod: Module, sampler: ast.Call) -> bool:
    """Every use of ``sampler``'s loader is an evaluation that never combines its ranks.

    Each place the loader goes is followed to the function that iterates it
    (see :func:`consumers.readers`); that function must call no collective
    (directly or through the tree's functions, two calls deep) and write no
    results out, and no call on the way may have its result combined beside
    it. Where the function that builds it hands it back (``return
    train_loader, DataLoader(val_set, sampler=val_sampler)``), the tree's call
    sites are read the same way, by the names at the position it lands in,
    up to two returns up. Any use that cannot be followed keeps the finding.
    """
    return _own_from(mod, sampler, carrying_names(mod, sampler), 2)


def _own_from(mod: Module, origin: ast.Call, names: set[str], depth: int) -> bool:
    sites = consumer_sites(mod, names)
    func = mod.function_of(origin)
    escapes = func is not None and bool(returned_at(func, origin))
    if not sites and not escapes:
        return False
    if sites and not _read_as_own_shares(mod, sites, names):
        return False
    if not escapes:
        return True
    handed = _handed_back(mod, origin) if depth > 0 else []
    return bool(handed) and all(
        _own_from(site_mod, site, carrying_names(site_mod, site, given), depth - 1)
        for site_mod, site, given in handed
    )


def _read_as_own_shares(mod: Module, sites: list[ast.AST], names: set[str]) -> bool:
    for site in sites:
        if rank_zero_only(mod, site):
            continue  # read on rank 0 alone: its share holds no repeat, nothing is combined
        found = readers(mod, site, names)
        if not found:
            return False
        for reader in found:
            if _combines_what_it_reads(reader) or _writes(reader.function):
                return False
            if any(_results_combined(m, c) for m, c in reader.path):
                return False
            if not reader.path and _callers_combine(reader.module, reader.function):
                return False
        outer = mod.function_of(site)
        if isinstance(site, ast.Call) and outer is not None and _callers_combine(mod, outer):
            return False
    return True


def _handed_back(mod: Module, sampler: ast.Call) -> list[tuple[Module, ast.Call, set[str]]]:
    """The tree's call sites of the function that returns ``sampler``'s loader, with its names.

    ``train_dl, val_dl, test_dl = create_dataloaders(...)``: the names at the
    positions the sampler's loader takes in the returned tuple; ``loader =
    build(...)`` where it is returned whole. Empty where any site cannot be
    read (no assignment, a tuple kept whole, a starred target): the finding stays.
    """
    project = mod.cache.get("project")
    func = mod.function_of(sampler)
    if project is None or func is None:
        return []
    positions = returned_at(func, sampler)
    sites = project.call_sites(mod.cache["module_name"], func.name)
    if not positions or not sites:
        return []
    out: list[tuple[Module, ast.Call, set[str]]] = []
    for owner, site in sites:
        site_mod = project.modules[owner]
        parent = site_mod.parents.get(site)
        if not isinstance(parent, ast.Assign) or len(parent.targets) != 1:
            return []
        target = parent.targets[0]
        if isinstance(target, ast.Tuple | ast.List):
            elements = target.elts
            if WHOLE in positions or any(isinstance(e, ast.Starred) for e in elements):
                return []
            given = {dotted(elements[i]) for i in positions if i < len(elements)}
        elif positions == {WHOLE}:
            given = {dotted(target)}
        else:
            return []
        named = {n for n in given if n}
        if not named:
            return []
        out.append((site_mod, site, named))
    return out
