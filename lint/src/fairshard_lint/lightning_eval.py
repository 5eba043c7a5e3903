"""Evaluation loaders that Lightning pads (FS109 where no sampler is written).

Under DDP, Lightning's Trainer (``use_distributed_sampler=True``, the default;
``replace_sampler_ddp`` before 2.0) puts a ``DistributedSampler(shuffle=False)``
into the loader that ``val_dataloader()`` or ``test_dataloader()`` returns. Its
``drop_last`` is ``False``, so it pads every rank by repeating samples, as a
``DistributedSampler`` written by hand does. Where the validation (or test)
hooks combine their metrics over the ranks (``self.log(..., sync_dist=True)``,
``self.all_gather``, a torchmetrics ``compute()``), up to W-1 samples count
twice. Lightning says so itself for ``trainer.validate`` and ``trainer.test``;
it says nothing for the validation inside ``fit``.

Left alone: loaders that drop their last partial batch (``drop_last=True``,
where the repeats land; see ``drops_the_padded_tail``), loaders that name
their own ``sampler=`` or ``batch_sampler=``
(fairshard's ``DistributedEvalSampler`` is a ``DistributedSampler``, which
Lightning keeps), trees that turn the replacement off, ``predict_dataloader``
(Lightning shards prediction without repeats), hooks that never combine, and
combined results cut back to the set's length or kept by sample id.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Set
from pathlib import Path

from .branches import single_process_branch
from .cli_configs import one_device
from .config_flags import FALSE_VALUES, entry_values
from .dedup import scope_deduplicates
from .flow import LOADERS, Function, bound_argument, defaults_of, parameters, spread_entry
from .lightning_hooks import (
    LIGHTNING,
    config_values,
    data_module_runs,
    hooks_run_otherwise,
    lightning_modules,
    lightning_pin,
    lineage_of,
    never_run,
    paired_models,
    replacement_off,
    tail_batches_unread,
    trainer_method,
    tree_modules,
    validation_off,
)
from .names import (
    Module,
    argument,
    bound_calls,
    calls_bound_to,
    config_entry,
    dotted,
    is_constant,
    name_words,
    tail,
    values_bound_before,
)
from .options import UNKNOWN, shipped_default
from .project import Project, importers, passed_argument, unreached_by_callers
from .reach import after_exit
from .shares import rank_zero_only
from .trainer_spreads import spread_counts_of_callers

__all__ = [
    "drops_the_padded_tail",
    "constructed_padded_evaluations",
    "inherited_padded_evaluations",
    "lightning_padded_evaluations",
    "lightning_ranks",
    "combined_by_lightning",
]

#: Loader hooks Lightning pads, and the prefixes of the hooks that score what they yield.
_EVAL_HOOKS = {"val_dataloader": "validation", "test_dataloader": "test"}
_SCORING = ("_step", "_step_end", "_epoch_end")


def _given(node: ast.AST | None) -> bool:
    return node is not None and not is_constant(node, None)


def _metric_attributes(
    mod: Module, cls: ast.ClassDef, bases: frozenset[str] | None = None
) -> set[str]:
    """``self.X`` of ``cls`` that hold a torchmetrics metric (``self.minFDE = FDE()``).

    The class built is torchmetrics' own, or one of the tree whose bases lead
    to ``Metric`` or ``MetricCollection``; Lightning computes such an object
    when it is logged, and its states are synced over the ranks. With
    ``bases``, the classes whose lineage leads to one of those instead.
    """
    bases = _METRIC_BASES if bases is None else bases
    found: set[str] = set()
    for node in ast.walk(cls):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        built = node.value.func
        qualified = mod.qualified(built) or ""
        name = (dotted(built) or "").rpartition(".")[2]
        metric = (bases is _METRIC_BASES and qualified.startswith("torchmetrics")) or any(
            base in bases for base in lineage_of(mod, name) - {name}
        )
        if not metric:
            continue
        for target in node.targets:
            attr = dotted(target) or ""
            if attr.startswith("self."):
                found.add(attr)
    return found


_METRIC_BASES = frozenset({"Metric", "MetricCollection"})
#: Lightning 0.8-0.9's metric classes (``pytorch_lightning.metrics.metric``): calling
#: one all-reduces its output over the ranks (``TensorMetric``'s SUM by default).
_REDUCING_ON_CALL = frozenset({"TensorMetric", "NumpyMetric", "TensorCollectionMetric"})


#: ``torch.distributed`` calls that combine a tensor over the ranks.
_DIST_COMBINES = frozenset({"all_reduce", "all_gather", "all_gather_object", "reduce", "gather"})


def _combining_members(mod: Module, cls: ast.ClassDef) -> set[str]:
    """``self.X.m``: ``self.X`` holds an object of a tree class whose ``m`` combines over ranks.

    MSSVT's ``self.test_metrics = SegmentationMetrics(...)`` and
    ``self.test_metrics.synchronize_between_gpus()``, a method of the tree
    that runs ``dist.all_reduce(self.confusion_matrix)``: the per-rank counts
    are summed, repeats and all.
    """
    project = mod.cache.get("project")
    if not isinstance(project, Project):
        return set()
    found: set[str] = set()
    for node in ast.walk(cls):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        attrs = [a for a in (dotted(t) or "" for t in node.targets) if a.startswith("self.")]
        where = project.named(mod.cache["module_name"], node.value.func) if attrs else None
        if where is None:
            continue
        home = project.modules[where[0]]
        for built in home.classes.get(where[1], []):
            for method in built.body:
                if isinstance(method, ast.FunctionDef) and any(
                    isinstance(c, ast.Call)
                    and tail(c) in _DIST_COMBINES
                    and (home.qualified(c.func) or "").startswith("torch.distributed.")
                    for c in ast.walk(method)
                ):
                    found |= {f"{attr}.{method.name}" for attr in attrs}
    return found


def _updated_collections(cls: ast.ClassDef) -> set[str]:
    """``self.X`` that a method of ``cls`` walks calling ``update`` on each item.

    ``for metric in self.test_metrics: metric.update(batch)``: the items are
    metric objects (torchmetrics' protocol), whatever built them and wherever.
    """
    found: set[str] = set()
    for node in ast.walk(cls):
        if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name)):
            continue
        walked = dotted(node.iter) or ""
        item = node.target.id
        if walked.startswith("self.") and any(
            isinstance(c, ast.Call) and tail(c) == "update" and dotted(c.func) == f"{item}.update"
            for c in ast.walk(node)
        ):
            found.add(walked)
    return found


def _loop_items(func: Function, collections: Set[str]) -> set[int]:
    """Ids of the ``log`` calls inside ``for item in self.X`` (X walked for updates)."""
    ids: set[int] = set()
    for node in ast.walk(func):
        if (
            isinstance(node, ast.For)
            and isinstance(node.target, ast.Name)
            and dotted(node.iter) in collections
        ):
            ids |= {
                id(c)
                for c in ast.walk(node)
                if isinstance(c, ast.Call)
                and tail(c) in {"log", "log_dict"}
                and isinstance(value := argument(c, "value", 1), ast.Name)
                and value.id == node.target.id
            }
    return ids


def _logs_metric(call: ast.Call, metrics: set[str]) -> bool:
    """``self.log("val_fde", self.minFDE)``: a metric object handed to Lightning to compute."""
    value = argument(call, "value", 1)
    if isinstance(value, ast.Dict):
        return any(dotted(v) in metrics for v in value.values)
    return value is not None and dotted(value) in metrics


#: Methods of a metric that feed it no sample.
_UNFEEDING = frozenset({"compute", "reset", "to", "cpu", "cuda", "clone"})


def _unfed_metrics(cls: ast.ClassDef) -> set[str]:
    """``self.X`` attributes whose ``compute()`` the class calls but that nothing feeds.

    cross-modal-speech-segment-retrieval's ``self.val_mrr_best.compute()``, a
    ``MaxMetric`` whose only ``update`` is commented out: its states hold no
    validation sample, so computing (and syncing) it combines none. Fed means
    called (``self.X(preds, target)``), updated (``.update``, ``.forward``) or
    handed to another call (a helper may feed it).
    """
    computed: set[str] = set()
    fed: set[str] = set()
    for node in ast.walk(cls):
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func) or ""
        receiver, _, method = name.rpartition(".")
        if receiver.startswith("self.") and method == "compute" and not node.args:
            computed.add(receiver)
        elif name.startswith("self."):
            fed.add(name)  # self.val_mrr(preds, target): the metric called on data
            if method not in _UNFEEDING:
                fed.add(receiver)  # self.val_mrr.update(...), or any other method of it
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            held = dotted(arg)
            if held is not None and held.startswith("self."):
                fed.add(held)
    return computed - fed


def _combines(
    func: ast.FunctionDef | ast.AsyncFunctionDef,
    torchmetrics: bool,
    metrics: set[str],
    reducing: Set[str] = frozenset(),
    collections: Set[str] = frozenset(),
    unfed: Set[str] = frozenset(),
) -> ast.AST | None:
    """The first call of ``func`` that combines its values over the ranks, if any.

    ``reducing``: attributes holding a metric that all-reduces when called, and
    methods of attributes that combine over the ranks (``_combining_members``);
    ``collections``: attributes holding metric objects (``_updated_collections``),
    each of which Lightning computes, synced, when a loop logs it.
    """
    logged_items = _loop_items(func, collections)
    for node in ast.walk(func):
        if not isinstance(node, ast.Call):
            continue
        if dotted(node.func) in reducing:
            return node  # self.f1(pred, gold): Lightning 0.9's metric sums over the ranks
        if id(node) in logged_items:
            return node  # for metric in self.test_metrics: self.log(metric.name, metric)
        if tail(node) in {"log", "log_dict"} and (
            is_constant(argument(node, "sync_dist"), True) or _logs_metric(node, metrics)
        ):
            return node
        if (dotted(node.func) or "").startswith("self.") and any(
            k.arg == "sync_dist" and is_constant(k.value, True) for k in node.keywords
        ):
            return node  # self.log_scalar("val/loss", loss, sync_dist=True): a wrapper of log
        if tail(node) == "all_gather" and (dotted(node.func) or "").startswith("self."):
            return node
        if tail(node) == "compute" and not node.args:
            receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
            if receiver is not None and dotted(receiver) in unfed:
                continue  # a metric nothing feeds: its states hold no sample
            if torchmetrics or (receiver is not None and dotted(receiver) in metrics):
                return node  # a torchmetrics metric syncs its states over the ranks
    return None


def _scoring_hooks(mod: Module, stage: str) -> Iterator[tuple[Module, ast.FunctionDef]]:
    """Methods of the tree's Lightning classes that score a stage (``validation_step``...).

    A class counts in a module that imports Lightning, or where it descends
    from a class of such a module (``class TSPModel(MetaModel)`` in a file that
    names no Lightning package).
    """
    lightning = lightning_modules(mod)
    lightning_classes = {name for other in lightning for name in other.classes}
    for other in tree_modules(mod):
        own = other in lightning
        for name, defs in other.functions.items():
            base = name.removeprefix("on_")
            if not (base.startswith(stage) and base.endswith(_SCORING)):
                continue
            for func in defs:
                cls = other.parents.get(func)
                if not (isinstance(func, ast.FunctionDef) and isinstance(cls, ast.ClassDef)):
                    continue
                if own or lineage_of(mod, cls.name) & lightning_classes - {cls.name}:
                    yield other, func


def _one_device(mod: Module, call: ast.Call) -> bool:
    """The trainer ``call`` runs on was built in the same function for one device.

    ``trainer = Trainer(gpus=1)`` (or ``devices=1``, ``devices=[0]``, or any
    count :func:`_one_device_trainer` reads as one: ``devices=args.gpus`` whose
    option every shipped run leaves at 1): one process, whatever the strategy;
    Lightning puts in no sampler.
    """
    receiver = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else None
    scope = mod.function_of(call) or mod.tree
    built = _bindings_reaching(
        mod, call, [c for c in calls_bound_to(scope, receiver) if _builds_a_trainer(c)]
    )
    if not built:
        return False
    return all(_one_device_trainer(mod, t) for t in built)


def _builds_a_trainer(call: ast.Call) -> bool:
    """``Trainer(...)``, or Hydra's ``instantiate(cfg.trainer, devices=1, ...)``.

    NoisyLabelDefectDetection's evaluation trainer is its config's trainer
    instantiated with ``devices=1`` given beside it: the keyword decides.
    """
    if tail(call) == "Trainer":
        return True
    return (
        tail(call) == "instantiate"
        and bool(call.args)
        and _names_the_trainer(call.args[0], by_name=True)
    )


def _bindings_reaching(mod: Module, call: ast.Call, built: list[ast.Call]) -> list[ast.Call]:
    """The bindings of ``built`` that may hold at ``call``.

    snn_dvs fits on ``trainer = pl.Trainer(devices="auto")``, then builds
    ``trainer = pl.Trainer(devices=1)`` and tests on it: the last binding
    before the call in a block around it holds there (with any binding
    between it and the call, in a branch that may run); a binding after the
    call does not reach it, nor an earlier one that a later one in a block
    around the call replaces.
    """
    around = {id(a) for a in mod.ancestors(call)}
    before = sorted(
        (b for b in built if (b.lineno, b.col_offset) < (call.lineno, call.col_offset)),
        key=lambda b: (b.lineno, b.col_offset),
    )
    last = None
    for index, binding in enumerate(before):
        statement = mod.parents.get(binding)
        if statement is not None and id(mod.parents.get(statement)) in around:
            last = index  # bound in a block that holds the call: it replaces what came before
    return before if last is None else before[last:]


#: The first Lightning release whose ``LightningCLI`` runs subcommands (``test`` among them).
_CLI_SUBCOMMANDS = (1, 5)


def _tests_run(mod: Module) -> bool:
    """Some path of the tree runs the test hooks on several devices.

    A ``trainer.test(...)`` that hands over no loaders of its own
    (``dataloaders=``, ``test_dataloaders=``, or a second positional argument
    named as a loader) on a trainer not built for one
    device, or a ``LightningCLI`` of a release that has a ``test``
    subcommand (1.5 and later; a tree that pins no version is read as
    current). BTTR's ``test.py`` tests on ``Trainer(gpus=1)`` and its
    LightningCLI 1.3.5 only fits: its test loader is never padded. A test run
    under ``if trainer.global_rank == 0:`` (seg-manba-seimic's) runs on rank 0
    alone: it combines nothing with ranks that have left (and rank 0's share
    of a padded sampler holds no repeat).
    """
    modules = tree_modules(mod)
    for other in modules:
        for call in other.calls:
            if trainer_method(call) != "test":
                continue
            if any(k.arg in {"dataloaders", "test_dataloaders"} for k in call.keywords):
                continue
            if _names_a_loader(call.args[1] if len(call.args) > 1 else None):
                continue  # trainer.test(model, dm.casf_dataloader(16)): loaders handed over
            if rank_zero_only(other, call):
                continue  # rank 0 tests alone: nothing is combined (the others left)
            if not _one_device(other, call):
                return True
    if any(tail(c) == "LightningCLI" for other in modules for c in other.calls):
        pinned = lightning_pin(mod)
        return pinned is None or pinned >= _CLI_SUBCOMMANDS
    return False


def _names_a_loader(value: ast.AST | None) -> bool:
    """A loader by its name: ``dm.casf_dataloader(16)``, ``DataLoader(...)``, ``test_loader``.

    ``trainer.test``'s second positional argument is ``dataloaders``, which
    may also be a data module (``trainer.test(model, dm)``): only a value
    whose name says loader is read as loaders handed over, and a call of the
    evaluation hook itself (STEDM's ``data_module.test_dataloader()``) is
    the hook's loader still.
    """
    if isinstance(value, ast.Call):
        name = tail(value)
        if name in _EVAL_HOOKS:
            return False  # trainer.test(model, dm.test_dataloader()): the hook's own loader
    elif isinstance(value, ast.Name | ast.Attribute):
        name = (dotted(value) or "").rpartition(".")[2]
    else:
        return False
    return name.lower().endswith(("loader", "loaders"))


def _cli_one_device(mod: Module) -> bool:
    """The tree builds its trainer only from configs, and every shipped config sets one device.

    vocos: ``LightningCLI(run=False)`` in ``train.py``, no ``Trainer(...)`` of
    its own, and ``trainer: devices: [0]`` in each of its four configs (see
    ``cli_configs``): one process on every shipped run, nothing padded.
    ChemGFN: ``hydra.utils.instantiate(cfg.trainer)`` and one ``trainer/``
    config group file, ``devices: 1``, which every experiment repeats.
    """
    project = mod.cache.get("project")
    if not isinstance(project, Project):
        return False
    calls = {tail(c) for other in tree_modules(mod) for c in other.calls}
    if "Trainer" in calls:
        return False
    values = project.trainer_devices
    default = _cli_default_devices(mod)
    if default is not None:
        values = [value or default for value in values] or [default]
    if not one_device(values):
        return False
    return "LightningCLI" in calls or any(
        tail(c) == "instantiate" and any(_names_the_trainer(a, by_name=True) for a in c.args[:1])
        for other in tree_modules(mod)
        for c in other.calls
    )


def _cli_default_devices(mod: Module) -> str | None:
    """The devices every ``LightningCLI(trainer_defaults={...})`` of the tree gives, as text.

    cassava-leaf-disease: ``trainer_defaults={"accelerator": "mps", "devices":
    1, ...}`` and a ``configs/config.yaml`` whose ``trainer:`` block names no
    devices: the CLI's default stands, one device. ``None`` where some CLI
    call gives no literal dict with ``devices`` (or ``gpus``), or there is none.
    """
    found: set[str] = set()
    for other in tree_modules(mod):
        for call in other.calls:
            if tail(call) != "LightningCLI":
                continue
            defaults = argument(call, "trainer_defaults")
            if not isinstance(defaults, ast.Dict):
                return None
            given = {
                key.value: value
                for key, value in zip(defaults.keys, defaults.values, strict=True)
                if isinstance(key, ast.Constant) and isinstance(key.value, str)
            }
            value = given.get("devices", given.get("gpus"))
            if value is None:
                return None
            found.add(ast.unparse(value))
    return found.pop() if len(found) == 1 else None


def _names_the_trainer(node: ast.AST, by_name: bool = False) -> bool:
    """``cfg.trainer`` or ``config["trainer"]``: the trainer part of a Hydra config.

    With ``by_name``, a plain name that says so counts too: what Hydra's
    ``instantiate`` builds from is a config (SitsSCD's ``trainer = cfg.trainer``
    handed to ``instantiate(trainer, strategy=...)``).
    """
    if isinstance(node, ast.Name):
        return by_name and "trainer" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return node.attr == "trainer"
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == "trainer"
    )


def _one_device_everywhere(mod: Module) -> bool:
    """Every trainer the tree builds runs one device: Lightning puts in no sampler anywhere.

    Through ``LightningCLI`` with one device in every shipped config
    (:func:`_cli_one_device`), or ``Trainer(devices=1)`` (``gpus=1``,
    ``devices=[0]``) at every ``Trainer(...)`` of the tree and no CLI
    (GrapheNet: ``strategy="ddp"`` commented out beside ``devices=1`` in
    each of its six training and prediction scripts).
    """
    if _cli_one_device(mod):
        return True
    trainers = [(o, c) for o in tree_modules(mod) for c in o.calls if tail(c) == "Trainer"]
    if not trainers or any(tail(c) == "LightningCLI" for o in tree_modules(mod) for c in o.calls):
        return False
    return all(_one_device_trainer(other, c) for other, c in trainers)


def _one_device_trainer(mod: Module, trainer: ast.Call) -> bool:
    """The ``Trainer(...)`` call ``trainer`` of ``mod`` runs one device on every shipped run."""
    count = argument(trainer, "devices") or argument(trainer, "gpus")
    spread = _spread_count(mod, trainer) if count is None else None
    if spread is not None and _config_entry_of_one(mod, spread):
        return True
    count = count or spread
    return (
        _single(count)
        or _one_either_way(mod, trainer, count)
        or _single(_module_constant(mod, count))
        or _cpu_when_no_gpu(mod, trainer)
        or _single_strategy(mod, trainer)
        or _one_by_default(mod, count)
        or _bound_to_one(mod, trainer, count)
        or _set_to_one_before(mod, trainer, count)
        or _dict_entries_of_one(mod, count)
        or _cpu_by_default(trainer)
        or _configs_of_one(mod, trainer)
        or _config_entries_of_one(mod, trainer)
        or _spread_entry_of_one(mod, trainer)
        or _pinned_to_one_gpu(mod, trainer, count)
        or _callers_spread_one(mod, trainer)
    )


def _callers_spread_one(mod: Module, trainer: ast.Call) -> bool:
    """Every call of the trainer's function spreads one device into it (``trainer_spreads``)."""
    counts = spread_counts_of_callers(mod, trainer)
    return counts is not None and all(c is not None and _single(c) for c in counts)


def _spread_count(mod: Module, trainer: ast.Call) -> ast.expr | None:
    """The device count a ``Trainer(**params)`` spread gives, where the dict is built here.

    NIH-ML's ``trainer_params = dict(max_epochs=...)``, updated on the cluster
    with ``gpus=self.cfg.cluster.gpus_per_node``: the count is what the
    update writes. Off that branch the trainer has no count: ``gpus=`` is
    Lightning 1.x's, whose trainer without one runs on the CPU, one process.
    A ``devices`` written only by such an update is unknown instead (Lightning
    2's default, ``"auto"``, takes every GPU), so ``None``.
    """
    spreads = [k.value for k in trainer.keywords if k.arg is None]
    if len(spreads) != 1 or not isinstance(spreads[0], ast.Name):
        return None
    gpus = spread_entry(mod, trainer, "gpus")
    devices = spread_entry(mod, trainer, "devices")
    if gpus is not None and devices is None:
        return gpus
    if devices is None:
        return None
    scope = mod.function_of(trainer) or mod.tree
    bound = values_bound_before(mod, scope, spreads[0].id, trainer.lineno)
    first = argument(bound[0], "devices") if bound and isinstance(bound[0], ast.Call) else None
    if first is None and bound and isinstance(bound[0], ast.Dict):
        first = next(
            (
                v
                for k, v in zip(bound[0].keys, bound[0].values, strict=True)
                if isinstance(k, ast.Constant) and k.value == "devices"
            ),
            None,
        )
    return devices if first is not None else None


def _one_either_way(mod: Module, trainer: ast.Call, count: ast.AST | None) -> bool:
    """``gpus=1 if on_gpu else None``: one GPU, or the CPU (``gpus=None`` or ``0``).

    transformer_infrastructure's ``Trainer(gpus=1 if on_gpu else None, ...)``:
    one process either way; deepsteganalysis's ``devices=args.training.gpus if
    args.training.gpus else 1``, its configs' ``training: gpus: [0]``, too (an
    arm may be a config entry that every config sets to one device). Only for
    ``gpus=``; ``devices=None`` takes every GPU in the 1.x releases, so a
    ``devices`` arm must itself be one device.
    """
    if not isinstance(count, ast.IfExp):
        return False
    by_gpus = argument(trainer, "devices") is None
    # ``X if X else 1``: a config value that is false (``null``, ``0``) never reaches X
    guarded = ast.dump(count.test) == ast.dump(count.body)
    return all(
        _single(arm)
        or (by_gpus and (is_constant(arm, None) or is_constant(arm, 0)))
        or (_without_a_gpu(count, arm) and _automatic(arm))
        or _config_entry_of_one(mod, arm, truthy_only=guarded and arm is count.body)
        for arm in (count.body, count.orelse)
    )


def _without_a_gpu(count: ast.IfExp, arm: ast.expr) -> bool:
    """``arm`` is taken only where no GPU is visible (``x if torch.cuda.is_available() else arm``).

    confrank's ``devices=1 if torch.cuda.is_available() else None``: on a
    machine with no GPU, Lightning's automatic count is one CPU device (and
    its ``accelerator=None`` beside it is one process or an error, never
    several).
    """
    test, without = count.test, count.orelse
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, without = test.operand, count.body
    return _asks_for_a_gpu(test) and arm is without


def _automatic(arm: ast.expr) -> bool:
    """``None``, ``"auto"``, ``0`` or ``1``: no count beyond what the accelerator gives."""
    return any(is_constant(arm, value) for value in (None, "auto", 0, 1))


def _pinned_to_one_gpu(mod: Module, trainer: ast.Call, count: ast.AST | None) -> bool:
    """The script makes one GPU visible before it builds the trainer, which asks for no more.

    HoVerClaimDecomp's ``os.environ["CUDA_VISIBLE_DEVICES"] = "3"`` at the top
    of the script, then ``Trainer()``: ``devices="auto"`` finds one GPU, one
    process. A count of several (``devices=2``) is not one device (it fails
    there); a pin inside a function counts before the trainer in that function.
    """
    if isinstance(count, ast.Constant) and count.value not in (1, -1, "auto", "1", "-1"):
        return False
    if isinstance(count, ast.List | ast.Tuple) and len(count.elts) != 1:
        return False
    home = mod.function_of(trainer)
    return any(
        where is None or (where is home and pin.lineno < trainer.lineno)
        for pin, where in _one_gpu_pins(mod)
    )


def _one_gpu_pins(mod: Module) -> list[tuple[ast.Assign, Function | None]]:
    """``os.environ["CUDA_VISIBLE_DEVICES"] = "3"`` statements of ``mod`` (read once)."""
    cached = mod.cache.get("one_gpu_pins")
    if isinstance(cached, list):
        return cached
    pins: list[tuple[ast.Assign, Function | None]] = []
    for node in mod.nodes:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        if (
            isinstance(target, ast.Subscript)
            and (dotted(target.value) or "").endswith("environ")
            and isinstance(target.slice, ast.Constant)
            and target.slice.value == "CUDA_VISIBLE_DEVICES"
            and isinstance(value, ast.Constant)
            and isinstance(value.value, str)
            and value.value.strip() != ""
            and "," not in value.value
        ):
            pins.append((node, mod.function_of(node)))
    mod.cache["one_gpu_pins"] = pins
    return pins


def _values_bound(scope: ast.AST, name: str) -> list[ast.expr]:
    """What ``name`` is bound to in ``scope``: each branch of a conditional, each unpacked part.

    ``num_workers, num_gpus = (4, 1) if cuda else (0, 0)`` binds ``num_gpus``
    to ``1`` and ``0``. A binding this cannot read (a call, a loop target)
    gives the binding's whole value, which no caller takes for a constant.
    """
    found: list[ast.expr] = []

    def parts(target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            if target.id == name:
                found.append(value)
        elif isinstance(target, ast.Tuple | ast.List):
            if isinstance(value, ast.IfExp):
                parts(target, value.body)
                parts(target, value.orelse)
            elif isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts):
                for element, part in zip(target.elts, value.elts, strict=True):
                    parts(element, part)
            elif any(isinstance(e, ast.Name) and e.id == name for e in ast.walk(target)):
                found.append(value)

    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(node.value, ast.IfExp) and isinstance(target, ast.Name):
                    parts(target, node.value.body)
                    parts(target, node.value.orelse)
                else:
                    parts(target, node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            parts(node.target, node.value)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.NamedExpr) and any(
            isinstance(e, ast.Name) and e.id == name for e in ast.walk(node.target)
        ):
            found.append(node.target)  # rebound in a way not read here
    return found


def _bound_to_one(mod: Module, trainer: ast.Call, count: ast.AST | None) -> bool:
    """``gpus=num_gpus`` where the trainer's function binds ``num_gpus`` only to 0 or 1.

    read_by_spelling_impl's ``num_workers, num_gpus = (4, 1) if
    torch.cuda.is_available() else (0, 0)``: one GPU or the CPU, one
    process either way.
    """
    if not isinstance(count, ast.Name):
        return False
    scope = mod.function_of(trainer) or mod.tree
    values = _values_bound(scope, count.id)
    return bool(values) and all(
        _single(v) or is_constant(v, 0) or is_constant(v, 1) for v in values
    )


def _set_to_one_before(mod: Module, trainer: ast.Call, count: ast.AST | None) -> bool:
    """``gpus=args.gpus`` after ``args.gpus = 1`` in a block around the trainer: one device.

    ChicksAndDNNs_ViewInvariance's ``train_simclr.py`` parses ``--gpus`` and
    then sets ``args.gpus = 1`` before building ``Trainer(gpus=args.gpus)``:
    whatever a launch line passes, one device. The last assignment of the
    attribute before the trainer, in a block that holds the trainer, decides
    (one in a branch may not run); a later one, or a ``+=``, leaves it unread.
    """
    name = dotted(count) if isinstance(count, ast.Attribute) else None
    if name is None:
        return False
    scope = mod.function_of(trainer) or mod.tree
    around = {id(a) for a in mod.ancestors(trainer)}
    before: list[ast.Assign] = []
    for node in ast.walk(scope):
        if isinstance(node, ast.AugAssign) and dotted(node.target) == name:
            return False
        if (
            isinstance(node, ast.Assign)
            and any(dotted(t) == name for t in node.targets)
            and node.lineno < trainer.lineno
        ):
            before.append(node)
    if not before:
        return False
    last = max(before, key=lambda node: (node.lineno, node.col_offset))
    # in a branch or a loop the trainer is not in, it may not have run: unknown
    return id(mod.parents.get(last)) in around and _single(last.value)


def _dict_entries_of_one(mod: Module, count: ast.AST | None) -> bool:
    """``devices=cfg["devices"]`` where every dict of the file that sets the key sets one.

    Multimodal-Emotion-Recognition's ``train_prebuilt.py``: ``DEFAULTS =
    {"devices": 1, ...}``, ``--devices`` defaulting to ``DEFAULTS["devices"]``
    and given on no shipped line, and ``cfg = {"devices": args.devices, ...}``;
    its ``train_ablation_kaggle.py`` sets ``"devices": 1`` in each of its
    dicts. A value the file writes into the key elsewhere
    (``cfg["devices"] = n``) must be one device too.
    """
    if not (
        isinstance(count, ast.Subscript)
        and isinstance(count.slice, ast.Constant)
        and isinstance(count.slice.value, str)
    ):
        return False
    key = count.slice.value
    values = [
        value
        for node in mod.nodes
        if isinstance(node, ast.Dict)
        for k, value in zip(node.keys, node.values, strict=True)
        if isinstance(k, ast.Constant) and k.value == key
    ]
    values += [
        node.value
        for node in mod.nodes
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Subscript)
        and isinstance(target.slice, ast.Constant)
        and target.slice.value == key
    ]
    return bool(values) and all(_one_value(mod, v, key) for v in values)


def _one_value(mod: Module, value: ast.expr, key: str, depth: int = 2) -> bool:
    """``1``, ``[0]``, an option every shipped run leaves at one, or ``DEFAULTS[key]`` of one."""
    if _single(value):
        return True
    if depth == 0:
        return False
    if isinstance(value, ast.Attribute):
        default = shipped_default(mod, value.attr)
        return default is not UNKNOWN and _one_value(mod, default, key, depth - 1)
    if (
        isinstance(value, ast.Subscript)
        and isinstance(value.value, ast.Name)
        and isinstance(value.slice, ast.Constant)
        and value.slice.value == key
    ):
        bound = [
            stmt.value
            for stmt in mod.tree.body
            if isinstance(stmt, ast.Assign | ast.AnnAssign)
            and isinstance(stmt.value, ast.Dict)
            and any(
                isinstance(t, ast.Name) and t.id == value.value.id
                for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
            )
        ]
        return len(bound) == 1 and any(
            isinstance(k, ast.Constant) and k.value == key and _single(v)
            for k, v in zip(bound[0].keys, bound[0].values, strict=True)
        )
    return False


#: The first Lightning release whose bare ``Trainer()`` takes every visible device.
_AUTO_DEVICES = (2, 0)


def _cpu_before_auto(mod: Module, trainer: ast.Call) -> bool:
    """A bare ``Trainer()`` of a tree pinned below Lightning 2.0: one CPU process.

    Before 2.0 a trainer naming no accelerator and no device count ran on
    the CPU (``gpus=None``); since 2.0 it takes every visible device.
    """
    pinned = lightning_pin(mod)
    return (
        pinned is not None
        and pinned < _AUTO_DEVICES
        and not trainer.args
        and not any(
            k.arg in (*_COUNTS, "accelerator", "strategy") or k.arg is None
            for k in trainer.keywords
        )
    )


def lightning_ranks(mod: Module) -> bool:
    """``mod`` builds a Lightning ``Trainer`` that may start several processes.

    Motion-prediction's ``pl.Trainer(devices="auto", accelerator="auto")``
    and cv-instance-segmentation's bare ``Trainer()``: on a host with several
    GPUs, Lightning 2.x runs DDP on all of them and its launcher runs the
    script again in each process, so whatever the script (or a data module's
    ``setup``) draws, every rank draws for itself. A trainer built for one
    device (see :func:`_one_device_trainer`) or a bare one of a tree pinned
    below 2.0 (one CPU process) starts none; so does a module that names
    only another framework's ``Trainer``.
    """
    cached = mod.cache.get("lightning_ranks")
    if isinstance(cached, bool):
        return cached
    found = any(
        tail(c) == "Trainer"
        and (mod.qualified(c.func) or "").split(".")[0] in LIGHTNING
        and not _one_device_trainer(mod, c)
        and not _cpu_before_auto(mod, c)
        for c in mod.calls
    )
    mod.cache["lightning_ranks"] = found
    return found


_COUNTS = ("devices", "gpus", "num_processes", "tpu_cores", "num_nodes")


def _module_constant(mod: Module, value: ast.AST | None) -> ast.expr | None:
    """What ``config.DEVICES`` (or ``DEVICES`` of this file) holds: a value bound once at the top.

    tesisMamogra's ``L.Trainer(devices=config.DEVICES)`` with ``DEVICES = [0]`` in
    its ``config.py``, a file of settings that names no PyTorch and so is not
    among the parsed modules: it is read from the tree (beside the importer, or
    at the walked folder's root). ``None`` where the value is not such a name.
    """
    if isinstance(value, ast.Name):  # AVAIL_GPUS = min(1, ...) at the top of this file
        top = [
            stmt.value
            for stmt in mod.tree.body
            if isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == value.id for t in stmt.targets)
        ]
        rebound = any(isinstance(n, ast.Global) and value.id in n.names for n in mod.nodes)
        return top[0] if len(top) == 1 and not rebound else None
    project = mod.cache.get("project")
    if not (
        isinstance(value, ast.Attribute)
        and isinstance(value.value, ast.Name)
        and isinstance(project, Project)
        and project.root is not None
    ):
        return None
    target = project.imports(mod.cache["module_name"]).get(value.value.id)
    if not target:
        return None
    name = project.find(target)
    tree: ast.Module | None = project.modules[name].tree if name is not None else None
    if tree is None:
        here = Path(project.paths.get(mod.cache["module_name"], "")).parent
        relative = Path(*target.split(".")).with_suffix(".py")
        for candidate in (here / relative, project.root / relative):
            key = f"settings module {candidate}"  # read once per tree and file
            if key not in project.parsed_extras:
                try:
                    project.parsed_extras[key] = ast.parse(candidate.read_text(encoding="utf-8"))
                except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
                    project.parsed_extras[key] = None
            tree = project.parsed_extras[key]
            if tree is not None:
                break
    if tree is None:
        return None
    bound = [
        stmt.value
        for stmt in tree.body
        if isinstance(stmt, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == value.attr for t in stmt.targets)
    ]
    return bound[0] if len(bound) == 1 else None


def _cpu_when_no_gpu(mod: Module, trainer: ast.Call) -> bool:
    """A ``Trainer`` naming no device count, built only when no GPU is visible: one process.

    reddit_depression's ``pl.Trainer(logger=logger)`` in the ``else`` of
    ``if torch.cuda.is_available():``: Lightning's automatic choice on a
    machine without a GPU is one CPU device.
    """
    if any(k.arg in _COUNTS or k.arg is None for k in trainer.keywords) or trainer.args:
        return False
    child: ast.AST = trainer
    for ancestor in mod.ancestors(trainer):
        if isinstance(ancestor, ast.If) and _asks_for_a_gpu(ancestor.test):
            return child in ancestor.orelse
        if isinstance(ancestor, ast.If) and (
            isinstance(ancestor.test, ast.UnaryOp)
            and isinstance(ancestor.test.op, ast.Not)
            and _asks_for_a_gpu(ancestor.test.operand)
        ):
            return child in ancestor.body
        child = ancestor
    return False


def _asks_for_a_gpu(test: ast.expr) -> bool:
    """``torch.cuda.is_available()``."""
    return isinstance(test, ast.Call) and (dotted(test.func) or "").endswith("cuda.is_available")


def _cpu_by_default(trainer: ast.Call) -> bool:
    """``Trainer(accelerator="cpu")`` naming no device count: Lightning runs one process.

    SMILES-2-vec's ``pl.Trainer(accelerator="cpu", max_epochs=...)``: the CPU
    accelerator's ``devices="auto"`` is one device; several need a count.
    """
    accelerator = argument(trainer, "accelerator")
    return (
        isinstance(accelerator, ast.Constant)
        and accelerator.value == "cpu"
        and not any(k.arg in _COUNTS or k.arg is None for k in trainer.keywords)
        and not trainer.args
    )


def _configs_of_one(mod: Module, trainer: ast.Call) -> bool:
    """``Trainer(**cfg.trainer)`` where every shipped config's trainer sets one device.

    crop-field-segmentation-ukan's ``pl.Trainer(**cfg.trainer, ...)`` with
    ``trainer: devices: [0]`` in its config (see ``cli_configs``); a count
    given beside the spread decides instead.
    """
    project = mod.cache.get("project")
    spreads = [k.value for k in trainer.keywords if k.arg is None]
    return (
        isinstance(project, Project)
        and len(spreads) == 1
        and _names_the_trainer(spreads[0])
        and not any(k.arg in _COUNTS for k in trainer.keywords)
        and one_device(project.trainer_devices)
    )


def _config_entries_of_one(mod: Module, trainer: ast.Call) -> bool:
    """Every device count the trainer is given is a config entry that every config sets to one.

    protfrag's ``devices=config["training"].get("devices", 1)``, its one config's
    ``training:`` block setting ``devices: 1`` and no launch line setting it
    otherwise. A block that leaves the key unset counts as the ``.get`` default
    (none: unknown); a single key (``cfg.devices``, an option's attribute) is
    left to the option and CLI readers. Both counts are read where both are
    given (tooth_seg's ``devices=cfg.train.devices`` with ``[0]`` beside
    ``gpus=cfg.train.multiGPU``, which Lightning 1.x lets win), and an entry
    the tree's code writes (GATrAutoregressor's ``cfg["trainer"]["devices"] =
    args.devices``) is not the configs' alone.
    """
    counts = [k.value for k in trainer.keywords if k.arg in {"devices", "gpus"}]
    return bool(counts) and all(_config_entry_of_one(mod, count) for count in counts)


def _spread_entry_of_one(mod: Module, trainer: ast.Call) -> bool:
    """``Trainer(**trainer_config)`` with ``trainer_config = config["training"]["trainer_args"]``.

    FlowNP's configs each set ``training: trainer_args: devices: 1``: the
    spread block's own count decides, as :func:`_config_entries_of_one` reads
    it (every config, a launch line naming the key, the tree's own writes).
    The name is bound once before the trainer in its scope, to a nested
    config entry, and its count is neither set by key (``trainer_config
    ["devices"] = ...``) nor through ``update`` there, nor given beside.
    """
    spreads = [k.value for k in trainer.keywords if k.arg is None]
    if len(spreads) != 1 or not isinstance(spreads[0], ast.Name):
        return False
    if any(k.arg in _COUNTS for k in trainer.keywords):
        return False
    name = spreads[0].id
    scope = mod.function_of(trainer) or mod.tree
    bound = values_bound_before(mod, scope, name, trainer.lineno)
    entry = config_entry(bound[0]) if len(bound) == 1 else None
    if entry is None or len(entry[0]) < 2 or entry[1] is not None:
        return False
    for node in ast.walk(scope):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and dotted(node.func.value) == name
            and node.func.attr in {"update", "setdefault"}
        ):
            return False
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            if (
                isinstance(target, ast.Subscript)
                and dotted(target.value) == name
                and not (
                    isinstance(target.slice, ast.Constant) and target.slice.value not in _COUNTS
                )
            ):
                return False
    return any(
        _config_entry_of_one(mod, ast.Subscript(value=bound[0], slice=ast.Constant(key)))
        for key in ("devices", "gpus")
    )


def _hydra_config(mod: Module, node: ast.AST) -> bool:
    """``node`` reads the config a ``@hydra.main(...)`` function is handed (``cfg.devices``).

    multi-scale-se3-representations' ``Trainer(devices=cfg.devices)`` in the
    function decorated ``@hydra.main(config_path="conf", config_name="config")``:
    ``cfg`` is the composed config, whose top-level ``devices:`` the tree's
    configs set (and a launch line's ``devices=4`` would override), not an
    ``argparse`` option.
    """
    root = node
    while isinstance(root, ast.Attribute | ast.Subscript | ast.Call):
        root = root.func if isinstance(root, ast.Call) else root.value
    func = mod.function_of(node)
    return (
        isinstance(root, ast.Name)
        and isinstance(func, ast.FunctionDef)
        and root.id in {a.arg for a in func.args.args}
        and any(
            isinstance(d, ast.Call) and (mod.qualified(d.func) or "") == "hydra.main"
            for d in func.decorator_list
        )
    )


#: Config values that read as false (``if cfg.gpus`` skips them).
def _config_entry_of_one(mod: Module, count: ast.AST, truthy_only: bool = False) -> bool:
    """``count`` reads a nested config entry that every shipped config sets to one device.

    ``truthy_only``: only the values that read as true are used there (the
    others take another arm); where every value read is false, the other arm
    decides (no value read at all is unknown, as ever).
    """
    entry = config_entry(count)
    project = mod.cache.get("project")
    if entry is None or not isinstance(project, Project) or not project.root:
        return False
    if len(entry[0]) < 2 and not _hydra_config(mod, count):
        return False  # args.devices: an option's, left to the option and CLI readers
    keys, default = entry
    # read once per tree: the configs, and the code's writes; cfg.trainer.devices is the
    # trainer config's own count (SeismoNN's configs/trainer/default.yaml)
    values = entry_values(project, keys, default)
    if truthy_only and values:
        values = [v for v in values if v.strip().lower() not in FALSE_VALUES]
        return not values or one_device(values)
    return one_device(values)


def _one_by_default(mod: Module, count: ast.AST | None) -> bool:
    """``devices=args.devices`` whose option defaults to one device and no launch line sets.

    KLETech-CEVI-NighttimeDehazing's ``--devices`` (``default=1``): its README commands
    run the script and none passes the flag, so every shipped run has one device. A
    script that no shipped line runs (BERT-TSC's ``train_apply.py`` with ``--num-gpus``)
    says nothing of how it is run, and keeps the finding.
    """
    if not isinstance(count, ast.Attribute):
        return False
    default = shipped_default(mod, count.attr)
    return default is not UNKNOWN and (_single(default) or is_constant(default, "1"))


def _single_strategy(mod: Module, trainer: ast.Call) -> bool:
    """``strategy=SingleDeviceStrategy(...)`` (or a name bound to one), or ``"dp"``: one process.

    Geoformer-NMR's ``strategy = SingleDeviceStrategy(device=device)`` handed to
    its ``Trainer``; DataParallel (``strategy="dp"``, ``accelerator="dp"`` or
    ``distributed_backend="dp"`` before 1.5) splits each batch over the
    devices of one process, with no sampler.
    """
    if any(
        is_constant(argument(trainer, key), "dp")
        for key in ("strategy", "accelerator", "distributed_backend")
    ):
        return True
    strategy = argument(trainer, "strategy")
    if isinstance(strategy, ast.Constant):
        return strategy.value == "single_device"
    if isinstance(strategy, ast.Name):
        scope = mod.function_of(trainer) or mod.tree
        bound = calls_bound_to(scope, strategy.id)
        return bool(bound) and all(tail(b) == "SingleDeviceStrategy" for b in bound)
    return isinstance(strategy, ast.Call) and tail(strategy) == "SingleDeviceStrategy"


def _single(count: ast.AST | None) -> bool:
    """``1``, ``[0]`` or ``(0,)``: one device; or ``min(1, torch.cuda.device_count())``.

    Pointer-Value-Retrieval's ``AVAIL_GPUS = min(1, torch.cuda.device_count())``
    caps the count at one (none on a machine without a GPU).
    """
    if (
        isinstance(count, ast.Call)
        and tail(count) == "min"
        and any(is_constant(a, 1) or is_constant(a, 0) for a in count.args)
    ):
        return True
    return is_constant(count, 1) or (
        isinstance(count, ast.List | ast.Tuple) and len(count.elts) == 1
    )


def _combined(
    mod: Module,
    stage: str,
    owner: ast.ClassDef | None = None,
    only_own: bool = False,
    models: set[str] | None = None,
) -> tuple[Module, ast.AST] | None:
    """Where a hook of ``stage`` combines over the ranks with no de-duplication.

    The hooks of ``owner`` (the model whose loader hook is read) come first,
    then those of the modules nearest ``mod`` in the tree (``retrieval.model``
    before ``generation.model`` for ``retrieval.datamodule``), and in a class
    the step hooks, which score the batches, before the epoch-end hooks.
    ``models``: the only classes whose hooks read the loader (a data module's
    models, see ``paired_models``), where the tree shows them.
    """
    here = str(mod.cache.get("module_name", "")).split(".")

    def nearness(hook: tuple[Module, ast.FunctionDef]) -> tuple[bool, int, bool]:
        other, func = hook
        there = str(other.cache.get("module_name", "")).split(".")
        shared = next(
            (i for i, (a, b) in enumerate(zip(here, there, strict=False)) if a != b),
            min(len(here), len(there)),
        )
        return other.parents.get(func) is not owner, -shared, func.name.endswith("_epoch_end")

    hooks = sorted(_scoring_hooks(mod, stage), key=nearness)
    if models is not None:  # another model's hooks read other loaders; callbacks stay
        hooks = [(other, func) for other, func in hooks if _may_read(mod, other, func, models)]
    own = [(other, func) for other, func in hooks if other.parents.get(func) is owner]
    if only_own and own:
        hooks = own  # the model handed to fit scores it, not another script's model
    for other, func in hooks:
        cls = other.parents.get(func)
        metrics: set[str] = set()
        reducing: set[str] = set()
        collections: set[str] = set()
        unfed: set[str] = set()
        if isinstance(cls, ast.ClassDef):
            metrics = _metric_attributes(other, cls)
            reducing = _metric_attributes(other, cls, _REDUCING_ON_CALL)
            reducing |= _combining_members(other, cls)
            collections = _updated_collections(cls)
            unfed = _unfed_metrics(cls)
        torchmetrics = other.imports_any(frozenset({"torchmetrics"}))
        for body in [func, *_self_calls(cls, func)]:
            # validation_step returning self.test_step(batch, split="val") scores there
            found = _combines(body, torchmetrics, metrics, reducing, collections, unfed)
            if found is not None and not scope_deduplicates(body):
                return other, found
    return None


def _may_read(mod: Module, other: Module, func: ast.FunctionDef, models: set[str]) -> bool:
    """The hook ``func`` may read a loader that only ``models`` are run with.

    A hook of one of those models (or a base of theirs), or of a class that is
    no model at all (a ``Callback``'s ``on_validation_batch_end``), may; one of
    another ``LightningModule`` may not.
    """
    name = getattr(other.parents.get(func), "name", "")
    return name in models or "LightningModule" not in lineage_of(mod, name)


def _self_calls(cls: ast.AST | None, func: Function) -> list[Function]:
    """Methods of ``cls`` (by name, subclasses' overrides included) that ``func`` calls on self."""
    if not isinstance(cls, ast.ClassDef):
        return []
    called = {
        c.func.attr
        for c in ast.walk(func)
        if isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and dotted(c.func.value) == "self"
        and c.func.attr != func.name
    }
    return [f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name in called]


def _path_of(mod: Module) -> str:
    project = mod.cache.get("project")
    if project is None:
        return "line"
    return Path(project.paths[mod.cache["module_name"]]).as_posix()


def _plain(mod: Module, call: ast.Call, unset: Set[str] = frozenset()) -> bool:
    """A loader call that names no sampler of its own (Lightning will put one in).

    The loader's class is read through the file's imports (``from
    torch_geometric.data import DataLoader as GraphDataLoader``: a
    ``DataLoader`` subclass, which Lightning rebuilds with its sampler).
    ``unset``: parameters of the enclosing helper that hold ``None`` on the
    path read (``sampler=sampler`` with ``sampler=None`` that no caller passes).
    """

    def named(node: ast.AST | None) -> bool:
        return _given(node) and not (isinstance(node, ast.Name) and node.id in unset)

    imported = (mod.qualified(call.func) or "").rpartition(".")[2]
    return (
        (tail(call) in LOADERS or imported in LOADERS or _chosen_loader_class(mod, call))
        and not named(argument(call, "sampler", 3))
        and not named(argument(call, "batch_sampler", 4))
        and not any(
            k.arg is None
            and not (isinstance(k.value, ast.Name) and k.value.id in unset)
            and _may_hold_a_sampler(mod, call, k.value)
            for k in call.keywords
        )
    )


def drops_the_padded_tail(mod: Module, loader: ast.Call) -> bool:
    """The loader drops its last partial batch, where a distributed sampler's padding lands.

    ``DistributedSampler`` (Lightning's, ``shuffle=False``, or one written by
    hand, shuffled or not) pads the index list by repeating its head at its
    end: the repeats are the last index of the last ranks' shares, which a
    loader with ``drop_last=True`` drops with the partial last batch. They
    stay only where a rank's share fills whole batches (a share a multiple of
    the batch size: about one run in ``batch_size``), and always with one
    sample per batch, so ``batch_size=1`` keeps the finding. ``drop_last`` is
    read as a keyword or from a dict literal the function spreads
    (``**params`` with ``params = {"drop_last": True, ...}``, also one that
    spreads another, ``{"batch_size": b, **cuda_kw}``: see ``spread_entry``), or
    from the ``BatchSampler`` handed in as ``batch_sampler=``.
    """
    drop_last = argument(loader, "drop_last", 7) or spread_entry(mod, loader, "drop_last")
    batch = argument(loader, "batch_size", 1) or spread_entry(mod, loader, "batch_size")
    batcher = argument(loader, "batch_sampler", 4)
    if batcher is not None:
        # berenslab's BatchSampler(sampler=..., batch_size=..., drop_last=True): its own
        batchers = [batcher] if isinstance(batcher, ast.Call) else bound_calls(mod, batcher)
        return bool(batchers) and all(
            tail(b) == "BatchSampler"
            and is_constant(argument(b, "drop_last", 2), True)
            and not is_constant(argument(b, "batch_size", 1), 1)
            for b in batchers or ()
        )
    if isinstance(drop_last, ast.Attribute):
        drop_last = _constructor_default(mod, loader, drop_last)
    return is_constant(drop_last, True) and not is_constant(batch, 1)


def _constructor_default(mod: Module, node: ast.AST, value: ast.Attribute) -> ast.expr | None:
    """``self.drop_last`` as the data module's constructor leaves it: its default, unless set.

    sylber's ``def __init__(self, ..., drop_last=True)`` keeps
    ``self.drop_last = drop_last``, which its validation loader passes on;
    no construction in the tree passes another value, and no config of the
    tree names the key. Any of those makes the value unknown.
    """
    if not (isinstance(value.value, ast.Name) and value.value.id == "self"):
        return None
    cls = next((a for a in mod.ancestors(node) if isinstance(a, ast.ClassDef)), None)
    init = next(
        (
            f
            for f in (cls.body if cls else [])
            if isinstance(f, ast.FunctionDef) and f.name == "__init__"
        ),
        None,
    )
    if cls is None or init is None:
        return None
    stored = [
        a.value
        for a in ast.walk(init)
        if isinstance(a, ast.Assign) and any(dotted(t) == f"self.{value.attr}" for t in a.targets)
    ]
    if len(stored) != 1 or not isinstance(stored[0], ast.Name):
        return None
    param = stored[0].id
    default = defaults_of(init).get(param)
    project = mod.cache.get("project")
    if default is None or not isinstance(project, Project):
        return None
    for _, site in project.call_sites(str(mod.cache.get("module_name", "")), cls.name):
        if any(k.arg is None and not _config_section(k.value) for k in site.keywords):
            return None  # **kwargs of code may carry it; a config's section is read below
        if bound_argument(site, init, param) is not None:
            return None
    if project.root is None or config_values(mod, param):
        return None  # a config of the tree sets it (or the tree cannot be read)
    return default


def _config_section(value: ast.expr) -> bool:
    """``cfg["data"]``, ``config.data``: a section of a configuration, spread into a call."""
    base = value.value if isinstance(value, ast.Subscript | ast.Attribute) else None
    words = set(name_words(dotted(base) or "")) if base is not None else set()
    return bool(words & {"cfg", "config", "conf", "configs", "hparams", "opt"})


#: Dataset classes that are iterable-style: a loader over one takes no sampler.
_ITERABLE_BASES = frozenset({"IterableDataset", "IterDataPipe", "WebDataset"})


def _iterable_dataset(mod: Module, loader: ast.Call) -> bool:
    """The loader reads a dataset of an iterable-style class: Lightning pads nothing there.

    nyumets' ``DataLoader(self.val_ds)`` with ``self.val_ds =
    TemporalIterableDataset(...)``, a subclass of monai's ``IterableDataset``:
    Lightning's sampler replacement skips loaders over iterable datasets, so
    no rank repeats a sample. The dataset must be built in the loader's class
    or function (``self.x = Cls(...)``, ``x = Cls(...)``, or inline).
    """
    dataset = argument(loader, "dataset", 0)
    if dataset is None:
        return False
    if isinstance(dataset, ast.Call):
        built = [dataset]
    else:
        name = dotted(dataset)
        func = mod.function_of(loader)
        owner = mod.parents.get(func) if func is not None else None
        scope: ast.AST = owner if isinstance(owner, ast.ClassDef) else (func or mod.tree)
        built = calls_bound_to(scope, name)
    if not built:
        return False
    return all(
        lineage_of(mod, (dotted(b.func) or "").rpartition(".")[2]) & _ITERABLE_BASES for b in built
    )


_SAMPLER_KEYS = frozenset({"sampler", "batch_sampler"})


def _may_hold_a_sampler(mod: Module, call: ast.Call, spread: ast.expr) -> bool:
    """``DataLoader(ds, **spread)``: the mapping may pass a sampler.

    A config's loader options (RFMfold's ``**self.loader_config["val"]``, a
    dict of batch size, shuffle and workers) hold plain values: a sampler is
    built over the dataset, in code. The enclosing function's own
    ``**kwargs`` (its callers' keywords) may hold one, and so may a mapping
    the function fills with a ``"sampler"`` key or a ``sampler=`` keyword
    anywhere in it.
    """
    func = mod.function_of(call)
    if (
        func is not None
        and func.args.kwarg is not None
        and isinstance(spread, ast.Name)
        and spread.id == func.args.kwarg.arg
    ):
        return True
    for node in ast.walk(func if func is not None else mod.tree):
        if isinstance(node, ast.Constant) and node.value in _SAMPLER_KEYS:
            return True
        if (
            isinstance(node, ast.Call)
            and node is not call
            and any(k.arg in _SAMPLER_KEYS for k in node.keywords)
            and tail(node) in ("dict", "update")
        ):
            return True
    return False


def _chosen_loader_class(mod: Module, call: ast.Call) -> bool:
    """``cls(...)`` with ``cls = DataLoader if not self.streaming else IterableDataLoader``.

    A loader class picked into a local name in the call's function: a call of
    that name builds a ``DataLoader`` on the arm that names one.
    """
    if not isinstance(call.func, ast.Name):
        return False
    scope = mod.function_of(call) or mod.tree
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == call.func.id for t in node.targets
        ):
            value = node.value
            arms = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
            if any(
                (mod.qualified(arm) or dotted(arm) or "").rpartition(".")[2] in LOADERS
                for arm in arms
            ):
                return True
    return False


def _unset_by(site: ast.Call, caller: Function, helper: Function) -> set[str]:
    """``helper``'s parameters that default to ``None`` and that ``site`` leaves so.

    ``self.dataloader("val", **kwargs)`` forwards the hook's own ``**kwargs``,
    which Lightning never fills; any other ``**mapping`` may pass anything.
    The helper's own ``**kwargs`` count too where ``site`` passes no sampler
    keyword and spreads nothing: TurboHopp's ``self.dataloader(val_dataset,
    batch_size=..., shuffle=True)`` into ``return DataLoader(dataset, **kwargs)``.
    """
    hook_kwargs = caller.args.kwarg.arg if caller.args.kwarg is not None else None
    for keyword in site.keywords:
        if keyword.arg is None and not (
            isinstance(keyword.value, ast.Name) and keyword.value.id == hook_kwargs
        ):
            return set()
    if any(isinstance(a, ast.Starred) for a in site.args):
        return set()
    unset = {
        name
        for name, default in defaults_of(helper).items()
        if is_constant(default, None) and bound_argument(site, helper, name) is None
    }
    spread = helper.args.kwarg.arg if helper.args.kwarg is not None else None
    if spread is not None and not any(
        k.arg in _SAMPLER_KEYS or k.arg is None for k in site.keywords
    ):
        unset.add(spread)  # the helper's **kwargs hold only what the site passes
    return unset


def _hook_loaders(
    mod: Module,
    owner: ast.ClassDef,
    func: Function,
    depth: int = 2,
    unset: Set[str] = frozenset(),
) -> list[ast.Call]:
    """Plain loaders a hook builds, itself or in a method of its class it calls.

    ``def val_dataloader(self): return self.get_dataloader("dev")``: the loader
    is built in the helper, which often serves ``train_dataloader`` too; a
    ``sampler=None`` parameter of the helper that the hook does not pass is
    no sampler.
    """
    calls = [c for c in ast.walk(func) if isinstance(c, ast.Call)]
    out = [c for c in calls if _plain(mod, c, unset)]
    out += [c for c in calls if isinstance(c.func, ast.Name) and _builds_plain_elsewhere(mod, c)]
    if depth:
        methods = {f.name: f for f in owner.body if isinstance(f, ast.FunctionDef)}
        for call in calls:
            if isinstance(call.func, ast.Attribute) and dotted(call.func.value) == "self":
                helper = methods.get(call.func.attr)
                if helper is not None and helper is not func:
                    left = _unset_by(call, func, helper)
                    out += [  # the helper's training loader (shuffle=True) is not the hook's
                        c
                        for c in _hook_loaders(mod, owner, helper, depth - 1, left)
                        if not is_constant(argument(c, "shuffle", 2), True)
                    ]
    return out


def _builds_plain_elsewhere(mod: Module, call: ast.Call) -> bool:
    """``call`` is a function of another module of the tree that returns a plain loader.

    MPTNET's ``def val_dataloader(self): return get_val_dataloader()``, imported from
    its data package, whose ``DataLoader(val_ds, batch_size=1, shuffle=False)``
    names no sampler. The call in the hook stands for the loader (the finding is
    reported there, in the hook's file); a training loader (``shuffle=True``) or
    one that drops its last batch is not the hook's evaluation.
    """
    project = mod.cache.get("project")
    if not isinstance(project, Project):
        return False
    where = project.resolve(str(mod.cache.get("module_name", "")), call)
    if where is None or where[0] == mod.cache.get("module_name"):
        return False
    other = project.modules[where[0]]
    for func in other.functions.get(where[1], []):
        returned = {
            dotted(r.value) for r in ast.walk(func) if isinstance(r, ast.Return) and r.value
        }
        for loader in (n for n in ast.walk(func) if isinstance(n, ast.Call)):
            if not _plain(other, loader) or is_constant(argument(loader, "shuffle", 2), True):
                continue
            if drops_the_padded_tail(other, loader):
                continue
            parent = other.parents.get(loader)
            if isinstance(parent, ast.Return) or (
                isinstance(parent, ast.Assign)
                and any(dotted(t) in returned for t in parent.targets)
            ):
                return True
    return False


#: Trainer calls that run an evaluation over loaders handed to them, and where.
_HANDED = {"validate": ("validation", "dataloaders"), "test": ("test", "dataloaders")}


def _handed_loaders(mod: Module) -> Iterator[tuple[ast.Call, str, ast.ClassDef | None]]:
    """Plain loaders handed to ``trainer.validate``/``trainer.test`` (or ``fit``'s validation)."""
    for call in mod.calls:
        method = trainer_method(call)
        if method is not None and after_exit(mod, call):
            continue  # the script exits before it evaluates
        if method in _HANDED:
            stage, keyword = _HANDED[method]
            handed = argument(call, keyword, 1)
        elif method == "fit":
            stage, handed = "validation", argument(call, "val_dataloaders", 2)
        else:
            continue
        if handed is None or _one_device(mod, call):
            continue  # MTL-peptide's trainer.fit on devices=args.gpus, --gpus 1 on every run
        scope = mod.function_of(call) or mod.tree
        for loader in _loaders_of(mod, scope, handed, call.lineno):
            if _plain(mod, loader) or _hook_called_by_hand(mod, loader):
                yield loader, stage, _model_class(mod, call, scope)


def _hook_called_by_hand(mod: Module, call: ast.Call) -> bool:
    """``data.test_dataloader()`` on a data module of the tree whose hook builds a plain loader.

    ExPeRT's ``trainer.test(model, dataloaders=dataset.test_dataloader(), ...)``
    with ``dataset = BrainDataModule(...)``: the hook's ``DataLoader(...,
    shuffle=False, drop_last=False)`` names no sampler, and Lightning puts its
    padding one in, as for the hook it calls itself. The call stands for the
    loader (the finding is reported there, in the script); a hook whose loader
    drops its last batch, or shuffles (a training loader), is not read as one.
    """
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in _EVAL_HOOKS):
        return False
    built = bound_calls(mod, call.func.value)
    if not built:
        return False
    names = {tail(b) for b in built}
    for other in tree_modules(mod):
        for name in names:
            for cls in other.classes.get(name, []):
                for func in cls.body:
                    if not (isinstance(func, ast.FunctionDef) and func.name == call.func.attr):
                        continue
                    if any(
                        not is_constant(argument(loader, "shuffle", 2), True)
                        and not drops_the_padded_tail(other, loader)
                        for loader in _hook_loaders(other, cls, func)
                    ):
                        return True
    return False


def _forwarded_loaders(mod: Module) -> Iterator[tuple[ast.Call, str, ast.ClassDef | None]]:
    """Plain loaders handed to a function of the tree that hands them on to a Lightning trainer.

    MSSVT's ``SegmentationTrainer(config).fit(model, [train_loader, val_loader])``,
    whose ``fit(self, model, data_module)`` builds the trainer and runs
    ``trainer.fit(model, *data_module)``: the list's second element is
    ``fit``'s validation loader. A parameter handed on whole
    (``trainer.fit(model, train, val)`` with ``val`` a parameter) reads the
    same way; the trainer is the wrapper's, so its device count is read there.
    """
    project = mod.cache.get("project")
    if not isinstance(project, Project):
        return
    names = {name for other in tree_modules(mod) for name in _trainer_runs(other)}
    for site in mod.calls:
        if tail(site) not in names:
            continue  # no function of the tree by that name runs a trainer
        where = project.resolve(mod.cache["module_name"], site)
        if where is None or where[1] in project.modules[where[0]].classes:
            continue
        other = project.modules[where[0]]
        for func, inner, stage, keyword, position in _trainer_runs(other).get(where[1], []):
            value = _forwarded_value(mod, func, site, inner, keyword, position)
            if value is None:
                continue
            scope = mod.function_of(site) or mod.tree
            for loader in _loaders_of(mod, scope, value, site.lineno):
                if _plain(mod, loader):
                    yield loader, stage, None


#: One trainer run of a function: the function, the call, its stage and where its loader goes.
_Run = tuple[Function, ast.Call, str, str, int]


def _trainer_runs(mod: Module) -> dict[str, list[_Run]]:
    """Functions of ``mod`` that run a Lightning trainer over loaders, by name (read once)."""
    cached = mod.cache.get("trainer_runs")
    if isinstance(cached, dict):
        return cached
    runs: dict[str, list[_Run]] = {}
    for inner in mod.calls:
        func = mod.function_of(inner)
        method = trainer_method(inner)
        if func is None or method is None:
            continue
        if method in _HANDED:
            stage, keyword = _HANDED[method]
            position = 1
        elif method == "fit":
            stage, keyword, position = "validation", "val_dataloaders", 2
        else:
            continue
        if after_exit(mod, inner) or _one_device(mod, inner):
            continue
        runs.setdefault(func.name, []).append((func, inner, stage, keyword, position))
    mod.cache["trainer_runs"] = runs
    return runs


def _forwarded_value(
    mod: Module, func: Function, site: ast.Call, inner: ast.Call, keyword: str, position: int
) -> ast.expr | None:
    """What ``site`` hands ``func`` that reaches ``inner``'s loader ``keyword`` (or ``position``).

    Through a parameter named there whole, or an element of a sequence spread
    there (``*data_module``): a list or tuple written at the site, or a name
    bound to one just before it.
    """
    params = set(parameters(func))
    for given in inner.keywords:
        if given.arg == keyword and isinstance(given.value, ast.Name):
            return passed_argument(func, site, given.value.id) if given.value.id in params else None
    for index, arg in enumerate(inner.args):
        if isinstance(arg, ast.Starred):
            if not (isinstance(arg.value, ast.Name) and arg.value.id in params):
                return None
            handed = passed_argument(func, site, arg.value.id)
            if isinstance(handed, ast.Name):
                scope = mod.function_of(site) or mod.tree
                bound = values_bound_before(mod, scope, handed.id, site.lineno)
                handed = bound[-1] if len(bound) == 1 else None
            if not isinstance(handed, ast.List | ast.Tuple):
                return None
            offset = position - index
            if offset >= len(handed.elts) or any(
                isinstance(e, ast.Starred) for e in handed.elts[: offset + 1]
            ):
                return None
            return handed.elts[offset]
        if index == position:
            if isinstance(arg, ast.Name) and arg.id in params:
                return passed_argument(func, site, arg.id)
            return None
    return None


def _loaders_of(mod: Module, scope: ast.AST, value: ast.expr, before: int) -> list[ast.Call]:
    """The calls ``value`` stands for at line ``before``: itself, or what its name holds.

    A name is read as bound before that line, in ``scope`` or by a helper of the
    file that returns into it: a name bound again after it (gnn-paper's
    ``valid_loader``, rebuilt for ``trainer.predict``) is another loader.
    """
    if isinstance(value, ast.Call):
        return [value]
    name = dotted(value)
    built = [b for b in calls_bound_to(scope, name) if b.lineno < before]
    return built + _built_by_helper(mod, scope, name)


def _attached_loaders(mod: Module) -> Iterator[tuple[ast.Call, str, ast.ClassDef | None]]:
    """Plain loaders a script attaches to a model as its loader hook.

    EmoNet2's ``setattr(model, "val_dataloader", lambda: val_loader)`` (or
    ``model.val_dataloader = lambda: val_loader``) before ``trainer.fit(model)``:
    Lightning calls the attribute as the hook, so the loader is padded as a
    hook's would be.
    """
    for node in mod.nodes:
        if isinstance(node, ast.Call) and tail(node) == "setattr" and len(node.args) == 3:
            model, hook, value = node.args
            if not (isinstance(hook, ast.Constant) and hook.value in _EVAL_HOOKS):
                continue
            stage = _EVAL_HOOKS[str(hook.value)]
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Attribute)
            and node.targets[0].attr in _EVAL_HOOKS
        ):
            model, stage, value = (
                node.targets[0].value,
                _EVAL_HOOKS[node.targets[0].attr],
                node.value,
            )
        else:
            continue
        if not isinstance(value, ast.Lambda):
            continue  # a hook is called: only a function returning the loader works
        scope = mod.function_of(node) or mod.tree
        owner = _class_of_binding(mod, model, scope, node.lineno)
        for loader in _loaders_of(mod, scope, value.body, node.lineno):
            if _plain(mod, loader):
                yield loader, stage, owner


def _class_of_binding(
    mod: Module, model: ast.expr, scope: ast.AST, before: int
) -> ast.ClassDef | None:
    """The class of this file ``model`` was last made from before line ``before``, if one."""
    made: ast.Call | None = model if isinstance(model, ast.Call) else None
    name = dotted(model) if made is None else None
    if name is not None:  # the last binding before the call: model = LitFNO(model)
        bindings = [c for c in calls_bound_to(scope, name) if c.lineno < before]
        made = max(bindings, key=lambda value: value.lineno) if bindings else None
    if made is None:
        return None
    classes = mod.classes.get(tail(made), [])
    return classes[0] if len(classes) == 1 else None


def _built_by_helper(mod: Module, scope: ast.AST, name: str | None) -> list[ast.Call]:
    """The calls a builder function of the file returns into ``name``.

    GATrAutoregressor's ``train_loader, val_loader = build_dataloaders(cfg)``:
    the loader at the unpacked position of ``build_dataloaders``' ``return
    train_loader, val_loader``, as bound there (or built in the return itself).
    """
    found: list[ast.Call] = []
    for node in ast.walk(scope):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        if not isinstance(node.value, ast.Call) or not isinstance(node.value.func, ast.Name):
            continue
        target = node.targets[0]
        position: int | None = None
        if isinstance(target, ast.Tuple | ast.List):
            names = [dotted(e) for e in target.elts]
            position = names.index(name) if name in names else None
            if position is None:
                continue
        elif dotted(target) != name:
            continue
        for func in mod.functions.get(node.value.func.id, []):
            if mod.function_of(func) is not None:
                continue  # a nested function: not what the name calls here
            for ret in (n for n in ast.walk(func) if isinstance(n, ast.Return)):
                value = ret.value
                if position is not None:
                    if not isinstance(value, ast.Tuple) or position >= len(value.elts):
                        continue
                    value = value.elts[position]
                if isinstance(value, ast.Call):
                    found.append(value)
                elif value is not None:
                    found += calls_bound_to(func, dotted(value))
    return found


def _model_class(mod: Module, call: ast.Call, scope: ast.AST) -> ast.ClassDef | None:
    """The class of the tree whose instance ``trainer.fit(model, ...)`` is handed, if known.

    ``model = LitFNO(net)`` then ``trainer.fit(model, train_loader, eval_loader)``;
    or a class another module defines, or the class every caller of the
    function hands in for its ``model`` parameter (ImageExpts'
    ``def train(model): ... trainer.fit(model, train_dl, test_dl)`` called
    as ``train(SiglipModel(config))``).
    """
    model = argument(call, "model", 0)
    if model is None:
        earlier = _earlier_run(mod, call, scope)
        if earlier is None:
            return None
        call, model = earlier
    return _class_of_binding(mod, model, scope, call.lineno) or _tree_class(
        mod, model, scope, call.lineno
    )


def _earlier_run(mod: Module, call: ast.Call, scope: ast.AST) -> tuple[ast.Call, ast.expr] | None:
    """The last run of the same trainer before ``call`` that names a model, and that model.

    LANoire's ``trainer.test(dataloaders=test_dataloader, ckpt_path="best")``
    names no model: Lightning tests the one ``trainer.fit(model=model, ...)``
    trained just before.
    """
    if not isinstance(call.func, ast.Attribute):
        return None
    receiver = dotted(call.func.value)
    earlier = [
        c
        for c in ast.walk(scope)
        if isinstance(c, ast.Call)
        and c.lineno < call.lineno
        and trainer_method(c) is not None
        and isinstance(c.func, ast.Attribute)
        and dotted(c.func.value) == receiver
        and argument(c, "model", 0) is not None
    ]
    if receiver is None or not earlier:
        return None
    last = max(earlier, key=lambda c: (c.lineno, c.col_offset))
    model = argument(last, "model", 0)
    return (last, model) if model is not None else None


def _tree_class(
    mod: Module, value: ast.expr, scope: ast.AST, before: int, depth: int = 1
) -> ast.ClassDef | None:
    """The one class of the tree ``value`` is an instance of, through imports and callers."""
    project = mod.cache.get("project")
    if not isinstance(project, Project):
        return None
    owner = str(mod.cache.get("module_name", ""))
    if isinstance(value, ast.Name):
        bound = [
            v for v in values_bound_before(mod, scope, value.id, before) if isinstance(v, ast.Call)
        ]
        if bound:
            value = bound[-1]
        elif (
            depth
            and isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef)
            and value.id in parameters(scope)
        ):
            found: set[int] = set()
            classes: list[ast.ClassDef] = []
            sites = project.call_sites(owner, scope.name)
            for home, site in sites:
                given = passed_argument(scope, site, value.id)
                there = project.modules[home]
                cls = (
                    None
                    if given is None
                    else _tree_class(
                        there, given, there.function_of(site) or there.tree, site.lineno, depth - 1
                    )
                )
                if cls is None:
                    return None
                found.add(id(cls))
                classes.append(cls)
            return classes[0] if classes and len(found) == 1 else None
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _SAME_MODULE
    ):
        value = value.func.value  # SiglipModel(config=config).cuda(): the same module
    if not isinstance(value, ast.Call):
        return None
    where = project.resolve(owner, value) or _through_package_init(project, owner, value)
    if where is None:
        return None
    defs = project.modules[where[0]].classes.get(where[1], [])
    return defs[0] if len(defs) == 1 else None


_EXPORT = re.compile(
    r"^[ \t]*from[ \t]+(?P<module>[\w.]+)[ \t]+import[ \t]+(?P<names>[^\n#]+)", re.M
)


def _through_package_init(project: Project, owner: str, call: ast.Call) -> tuple[str, str] | None:
    """Where a class imported from a package the tree does not parse is defined.

    ImageExpts' ``from model.siglip import SiglipModel``, whose
    ``model/siglip/__init__.py`` holds ``from model.siglip.siglip import
    SiglipModel``: the ``__init__`` (no data word, not parsed) is read for that
    one line, and the class found in the module it names.
    """
    if not isinstance(call.func, ast.Name) or project.root is None:
        return None
    target = project.imports(owner).get(call.func.id)
    package, _, name = (target or "").rpartition(".")
    if not package or project.find(package) is not None:
        return None
    init = project.root.joinpath(*package.split("."), "__init__.py")
    try:
        text = init.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for match in _EXPORT.finditer(text):
        names = {n.split()[-1] for n in match.group("names").strip("() ").split(",") if n.split()}
        if name not in names:
            continue
        module = match.group("module")
        if module.startswith("."):
            module = f"{package}{module}" if module != "." else package
        found = project.find(module)
        if found is not None and name in project.modules[found].classes:
            return found, name
    return None


#: ``nn.Module`` methods that return the module itself.
_SAME_MODULE = frozenset(
    {"cuda", "cpu", "to", "float", "half", "bfloat16", "double", "train", "eval"}
)


def lightning_padded_evaluations(mod: Module) -> Iterator[tuple[ast.Call, str]]:
    """Loaders that Lightning pads for an evaluation whose metrics are combined over ranks.

    Those ``val_dataloader``/``test_dataloader`` return, and those a script hands
    to ``trainer.validate``/``trainer.test`` (or to ``fit`` as ``val_dataloaders``).
    """
    forwarded = list(_forwarded_loaders(mod))
    if not (mod.imports_any(LIGHTNING) or forwarded):
        return  # a script that hands its loaders to a wrapper may name no Lightning package
    if replacement_off(mod) or _one_device_everywhere(mod):
        return
    found: list[tuple[ast.Call, str, ast.ClassDef | None]] = []
    handed = forwarded
    if mod.imports_any(LIGHTNING):
        for hook, stage in _EVAL_HOOKS.items():
            for func in mod.functions.get(hook, []):
                owner = mod.parents.get(func)
                if not isinstance(owner, ast.ClassDef) or never_run(mod, owner):
                    continue
                found += [(c, stage, owner) for c in _hook_loaders(mod, owner, func)]
        found += _attached_loaders(mod)
        if not _tests_run(mod):
            found = [entry for entry in found if entry[1] != "test"]
        if validation_off(mod):
            found = [entry for entry in found if entry[1] != "validation"]
        handed = list(_handed_loaders(mod)) + forwarded
    found += handed
    seen: set[int] = set()
    project = mod.cache.get("project")
    own_trainers_single = _own_trainers_single(mod)
    for loader, stage, owner in found:
        if id(loader) in seen:
            continue  # a helper that builds both the validation and the test loader
        seen.add(id(loader))
        if owner is not None and own_trainers_single:
            continue  # a script's own class, run only by the script's one-device trainers
        if owner is not None and _run_on_one_device_only(mod, owner):
            continue  # every trainer that runs this data module is built for one device
        if isinstance(project, Project) and unreached_by_callers(
            project, mod.cache["module_name"], loader
        ):
            continue  # BERT-TSC's `else` of `if early_loading:`, every caller passing True
        if drops_the_padded_tail(mod, loader):
            continue  # CGAT's drop_last=True: the repeats fall in each rank's dropped batch
        if single_process_branch(mod, loader):
            continue  # the else of ``if dist.is_initialized():``: under DDP the other arm runs
        if tail_batches_unread(mod, stage):
            continue  # limit_val_batches=0.5: each rank stops before its padded tail
        if _iterable_dataset(mod, loader):
            continue  # Lightning puts no sampler into a loader over an IterableDataset
        # a model handed to trainer.fit with the loader is the one that scores it (a
        # subclass's hooks may score a data module's loader: a base class's owner is not)
        only_own = any(entry[0] is loader for entry in handed)
        if only_own and owner is not None and _no_step_for(owner, stage):
            continue  # Thermal-Audio-Driven's border model: no validation_step, no val loop
        models = None if owner is None or only_own else paired_models(mod, owner)
        where = _combined(mod, stage, owner, only_own, models)
        if where is not None:
            other, node = where
            yield loader, f"{_path_of(other)}:{getattr(node, 'lineno', 0)}"


def _no_step_for(owner: ast.ClassDef, stage: str) -> bool:
    """``owner``, a plain ``LightningModule`` subclass, defines no step hook of ``stage``.

    Lightning skips the validation loop of a model with no ``validation_step``
    (it warns that the loaders handed in go unused), and ``trainer.test``
    refuses one with no ``test_step``: the loader handed with it is never read.
    Only a class whose every base is ``LightningModule`` itself is read (a base
    of the tree's own may define the hook).
    """
    if not owner.bases or any(
        (dotted(base) or "").rpartition(".")[2] != "LightningModule" for base in owner.bases
    ):
        return False
    hook = f"{stage}_step"
    return not any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Assign)
        and (
            getattr(node, "name", None) == hook
            or any(dotted(t) == hook for t in getattr(node, "targets", []))
        )
        for node in owner.body
    )


def _own_trainers_single(mod: Module) -> bool:
    """``mod`` is a script no module of the tree imports, and each trainer it builds is one device.

    Multimodal-Emotion-Recognition's ``train_prebuilt.py`` defines its data
    module and runs it on ``pl.Trainer(devices=cfg["devices"])``, one device on
    every shipped run, while another script of the tree trains on two: a class
    of a script that nothing imports is run by that script's trainers alone.
    """
    if importers(mod):
        return False
    trainers = [
        c
        for c in mod.calls
        if tail(c) == "Trainer" and (mod.qualified(c.func) or "").split(".")[0] in LIGHTNING
    ]
    return bool(trainers) and all(_one_device_trainer(mod, c) for c in trainers)


def _run_on_one_device_only(mod: Module, owner: ast.ClassDef) -> bool:
    """Every Trainer call of the tree that runs data module ``owner`` runs on one device.

    disinfo_experiments' ``LiarDataModule`` is fitted and tested only in
    ``classification_trainer.py``, on ``L.Trainer(..., devices=1)``, while
    another script builds a trainer whose device count is a parameter: the
    other script's count says nothing of this data module's runs. Unknown
    (the finding stays) where a run's data module cannot be read, where the
    tree runs data modules another way (a CLI, a hook called by hand), or
    where no run of it is seen.
    """
    runs = data_module_runs(mod, owner)
    if not runs or hooks_run_otherwise(mod):
        return False
    return all(_one_device(other, call) for other, call in runs)


#: Data modules of other packages whose loader hooks build loaders with no sampler
#: (torch_geometric's ``LightningDataset`` and its node and link variants).
_PLAIN_LIBRARY_MODULES = frozenset({"LightningDataset", "LightningNodeData", "LightningLinkData"})


def inherited_padded_evaluations(mod: Module) -> Iterator[tuple[ast.ClassDef, str, str]]:
    """Data modules of the tree that inherit a plain ``val_dataloader`` from a library.

    ``class AbstractDataModule(LightningDataset)`` with no ``val_dataloader`` of its
    own: torch_geometric's hook builds a loader with no sampler, which Lightning pads.
    Yields the class, the base it inherits from and where the metrics are combined.
    """
    if not mod.imports_any(LIGHTNING) or replacement_off(mod) or _one_device_everywhere(mod):
        return
    for defs in mod.classes.values():
        for cls in defs:
            bases = {(dotted(b) or "").rpartition(".")[2] for b in cls.bases}
            library = sorted(bases & _PLAIN_LIBRARY_MODULES)
            if not library or never_run(mod, cls):
                continue
            own = {f.name for f in cls.body if isinstance(f, ast.FunctionDef)}
            for hook, stage in _EVAL_HOOKS.items():
                if hook in own:
                    continue
                where = _combined(mod, stage)
                if where is not None:
                    other, node = where
                    yield (
                        cls,
                        f"{library[0]}.{hook}",
                        (f"{_path_of(other)}:{getattr(node, 'lineno', 0)}"),
                    )
                    break


#: A library data module's dataset parameters (by keyword and position) -> the stage
#: whose loader its hook builds from it (torch_geometric's ``LightningDataset``).
_LIBRARY_DATASETS = (("val_dataset", 1, "validation"), ("test_dataset", 2, "test"))


def constructed_padded_evaluations(mod: Module) -> Iterator[tuple[ast.Call, str, str]]:
    """Library data modules built directly with an evaluation set that Lightning pads.

    AutoMesh's ``LightningDataset(train_dataset=train, val_dataset=val, ...)``
    handed to a four-device ``Trainer``: torch_geometric's ``val_dataloader``
    builds a loader with no sampler, which Lightning pads. Yields the call, the
    hook and where the metrics are combined.
    """
    if not mod.imports_any(LIGHTNING) or replacement_off(mod) or _one_device_everywhere(mod):
        return
    for call in mod.calls:
        if tail(call) not in _PLAIN_LIBRARY_MODULES:
            continue
        for keyword, position, stage in _LIBRARY_DATASETS:
            given = argument(call, keyword, position)
            if given is None or is_constant(given, None):
                continue
            if (stage == "test" and not _tests_run(mod)) or (
                stage == "validation" and validation_off(mod)
            ):
                continue
            where = _combined(mod, stage)
            if where is not None:
                other, node = where
                hook = "val_dataloader" if stage == "validation" else "test_dataloader"
                yield call, hook, f"{_path_of(other)}:{getattr(node, 'lineno', 0)}"
                break


def combined_by_lightning(mod: Module, hooks: list[Function | None]) -> bool:
    """A loader a Lightning hook returns, whose scores a hook of the tree combines (ranks)."""
    names = {h.name for h in hooks if h is not None and h.name in _EVAL_HOOKS}
    if not names or (names == {"val_dataloader"} and validation_off(mod)):
        return False  # LiSu's limit_val_batches: 0: no validation runs
    stages = set(_EVAL_HOOKS.values()) - ({"validation"} if validation_off(mod) else set())
    return bool(lightning_modules(mod)) and any(
        _combined(mod, stage) is not None for stage in stages
    )
