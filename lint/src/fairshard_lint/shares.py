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
from typing import TYPE_CHECKING

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
from .names import (
    Module,
    dotted,
    is_train_name,
    mentions_rank,
    name_words,
    single_process_test,
    tail,
)
from .positions import WHOLE, returned_at, returned_keywords
from .rank_cuts import FILLING

if TYPE_CHECKING:
    from .flow import Function
    from .project import Project

__all__ = ["combine_seen", "combining", "evaluation_combined_near"]

#: Words of calls that combine values across ranks: torch.distributed's
#: collectives, and wrappers (``reduce_tensor``, ``synchronize_between_processes``,
#: ``accelerator.gather_for_metrics``, a torchmetrics ``compute``). A broadcast or a
#: scatter hands one rank's value to the others and combines nothing: the machine
#: translator's ``dist.broadcast(start_epoch_tensor, src=0)`` beside a loader handed to
#: a trainer whose evaluation keeps each rank's loss apart.
_COMBINE_WORDS = frozenset(
    {"reduce", "allreduce", "gather", "allgather", "sync", "synchronize", "alltoall"}
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
    if name == "gather" and _indexing_gather(call):
        return False
    words = set(name_words(name))
    if words & _MODEL_WORDS:
        return False  # nn.SyncBatchNorm.convert_sync_batchnorm(model): a model converted
    return bool(words & _COMBINE_WORDS) or bool(words & _MERGE_WORDS and words & _ACROSS_WORDS)


def _indexing_gather(call: ast.Call) -> bool:
    """``torch.gather(x, 2, index)``, ``x.gather(-1, t)``: picking along a dimension, no collective.

    GroupFree3dBaseline's ``parse_predictions`` picks each box's heading
    residual with ``torch.gather(residuals, 2, classes)``; torch.distributed's
    ``gather(tensor, gather_list, dst)`` and accelerate's ``gather(x)`` hand a
    tensor first, never a dimension, and take no ``dim=`` or ``index=``.
    """
    if any(k.arg in {"dim", "index"} for k in call.keywords):
        return True
    if dotted(call.func) == "torch.gather":
        return True
    first = call.args[0] if call.args else None
    if isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.USub):
        first = first.operand
    return (
        isinstance(call.func, ast.Attribute)
        and isinstance(first, ast.Constant)
        and isinstance(first.value, int)
        and len(call.args) >= 2
    )


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
        for node in ast.walk(loop.iter):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            receiver = dotted(node.func.value)
            if receiver and any(_reads_any(stmt, {receiver}) for stmt in loop.body):
                # metric_logger.log_every(loader) with metric_logger.update(...) in the
                # loop: the logger holds the values. One the loop never updates holds
                # only its own timers, and syncing it combines nothing the loop read
                # (Class-Agnostic-Counting's zero-shot validation).
                out.add(receiver)
        for node in (sub for stmt in [*loop.body, *loop.orelse] for sub in ast.walk(stmt)):
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


def _combining_call(mod: Module, call: ast.Call) -> bool:
    """:func:`combining`, except a ``compute()`` of a metric class of the tree that syncs nothing.

    MASTERS-WORK's ``metrics_calculator = VQAMetrics()`` then
    ``metrics_calculator.compute()``: a plain class of the tree (no
    torchmetrics ``Metric`` base) whose ``compute`` calls no collective scores
    what this rank saw. A ``compute`` the reading cannot resolve to the tree is
    still taken for a torchmetrics metric's, which syncs.
    """
    if not combining(call):
        return False
    if tail(call) != _METRIC_COMPUTE:
        return True
    found = defs_of(mod, call)
    if found is None or not found[1]:
        return True
    owner, defs = found
    return any(_metric_class(owner, d) or _combines(owner, d, 1) for d in defs)


def _metric_class(mod: Module, func: ast.AST) -> bool:
    """``func`` is a method of a class with a base named for a metric (``Metric``) or none known."""
    cls = mod.parents.get(func)
    if not isinstance(cls, ast.ClassDef):
        return True  # a plain function named compute: read as before
    return any("Metric" in (dotted(base) or "") for base in cls.bases)


def _combines(mod: Module, scope: ast.AST, depth: int = 2) -> bool:
    """A call in ``scope`` combines across ranks, itself or through the tree's functions."""
    for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call)):
        if _combining_call(mod, call):
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
#: Receivers of ``.write`` that print to the console (UniAug's ``tqdm.write(tqdm_log)``).
_CONSOLE_WORDS = frozenset({"tqdm", "stdout", "stderr", "pbar", "console"})
_PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".mp4")


def _writes(mod: Module, scope: ast.AST) -> bool:
    """``scope`` writes results out (a file a later merge may read), not weights or pictures.

    ``torch.save(model.state_dict(), "best_model.pth")`` saves a checkpoint and
    ``Image.fromarray(pred).save(path)`` a picture of one output: neither is a
    per-rank result for a merge, and neither is a write rank 0 alone makes
    (SVDD2024's ``config.json``, under ``if not args.distributed or
    args.local_rank == 0``), so a padded evaluation around them that combines
    nothing still scores each rank's own share.
    """
    return any(
        isinstance(n, ast.Call)
        and _result_write(n)
        and not rank_zero_only(mod, n)
        and not _log_write(mod, n)
        for n in ast.walk(scope)
    )


#: Words of a file's name that say it is a log: lines a person reads, not results to merge.
_LOG_WORDS = frozenset({"log", "logs"})


def _log_write(mod: Module, call: ast.Call) -> bool:
    """``f.write(...)`` into a file that every ``open`` of ``f`` names as a log.

    The ABACBS2024 workshop's ``eval_loss_file =
    f"eval_loss_log_{world_size}_{local_rank}.txt"``, appended after each
    evaluation with the rank's own average loss: a progress line per rank that
    nothing of the tree merges, and a rank's own share holds no repeat. The
    name is read from the literal parts of the path given to ``open`` (and of
    what the function binds a name in it to); any ``open`` of the handle whose
    path says nothing of a log keeps the write a result.
    """
    if tail(call) not in {"write", "writelines"} or not isinstance(call.func, ast.Attribute):
        return False
    handle = dotted(call.func.value)
    scope = mod.function_of(call) or mod.tree
    paths: list[ast.expr] = []
    for node in ast.walk(scope):
        if isinstance(node, ast.With | ast.AsyncWith):
            opened = [(i.optional_vars, i.context_expr) for i in node.items]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            opened = [(node.targets[0], node.value)]
        else:
            continue
        for target, value in opened:
            if target is None or handle is None or dotted(target) != handle:
                continue
            if not (isinstance(value, ast.Call) and tail(value) == "open" and value.args):
                return False  # the handle is bound to something else too
            paths.append(value.args[0])
    return bool(paths) and all(_names_a_log(scope, path) for path in paths)


def _names_a_log(scope: ast.AST, path: ast.expr) -> bool:
    """The literal parts of ``path`` (or of what ``scope`` binds its names to) name a log."""
    parts: list[ast.AST] = [path]
    names = {n.id for n in ast.walk(path) if isinstance(n, ast.Name)}
    parts += [
        node.value
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id in names for t in node.targets)
    ]
    words = {
        word
        for part in parts
        for n in ast.walk(part)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
        for word in name_words(n.value)
    }
    return bool(words & _LOG_WORDS)


def _result_write(call: ast.Call) -> bool:
    if tail(call) not in _WRITES:
        return False
    if isinstance(call.func, ast.Attribute):
        receiver = set(name_words(ast.unparse(call.func.value)))
        if receiver & _PICTURE_WORDS:
            return False
        if receiver & _CONSOLE_WORDS:
            return False  # tqdm.write(line), sys.stdout.write(...): a console line, no file
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
    if isinstance(saved, ast.Dict) and any(
        (isinstance(v, ast.Call) and tail(v) == "state_dict")
        or set(name_words(dotted(v) or "")) & _WEIGHT_WORDS
        for v in saved.values
    ):
        return False  # torch.save({"model": model.state_dict(), "epoch": epoch}, path)
    if isinstance(saved, ast.Name | ast.Attribute):
        return not set(name_words(dotted(saved) or "")) & _WEIGHT_WORDS  # torch.save(model, path)
    return not _saves_weights_by_keyword(call)


#: Keyword words of a checkpoint writer's arguments (``module=``, ``optimizer=``).
_CHECKPOINT_KEYWORDS = _WEIGHT_WORDS | {"module", "state", "dict", "scheduler", "schedule"}


def _saves_weights_by_keyword(call: ast.Call) -> bool:
    """``saver.save(module=module.model, optimizer=optimizer, epoch=epoch)``: a checkpoint.

    Retro-CHELSY's own checkpoint writer, called with the model and its
    optimizer by keyword in every rank: weights, not a per-rank result for a
    merge. A keyword naming the weights (or handed a name that does) says so.
    """
    return any(
        set(name_words(k.arg)) & _CHECKPOINT_KEYWORDS
        and set(name_words(dotted(k.value) or "")) & _CHECKPOINT_KEYWORDS
        for k in call.keywords
        if k.arg is not None
    )


def _results_combined(mod: Module, call: ast.Call) -> bool:
    """What ``call`` returns is combined across ranks in the statements beside it.

    Directly (``dist.all_reduce(correct)``) or through names the block builds
    from it (``metrics = torch.tensor([loss, correct, total])`` then
    ``dist.all_reduce(metrics)``; motionflow's ``all_losses.append(avg[k])``,
    ``torch.stack(all_losses)`` then ``dist.reduce(all_losses, dst=0)``).
    """
    results = set(target_names(mod, call))
    if not results:
        return False
    block = block_of(mod, call)
    for _ in range(3):
        before = len(results)
        for stmt in block:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Assign) and _reads_any(node.value, results):
                    results |= {
                        n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)
                    }
                elif (  # losses.append(result[k]): the list holds what it is given
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in FILLING
                    and isinstance(node.func.value, ast.Name)
                    and any(_reads_any(a, results) for a in node.args)
                ):
                    results.add(node.func.value.id)
        if len(results) == before:
            break
    for stmt in block:
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
    if _combining_call(mod, call):
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
    """``test`` holds on rank 0 only: ``rank == 0``, ``local_rank is 0``, ``is_main_process()``.

    Also ``args.local_rank in [-1, 0]`` (the transformers examples' test): -1 is
    a run of one process, so once distributed it holds on rank 0 alone.
    """
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_rank_zero_test(v) for v in test.values)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        # not args.distributed or args.local_rank == 0: rank 0 alone once distributed
        ranked = [v for v in test.values if _rank_zero_test(v)]
        return bool(ranked) and all(v in ranked or single_process_test(v) for v in test.values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if (
            isinstance(test.ops[0], ast.In)
            and isinstance(right, ast.List | ast.Tuple | ast.Set)
            and right.elts
            and all(isinstance(e, ast.Constant) and e.value in (-1, 0) for e in right.elts)
            and any(isinstance(e, ast.Constant) and e.value == 0 for e in right.elts)
        ):
            # local_rank in [-1, 0]: rank 0 alone once distributed (-1: one process)
            return mentions_rank(left)
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


def combine_seen(mod: Module, sampler: ast.Call) -> bool:
    """Some use of ``sampler``'s loader is followed to an evaluation that combines its ranks.

    A reader of the loader (see :func:`consumers.readers`, here in its partial
    form: the readers that can be followed) that combines what its loops over
    the loader compute (a collective, a helper of the tree that calls one, a
    metric's ``compute``), or writes per-rank results for a merge, or whose
    caller combines its result; a loader read only on rank 0 combines nothing.
    Where the function that builds the loader hands it back (``return
    train_loader, DataLoader(val_set, sampler=val_sampler)``), the tree's
    call sites are read the same way by the names at the position it lands
    in, up to two returns up. A use that cannot be followed shows nothing.
    """
    return _seen_from(mod, sampler, carrying_names(mod, sampler), 2)


def evaluation_combined_near(mod: Module, importing: list[Module]) -> bool:
    """An evaluation of ``mod`` or of a module that imports it combines what it computes.

    For a sampler built once per split (a loop over the splits, a list of
    shuffle flags) whose loaders leave in a container the reading does not
    follow: a function not named for training that loops over a loader not
    named for training (``def test(self, model, loader)``, ``for x, y in
    val_loader``, ``sum(... for x, y in loaders[1])``) and combines what the
    loop computes, in the module or in one that imports it, is taken for the
    split's evaluation.
    """
    for other in [mod, *importing]:
        for funcs in other.functions.values():
            for func in funcs:
                if is_train_name(func.name):
                    continue
                for loop in ast.walk(func):
                    if not isinstance(loop, ast.For | ast.AsyncFor | ast.comprehension):
                        continue
                    iterated = {d for n in ast.walk(loop.iter) if (d := dotted(n))}
                    if not iterated or any(is_train_name(n) for n in iterated):
                        continue
                    if _combines_what_it_reads(Reader(other, func, (), frozenset(iterated))):
                        return True
    return False


def _seen_from(mod: Module, origin: ast.Call, names: set[str], depth: int) -> bool:
    func = mod.function_of(origin)
    # plain names bound in a function are its locals: a ``sampler`` of another function
    # of the file (one that gathers its own, exact share) is another object
    local = func is not None and not any("." in n for n in names)
    names = names | _instance_reads(mod, names)
    sites = consumer_sites(mod, names, func if local else None)
    if sites and _read_as_combined(mod, sites, names):
        return True
    if func is None or not returned_at(func, origin) or depth == 0:
        return False
    for site_mod, site, given in _handed_back(mod, origin, partial=True):
        if not given:  # iterated where it lands: for x, y in test_loader(test_set)
            outer = site_mod.function_of(site)
            if outer is not None and _combines(site_mod, outer):
                return True
        elif _seen_from(site_mod, site, carrying_names(site_mod, site, given), depth - 1):
            return True
    return False


def _instance_reads(mod: Module, names: set[str]) -> set[str]:
    """``provider.valid`` for ``self.valid``: the attribute read through an instance of the file."""
    attributes = {n.partition(".")[2] for n in names if n.startswith("self.") and n.count(".") == 1}
    if not attributes:
        return set()
    return {
        d
        for node in mod.nodes
        if isinstance(node, ast.Attribute)
        and node.attr in attributes
        and (d := dotted(node)) is not None
        and d.count(".") == 1
        and not d.startswith(("self.", "cls."))
    }


def _read_as_combined(mod: Module, sites: list[ast.AST], names: set[str]) -> bool:
    for site in sites:
        if rank_zero_only(mod, site):
            continue
        found = readers(mod, site, names, partial=True) or []
        if not isinstance(site, ast.Call) and mod.function_of(site) is None:
            found = [Reader(mod, mod.tree, (), frozenset(names))]  # a script's top-level loop
        for reader in found:
            if _combines_what_it_reads(reader):
                return True
            if not isinstance(reader.function, ast.Module) and _writes(
                reader.module, reader.function
            ):
                return True
            if any(_results_combined(m, c) for m, c in reader.path):
                return True
            function = reader.function
            if isinstance(function, ast.Module) or reader.path:
                continue
            if _callers_combine(reader.module, function):
                return True
        outer = mod.function_of(site)
        if isinstance(site, ast.Call) and outer is not None and _callers_combine(mod, outer):
            return True
        if isinstance(site, ast.Call) and _results_combined(mod, site):
            return True  # self.validate_fn(model, val_loader) beside an all-reduce of its results
    return False


def _handed_back(
    mod: Module, sampler: ast.Call, partial: bool = False
) -> list[tuple[Module, ast.Call, set[str]]]:
    """The tree's call sites of the function that returns ``sampler``'s loader, with its names.

    ``train_dl, val_dl, test_dl = create_dataloaders(...)``: the names at the
    positions the sampler's loader takes in the returned tuple; ``loader =
    build(...)`` where it is returned whole. A dispatcher that returns the
    call as it is (``def build_loader(config): return build_loader_finetune(config)``)
    is passed through to its own call sites, one level. Empty where any site
    cannot be read (no assignment, a tuple kept whole, a starred target): the
    finding stays. With ``partial`` (evidence of a combine), the sites that
    can be read, the others left out.
    """
    project = mod.cache.get("project")
    func = mod.function_of(sampler)
    if project is None or func is None:
        return []
    positions = returned_at(func, sampler)
    if not positions:
        return []
    fields = returned_keywords(func, sampler) if positions == {WHOLE} else set()
    found = _landings(project, mod.cache["module_name"], func, positions, 1, partial) or []
    if not fields:
        return found
    # a dataclass of loaders: the call site reads the sampler's loader as ``loaders.val_loader``
    return [
        (site_mod, site, {f"{name}.{field}" for name in named for field in fields} or named)
        for site_mod, site, named in found
    ]


def _landings(
    project: Project,
    owner_name: str,
    func: Function,
    positions: set[int],
    depth: int,
    partial: bool,
) -> list[tuple[Module, ast.Call, set[str]]] | None:
    """Where the calls of ``func`` land: the names they are assigned to, at ``positions``."""
    sites = project.call_sites(owner_name, func.name)
    if not sites:
        return None
    out: list[tuple[Module, ast.Call, set[str]]] = []
    for owner, site in sites:
        site_mod = project.modules[owner]
        parent = site_mod.parents.get(site)
        outer = site_mod.function_of(site)
        if isinstance(parent, ast.Return) and outer is not None and depth > 0:
            if partial and is_train_name(outer.name):
                continue  # handed back by train_dataloader(): the training landing
            below = _landings(project, owner, outer, positions, depth - 1, partial)
            if below is None and not partial:
                return None
            out.extend(below or [])
            continue
        if partial and _iterated(site_mod, site):
            out.append((site_mod, site, set()))
            continue
        named = _landing_names(site_mod, site, positions)
        if partial and named is not None and all(is_train_name(n) for n in named):
            continue  # a shared helper's training landing: its loss combine is no evaluation's
        if named is None:
            if partial:
                continue
            return None
        out.append((site_mod, site, named))
    return out


def _iterated(mod: Module, site: ast.Call) -> bool:
    """``site`` is what a loop or a comprehension iterates (``for b in build(...)``)."""
    parent = mod.parents.get(site)
    return isinstance(parent, ast.For | ast.AsyncFor | ast.comprehension) and parent.iter is site


def _landing_names(mod: Module, site: ast.Call, positions: set[int]) -> set[str] | None:
    """The names ``x = f()`` or ``a, b, c = f()`` binds at ``positions``; ``None``: unreadable."""
    parent = mod.parents.get(site)
    if not isinstance(parent, ast.Assign) or len(parent.targets) != 1:
        return None
    target = parent.targets[0]
    if isinstance(target, ast.Tuple | ast.List):
        elements = target.elts
        if WHOLE in positions or any(isinstance(e, ast.Starred) for e in elements):
            return None
        given = {dotted(elements[i]) for i in positions if i < len(elements)}
    elif positions == {WHOLE}:
        given = {dotted(target)}
    else:
        return None
    return {n for n in given if n} or None
