"""Evaluation over a loader accelerate prepared, combined without dropping its fill (FS109).

``accelerator.prepare(eval_loader)`` shards the loader and, with
``even_batches=True`` (the default), fills the last batch of the ranks that
run short with samples from the start of the set, so every rank runs the same
number of steps. ``accelerator.gather_for_metrics`` drops that fill when it is
called on the last batch, inside the loop; ``accelerator.gather``,
``reduce``, torch.distributed's collectives, and a ``gather_for_metrics`` of
values accumulated over the whole loop (called after it) keep it, so the
filled samples count twice.

Left alone: an accelerator built with ``even_batches=False``; loops over
loaders named for training; functions that also keep results by sample id
or cut them back to the set's length (see ``dedup``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .caller_flags import function_sites
from .capped_loops import capped
from .dedup import scope_deduplicates
from .flow import LOADERS, bound_argument, parameters
from .lightning_hooks import lineage_of, tree_modules
from .names import (
    Module,
    argument,
    calls_bound_to,
    dotted,
    is_constant,
    is_eval_name,
    is_train_name,
    tail,
    values_bound_before,
)
from .reach import after_exit

__all__ = ["prepared_names", "unfilled_gathers"]

_ACCELERATE = frozenset({"accelerate"})
#: Combining calls that keep accelerate's fill.
_KEEPING = frozenset({"gather", "reduce", "all_gather", "all_reduce", "all_gather_object"})
_WRAPPERS = frozenset({"tqdm", "enumerate", "iter", "zip"})


def _even_batches_off(mod: Module) -> bool:
    """``even_batches=False`` given to accelerate, or in a Trainer's ``accelerator_config``."""
    return any(
        is_constant(argument(call, "even_batches"), False)
        or (tail(call) == "even_batches" and call.args and is_constant(call.args[0], False))
        for call in mod.calls
    ) or any(
        isinstance(node, ast.Dict)
        and any(
            isinstance(key, ast.Constant)
            and key.value == "even_batches"
            and is_constant(value, False)
            for key, value in zip(node.keys, node.values, strict=True)
        )
        for node in mod.nodes
    )


#: A transformers (or trl) ``Trainer``'s own evaluation loaders, which it prepares with
#: accelerate (``even_batches=True`` unless its ``accelerator_config`` says otherwise).
_TRAINER_LOADERS = frozenset({"get_eval_dataloader", "get_test_dataloader"})
_TRAINER_PACKAGES = frozenset({"transformers", "trl"})


def _trainer_prepared(mod: Module) -> set[str]:
    """Names bound to ``self.get_eval_dataloader(...)`` in a method of a Trainer subclass.

    TabularEHR's ``JointPretrainingTrainer(Trainer)`` overrides ``evaluate``:
    ``dataloader = self.get_eval_dataloader(...)``, sums over it, then
    ``dist.all_reduce(totals)``; the loader is one accelerate prepared, so the
    fill of the last batch is summed with the rest. The class must descend
    from a ``*Trainer`` the tree does not define, in a file importing
    transformers or trl.
    """
    if not mod.imports_any(_TRAINER_PACKAGES):
        return set()
    own = {name for other in tree_modules(mod) for name in other.classes}
    names: set[str] = set()
    for node in mod.nodes:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        func = node.value.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr in _TRAINER_LOADERS
            and dotted(func.value) == "self"
        ):
            continue
        method = mod.function_of(node)
        cls = mod.parents.get(method) if method is not None else None
        if not isinstance(cls, ast.ClassDef):
            continue
        lineage = lineage_of(mod, cls.name)
        if not any(name.endswith("Trainer") and name not in own for name in lineage):
            continue
        if _own_getter(mod, lineage, func.attr):
            continue  # the tree builds that loader itself (its own sampler is judged)
        names.update(d for t in node.targets if (d := dotted(t)))
    return names


def _own_getter(mod: Module, lineage: set[str], getter: str) -> bool:
    """A class of the lineage defines ``getter`` without handing its loader to ``prepare``.

    olmo-code-sft's ``get_eval_dataloader`` returns a ``DataLoader`` over its own
    padded ``DistributedSampler``: the loader is the tree's, not accelerate's.
    One that calls ``super().get_eval_dataloader(...)`` or ``prepare`` keeps it.
    """
    for other in tree_modules(mod):
        for name in lineage:
            for cls in other.classes.get(name, []):
                for item in cls.body:
                    if not (isinstance(item, ast.FunctionDef) and item.name == getter):
                        continue
                    kept = {getter, "prepare", "prepare_data_loader"}
                    calls = [n for n in ast.walk(item) if isinstance(n, ast.Call)]
                    if not any(tail(c) in kept for c in calls):
                        return True
    return False


def prepared_names(mod: Module) -> set[str]:
    """Names holding a loader that ``accelerator.prepare`` (or ``prepare_data_loader``) returned."""
    names: set[str] = set()
    for node in mod.nodes:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        if tail(node.value) not in {"prepare", "prepare_data_loader"}:
            continue
        for target in node.targets:
            for element in ast.walk(target):
                name = dotted(element) if isinstance(element, ast.Name | ast.Attribute) else None
                if name:
                    names.add(name)
    return names


def _handed_prepared(
    mod: Module,
    func: ast.FunctionDef | ast.AsyncFunctionDef | None,
    param: str,
    prepared: set[str],
    depth: int = 2,
) -> bool:
    """``param`` of ``func`` gets a prepared loader at a call of the file, or of the tree.

    Qwen3VL_SLT's ``train.py`` prepares ``val_loader`` and hands it to
    ``evaluate(model, val_loader, accelerator)`` of its ``train_loop.py``,
    which gathers each batch's loss with ``accelerator.gather``: the calls of
    another module count where they resolve to the function (see
    ``caller_flags.function_sites``) and hand a name that module prepared, and
    a caller that hands on its own parameter (``train(..., val_loader)``
    calling ``evaluate(model, val_loader, ...)``) is followed ``depth`` calls up.
    """
    if func is None or param not in parameters(func):
        return False
    for call in mod.calls:
        if tail(call) != func.name:
            continue
        given = bound_argument(call, func, param)
        if given is not None and dotted(given) in prepared:
            return True
        caller = mod.function_of(call)
        if (
            depth
            and isinstance(given, ast.Name)
            and caller is not None
            and caller is not func
            and _handed_prepared(mod, caller, given.id, prepared, depth - 1)
        ):
            return True  # train(..., val_loader) hands its own parameter on to evaluate
    for owner, site in function_sites(mod, func):
        if owner is mod:
            continue
        given = bound_argument(site, func, param)
        if (
            given is not None
            and dotted(given) in prepared_names(owner)
            and not _even_batches_off(owner)  # that module's accelerator fills no batch
        ):
            return True
    return False


def _handed_names(
    mod: Module, func: ast.FunctionDef | ast.AsyncFunctionDef | None, param: str
) -> set[str]:
    """The names the file's calls of ``func`` hand to its parameter ``param``.

    AASIST_SCALING's ``calculate_eer(eval_dataloader, model, accelerator)``:
    the helper's ``dataloader`` is the evaluation loader by its callers' name.
    """
    if func is None or param not in parameters(func):
        return set()
    names: set[str] = set()
    for call in mod.calls:
        if tail(call) == func.name:
            given = bound_argument(call, func, param)
            if given is not None and (name := dotted(given)):
                names.add(name)
    return names


def _drops_last(mod: Module, names: set[str]) -> bool:
    """Every ``DataLoader`` bound to one of ``names`` has ``drop_last=True``.

    accelerate's sharding copies the loader's ``drop_last`` and fills the last
    batch with samples from the start only when it is false (TinyMU's
    validation loader, ``drop_last=True``, prepared: no sample repeats). The
    loaders the file binds, and those the tree's calls hand in where a name
    is bound to a parameter (see :func:`_handed_in`).
    """
    built = [
        call for name in names for call in calls_bound_to(mod.tree, name) if tail(call) in LOADERS
    ]
    handed = _handed_in(mod, names)
    if handed is None:
        return False
    built += handed
    return bool(built) and all(is_constant(argument(c, "drop_last"), True) for c in built)


def _pairs(target: ast.expr, value: ast.expr) -> list[tuple[str, str]]:
    """``(bound name, plain name)`` pairs of an assignment: ``a = b``, ``a, c = b, d``."""
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
        if len(target.elts) != len(value.elts):
            return []
        return [p for t, v in zip(target.elts, value.elts, strict=True) for p in _pairs(t, v)]
    name = dotted(target)
    return [(name, value.id)] if name and isinstance(value, ast.Name) else []


def _handed_in(mod: Module, names: set[str]) -> list[ast.Call] | None:
    """The loaders the tree's calls hand to a parameter that one of ``names`` is bound to.

    rs_foundation_model's ``train_model(self, epoch, train_loader,
    vali_loader=None, ...)`` keeps ``self.vali_loader = vali_loader`` (or in a
    tuple assignment), and its one shipped caller, in another module, builds
    ``vali_loader = DataLoader(..., drop_last=True)``. Every call of the
    function by name in the tree that may run (not after a call that fails:
    see ``reach.after_exit``) is read; ``None`` where one hands in something
    other than a loader its function builds (unknown).
    """
    params: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]] = []
    for node in mod.nodes:
        if not isinstance(node, ast.Assign):
            continue
        func = mod.function_of(node)
        if func is None:
            continue
        for target in node.targets:
            for name, value in _pairs(target, node.value):
                if name in names and value in parameters(func):
                    params.append((func, value))
    found: list[ast.Call] = []
    for func, param in params:
        for other in tree_modules(mod):
            for call in other.calls:
                if tail(call) != func.name or after_exit(other, call):
                    continue
                given = bound_argument(call, func, param)
                if given is None or is_constant(given, None):
                    continue  # no loader: the parameter's default
                if isinstance(given, ast.Call) and tail(given) in LOADERS:
                    found.append(given)
                    continue
                scope = other.function_of(call) or other.tree
                loaders = [c for c in calls_bound_to(scope, dotted(given)) if tail(c) in LOADERS]
                if not loaders:
                    return None
                found += loaders
    return found


def _read(mod: Module, loop: ast.For | ast.AsyncFor) -> str | None:
    """The loader ``loop`` reads: through wrappers, and through a name bound to one.

    RibonanzaNet2's ``tbar = tqdm(val_loader)`` then ``for idx, batch in
    enumerate(tbar)``: the binding nearest before the loop, in its function,
    is followed (the same ``tbar`` wraps the training loader earlier).
    """
    node: ast.AST = loop.iter
    while isinstance(node, ast.Call) and tail(node) in _WRAPPERS and node.args:
        node = node.args[0]
    name = dotted(node)
    scope = mod.function_of(loop) or mod.tree
    bound = values_bound_before(mod, scope, name, loop.lineno)
    if name and bound:
        last = max(bound, key=lambda v: v.lineno)
        if isinstance(last, ast.Call) and tail(last) in _WRAPPERS and last.args:
            inner = dotted(last.args[0])
            return inner if inner else name
    return name


def _after(mod: Module, loop: ast.stmt) -> list[ast.stmt]:
    """``loop`` and the statements after it, in each block around it up to its function."""
    found: list[ast.stmt] = [loop]
    child: ast.AST = loop
    for ancestor in mod.ancestors(loop):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module):
            break
        for part in ("body", "orelse", "finalbody"):
            block = getattr(ancestor, part, None)
            if isinstance(block, list) and child in block:
                found += block[block.index(child) + 1 :]
        child = ancestor
    else:
        return found
    block = ancestor.body
    if child in block:
        found += block[block.index(child) + 1 :]
    return found


def _without_other_loops(
    mod: Module, region: ast.Module, loop: ast.stmt, prepared: set[str]
) -> ast.Module:
    """``region`` less the statements that hold another loop over a prepared loader.

    Data-Cartography's ``run_glue.py`` cuts its validation's gathers to the
    set's length on the last batch, then evaluates MNLI's mismatched set over a
    loader (prepared again, under the same name) with plain gathers: that second
    evaluation is judged from its own loop, and does not make the first one's
    cut count for nothing.
    """
    kept = [
        stmt
        for stmt in region.body
        if stmt is loop
        or not any(
            isinstance(n, ast.For | ast.AsyncFor) and n is not loop and _read(mod, n) in prepared
            for n in ast.walk(stmt)
        )
        or any(n is loop for n in ast.walk(stmt))
    ]
    return ast.Module(body=kept, type_ignores=[])


def _unused(mod: Module, call: ast.Call, region: ast.AST) -> bool:
    """The combined value goes nowhere: assigned, then only updated in place.

    ``total = accelerator.gather_for_metrics(total).mean()`` followed by
    ``total /= n`` and nothing else reads ``total``: no count is reported from it.
    """
    statement: ast.AST | None = call
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = mod.parents.get(statement)
    if not isinstance(statement, ast.Assign):
        return False
    names = {dotted(t) for t in statement.targets} - {None}
    if not names or any(not isinstance(t, ast.Name) for t in statement.targets):
        return False
    for node in ast.walk(region):
        if (
            isinstance(node, ast.Name)
            and node.id in names
            and isinstance(node.ctx, ast.Load)
            and (node.lineno, node.col_offset)
            >= (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
        ):
            return False
    return True


def _synced_metric(mod: Module, func: ast.AST | None, call: ast.Call, loop: ast.stmt) -> bool:
    """``metric.compute()`` of a torchmetrics object the loop updates (MNCDV3's ``F1Score``).

    torchmetrics syncs a metric's states over the process group when it
    computes (``sync_on_compute=True``, the default), so what every rank
    updated, accelerate's fill of the last batch included, is counted.
    """
    if not isinstance(call.func, ast.Attribute) or call.args or call.keywords:
        return False
    name = dotted(call.func.value)
    if name is None:
        return False
    made = calls_bound_to(func if func is not None else mod.tree, name)
    constructors = [
        inner
        for value in made
        for inner in ast.walk(value)
        if isinstance(inner, ast.Call)
        and (mod.qualified(inner.func) or "").startswith("torchmetrics")
    ]
    if not constructors or any(
        is_constant(argument(c, "sync_on_compute"), False) for c in constructors
    ):
        return False  # not a torchmetrics object, or one that computes on its own states
    if any(isinstance(n, ast.Call) and tail(n) == "gather_for_metrics" for n in ast.walk(loop)):
        return False  # updated with what gather_for_metrics trimmed: another reading
    updated = any(
        isinstance(n, ast.Call) and (dotted(n.func) == name or dotted(n.func) == f"{name}.update")
        for n in ast.walk(loop)
    )
    return updated


def unfilled_gathers(mod: Module) -> Iterator[tuple[ast.Call, str]]:
    """Combining calls of an evaluation over a prepared loader that keep accelerate's fill."""
    trainers = _trainer_prepared(mod)
    # a helper handed the accelerator (and its loaders) need not import accelerate
    helper = "accelerator" in mod.identifiers
    if not (mod.imports_any(_ACCELERATE) or trainers or helper) or _even_batches_off(mod):
        return
    prepared = prepared_names(mod) | trainers  # a helper's loops may get one from another module
    seen: set[int] = set()
    for loop in mod.nodes:
        if not isinstance(loop, ast.For | ast.AsyncFor):
            continue
        loader = _read(mod, loop)
        func = mod.function_of(loop)
        if loader is None or is_train_name(loader):
            continue
        if loader not in prepared and not _handed_prepared(mod, func, loader, prepared):
            continue
        handed = _handed_names(mod, func, loader)
        if not (
            is_eval_name(loader)
            or (func is not None and is_eval_name(func.name))
            or (handed and all(is_eval_name(h) for h in handed))
        ):
            continue
        if _drops_last(mod, handed or {loader}):
            continue  # accelerate drops the short last batch too: nothing is filled
        if capped(mod, loop):
            continue  # stops after a set number of batches, before the filled last one
        # the evaluation: the loop and what follows it, in its block and in the blocks
        # around it up to its function (where results are combined and scored)
        region = ast.Module(body=_after(mod, loop), type_ignores=[])
        if scope_deduplicates(_without_other_loops(mod, region, loop, prepared)):
            continue
        inside = {id(n) for n in ast.walk(loop)}
        found: list[tuple[ast.Call, str]] = []
        around = {id(a) for a in mod.ancestors(loop)}
        for call in (n for n in ast.walk(region) if isinstance(n, ast.Call)):
            other = mod.loop_of(call)
            if other is not None and other is not loop and id(other) not in around:
                continue  # another loop's evaluation (judged from that loop)
            name = tail(call)
            if name in _KEEPING:
                found.append(
                    (call, f"{name} keeps the samples accelerate repeats to even the last batch")
                )
            elif name == "compute" and _synced_metric(mod, func, call, loop):
                found.append(
                    (
                        call,
                        "a torchmetrics compute() syncs the metric's states over the ranks, "
                        "with the samples accelerate repeats to even the last batch",
                    )
                )
            elif name == "gather_for_metrics" and id(call) not in inside:
                found.append(
                    (
                        call,
                        "gather_for_metrics after the loop drops nothing (it trims the fill "
                        "only when called on the last batch)",
                    )
                )
        # one finding per evaluation: its first combining call whose result is read
        found = [f for f in found if id(f[0]) not in seen and not _unused(mod, f[0], region)]
        if found:
            call, why = min(found, key=lambda f: (f[0].lineno, f[0].col_offset))
            seen.update(id(f[0]) for f in found)
            yield call, why
