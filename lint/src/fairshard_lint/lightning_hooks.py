"""Loaders a Lightning hook returns: Lightning shards them, unless the tree says otherwise.

``train_dataloader()`` (and the other loader hooks) of a ``LightningModule``
or ``LightningDataModule`` hand their loader to Lightning's Trainer, which
replaces a plain loader's sampler with a ``DistributedSampler`` under DDP
(``use_distributed_sampler``, ``replace_sampler_ddp`` before 2.0, on by
default) and sets its epoch. A ``DataLoader(shuffle=True)`` there reads one
share per rank, so FS103 has nothing to say, unless:

- the tree turns the replacement off (the keyword set to anything but a
  literal ``True``: a value from a config may be ``False``), and
- the hook's class is what the Trainer runs: a data module that is never
  given to ``fit``/``validate``/``test`` (only its datasets are read by
  another data module, which builds loaders of its own) returns no loader to
  Lightning, so its hooks are not run.
"""

from __future__ import annotations

import ast

from .cli_configs import read_trainer_settings, read_trainer_values
from .context import target_names
from .flow import parameters
from .names import Module, argument, bound_calls, dotted, is_constant, tail
from .project import passed_argument

__all__ = [
    "LIGHTNING",
    "config_values",
    "data_module_runs",
    "handed_to_lightning",
    "hooks_run_otherwise",
    "lightning_modules",
    "lightning_pin",
    "lightning_shards",
    "lineage_of",
    "never_run",
    "paired_models",
    "replacement_off",
    "tail_batches_unread",
    "tree_modules",
    "trainer_method",
    "validation_off",
]

_HOOKS = frozenset({"train_dataloader", "val_dataloader", "test_dataloader", "predict_dataloader"})
LIGHTNING = frozenset({"pytorch_lightning", "lightning", "lightning_fabric"})
_SWITCHES = ("use_distributed_sampler", "replace_sampler_ddp")
#: Trainer calls that run a model's or a data module's training, validation or test hooks.
_RUNS = frozenset({"fit", "validate", "test"})


def trainer_method(call: ast.Call) -> str | None:
    """The method ``call`` runs on a Lightning Trainer (``trainer.fit(...)`` gives ``"fit"``).

    The receiver is read by its name (``trainer``, ``self.trainer``, ``pl_trainer``).
    """
    if not isinstance(call.func, ast.Attribute):
        return None
    return call.func.attr if "trainer" in (dotted(call.func.value) or "").lower() else None


def lightning_pin(mod: Module) -> tuple[int, ...] | None:
    """The highest Lightning release the tree allows (``None``: read as current).

    From its requirement files, or else from its code: a ``Trainer(...)``
    given a keyword that Lightning 2.0 removed runs only on a 1.x release.
    """
    project = mod.cache.get("project")
    pins: dict[str, tuple[int, ...]] = getattr(project, "pins", None) or {}
    pinned = pins.get("pytorch-lightning") or pins.get("lightning")
    if pinned is not None:
        return pinned
    return _BEFORE_2 if _passes_removed_keywords(mod) else None


#: Trainer keywords that Lightning 2.0 removed (several were gone by 1.7 already).
_REMOVED_IN_2 = frozenset(
    {
        "gpus",
        "tpu_cores",
        "ipus",
        "num_processes",
        "distributed_backend",
        "progress_bar_refresh_rate",
        "weights_summary",
        "checkpoint_callback",
        "flush_logs_every_n_steps",
        "stochastic_weight_avg",
        "terminate_on_nan",
        "resume_from_checkpoint",
        "auto_select_gpus",
        "auto_lr_find",
        "auto_scale_batch_size",
        "track_grad_norm",
        "replace_sampler_ddp",
        "amp_backend",
        "amp_level",
        "move_metrics_to_cpu",
        "multiple_trainloader_mode",
        "log_gpu_memory",
        "process_position",
        "prepare_data_per_node",
        "weights_save_path",
        "truncated_bptt_steps",
    }
)
#: The last release line a tree that passes one of them can run.
_BEFORE_2 = (1, 9)


def _passes_removed_keywords(mod: Module) -> bool:
    """Some ``Trainer(...)`` of the tree passes a keyword Lightning 2.0 removed.

    clothes_segmentation's ``Trainer(progress_bar_refresh_rate=10, ...)``
    raises ``TypeError`` on 2.x (the keyword went in 1.7): the tree runs a
    1.x release, where a trainer naming no devices runs one CPU process.
    Read once per tree; a ``Trainer`` of a module that names no Lightning
    package (another framework's) is not read.
    """
    project = mod.cache.get("project")
    facts = getattr(project, "facts", None)
    key = "passes keywords Lightning 2.0 removed"
    if isinstance(facts, dict) and key in facts:
        return bool(facts[key])
    found = any(
        tail(c) == "Trainer" and any(k.arg in _REMOVED_IN_2 for k in c.keywords)
        for other in tree_modules(mod)
        if other.imports_any(LIGHTNING)
        for c in other.calls
    )
    if isinstance(facts, dict):
        facts[key] = found
    return found


def tree_modules(mod: Module) -> list[Module]:
    """The parsed modules of ``mod``'s tree (``mod`` alone where it is linted by itself)."""
    project = mod.cache.get("project")
    return list(project.modules.values()) if project is not None else [mod]


def replacement_off(mod: Module) -> bool:
    """Some call or config of the tree sets ``use_distributed_sampler`` (or the old name) off.

    A call's keyword set to anything but a literal ``True``; a YAML config or
    a launch line that sets it false (LiSu's ``use_distributed_sampler: False``
    in the trainer config its LightningCLI reads).
    """
    for other in tree_modules(mod):
        for call in other.calls:
            for keyword in call.keywords:
                if keyword.arg in _SWITCHES and not is_constant(keyword.value, True):
                    return True
    return any(value.lower() in _FALSE for key in _SWITCHES for value in config_values(mod, key))


_FALSE = frozenset({"false", "no", "off", "0"})


def tail_batches_unread(mod: Module, stage: str) -> bool:
    """Every trainer of the tree reads only a fraction of each rank's ``stage`` batches.

    DeepRPI's ``Trainer(limit_val_batches=0.5, limit_test_batches=0.5)``: each
    rank stops halfway through its share, and the padding Lightning's sampler
    adds is the last index of the last ranks' shares, never read. A fraction
    literal below 1 at every ``Trainer(...)`` of the tree, no config setting it
    otherwise; an integer cap says nothing of where the tail is.
    """
    key = {"validation": "limit_val_batches", "test": "limit_test_batches"}.get(stage)
    if key is None:
        return False
    trainers = [c for other in tree_modules(mod) for c in other.calls if tail(c) == "Trainer"]
    if not trainers or _config_settings(mod, key):
        return False
    for trainer in trainers:
        given = argument(trainer, key)
        if not (
            isinstance(given, ast.Constant)
            and isinstance(given.value, float)
            and 0.0 < given.value < 1.0
        ):
            return False
    return True


def validation_off(mod: Module) -> bool:
    """The tree's trainer never validates: ``limit_val_batches`` is 0 in every trainer config.

    Every trainer config of the tree sets it to 0 (LiSu's ``limit_val_batches:
    0`` in the trainer file its config names), and no launch line sets it
    otherwise, in a tree that builds its trainer only from configs
    (``LightningCLI``, no ``Trainer(`` call of its own); or every ``Trainer(``
    call passes ``limit_val_batches=0``.
    """
    project = mod.cache.get("project")
    facts: dict[str, bool] = project.facts if project is not None else {}
    if "validation off" not in facts:  # a fact of the tree: read once
        calls = [c for other in tree_modules(mod) for c in other.calls]
        trainers = [c for c in calls if tail(c) == "Trainer"]
        values = _config_settings(mod, "limit_val_batches")
        if trainers:
            off = all(_zero(argument(t, "limit_val_batches")) for t in trainers) and all(
                _zero_text(v) for v in values
            )
        else:
            cli = any(tail(c) == "LightningCLI" for c in calls)
            off = cli and bool(values) and all(_zero_text(v) for v in values)
        facts["validation off"] = off
    return facts["validation off"]


def _zero(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and not isinstance(node.value, bool) and node.value == 0


def _zero_text(value: str) -> bool:
    try:
        return float(value) == 0
    except ValueError:
        return False


def _config_settings(mod: Module, key: str) -> list[str]:
    """What each trainer config of the tree sets ``key`` to (read once; see ``cli_configs``)."""
    return _read_once(mod, key, per_config=True)


def config_values(mod: Module, key: str) -> list[str]:
    """What the tree's configs and launch lines set the trainer option ``key`` to (read once)."""
    return _read_once(mod, key, per_config=False)


def _read_once(mod: Module, key: str, per_config: bool) -> list[str]:
    project = mod.cache.get("project")
    root = getattr(project, "root", None)
    if project is None or root is None:
        return []
    cache: dict[str, list[str]] = project.config_values
    fact = f"{'settings' if per_config else 'values'} {key}"
    if fact not in cache:
        reader = read_trainer_settings if per_config else read_trainer_values
        cache[fact] = reader(root, key)
    return cache[fact]


def lightning_modules(mod: Module) -> list[Module]:
    """The modules of ``mod``'s tree (or ``mod`` alone) that import Lightning."""
    return [m for m in tree_modules(mod) if m.imports_any(LIGHTNING)]


def _classes(mod: Module) -> dict[str, list[str]]:
    """Each class of the tree by name, with the names of its bases."""
    found: dict[str, list[str]] = {}
    for other in tree_modules(mod):
        for name, defs in other.classes.items():
            for cls in defs:
                found.setdefault(name, []).extend(
                    (dotted(b) or "").rpartition(".")[2] for b in cls.bases
                )
    return found


def _lineage(name: str, classes: dict[str, list[str]]) -> set[str]:
    """``name`` and every base of it that the tree defines, by name."""
    seen: set[str] = set()
    stack = [name]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        stack.extend(classes.get(current, []))
    return seen


#: A class the Trainer runs: the module that defines it (``None`` when unknown) and its name.
Run = tuple[str | None, str]


def lineage_of(mod: Module, name: str) -> set[str]:
    """``name`` and the names of its bases that the tree (or ``mod`` alone) defines."""
    return _lineage(name, _classes(mod))


def _run_classes(mod: Module, datamodules: bool) -> set[Run] | None:
    """The classes of the data modules (or models) the tree runs with a Trainer.

    ``trainer.fit(model, datamodule=dm)`` with ``dm = MTDataModule(...)`` in the
    same function gives ``MTDataModule``; ``None`` where such an argument's
    class cannot be read (the caller's, a factory's), or where nothing is run.
    """
    found: set[Run] = set()
    classes = _classes(mod)
    runs = 0
    for other in tree_modules(mod):
        for call in other.calls:
            if trainer_method(call) not in _RUNS:
                continue
            runs += 1
            handed = argument(call, "datamodule", 1) if datamodules else argument(call, "model", 0)
            if handed is None:
                continue
            built = _built_classes(other, handed, classes)
            if built is None:
                return None
            found |= built
    if not found and datamodules and runs and not hooks_run_otherwise(mod):
        return found  # every run hands loaders, none a data module: no data module runs
    return found or None


def _built_classes(
    mod: Module, handed: ast.expr, classes: dict[str, list[str]], depth: int = 2
) -> set[Run] | None:
    """The classes whose objects ``handed`` (an argument of a Trainer call) may hold.

    ``None`` where a binding is not a call of a class the tree can name:
    ``data_modules[name](cfg)``, a class picked by a registry lookup, or held by
    a name the tree does not bind to one. A loader handed in place of a data
    module (``trainer.validate(model, loader)``) is no class's object. A
    parameter its function never binds again holds what the tree's callers
    pass for it (up to ``depth`` callers up; see :func:`_passed_classes`).
    """
    built = bound_calls(mod, handed)
    if built is None:
        return _passed_classes(mod, handed, classes, depth)
    if any(dotted(b.func) is None for b in built):
        return None
    found: set[Run] = set()
    for b in built:
        if tail(b).endswith("Loader"):
            continue
        where = _where(mod, b)
        if where[1] in classes:
            found.add(where)
            continue
        picked = _class_variable(mod, b, where[1])
        if picked is None:
            return None
        found |= {(None, name) for name in picked}
    return found


def data_module_runs(mod: Module, owner: ast.ClassDef) -> list[tuple[Module, ast.Call]] | None:
    """The Trainer calls of the tree (with their modules) that run data module ``owner``.

    ``trainer.fit(model, datamodule=data)`` with ``data = FluxDataModule()``
    runs ``FluxDataModule`` (and its bases). ``None`` where some run's data
    module cannot be read (it may be ``owner``).
    """
    classes = _classes(mod)
    runs: list[tuple[Module, ast.Call]] = []
    for other in tree_modules(mod):
        for call in other.calls:
            if trainer_method(call) not in _RUNS:
                continue
            handed = argument(call, "datamodule", 1)
            if handed is None:
                continue
            data = _built_classes(other, handed, classes)
            if data is None:
                return None
            if any(owner.name in _lineage(name, classes) for _, name in data):
                runs.append((other, call))
    return runs


def _passed_classes(
    mod: Module, handed: ast.expr, classes: dict[str, list[str]], depth: int
) -> set[Run] | None:
    """The classes of what every call site of the function passes for parameter ``handed``.

    disinfo_experiments' ``train_classifier_model(model, datamodule, ...)``
    fits ``datamodule``, which its one caller binds to ``LiarDataModule(...)``
    or one of three other data modules, branch by branch. ``None`` where the
    name is not such a parameter, the function has no call site in the tree
    (or is also handed on by name), or a site's argument cannot be read.
    """
    project = mod.cache.get("project")
    func = mod.function_of(handed)
    if (
        depth <= 0
        or project is None
        or func is None
        or not isinstance(handed, ast.Name)
        or handed.id not in parameters(func)
        or any(
            isinstance(node, ast.Name)
            and node.id == handed.id
            and not isinstance(node.ctx, ast.Load)
            for node in ast.walk(func)
        )
    ):
        return None
    sites = project.call_sites(mod.cache["module_name"], func.name)
    if not sites:
        return None
    found: set[Run] = set()
    for owner, site in sites:
        given = passed_argument(func, site, handed.id)
        if given is None:
            return None
        built = _built_classes(project.modules[owner], given, classes, depth - 1)
        if built is None:
            return None
        found |= built
    return found


def paired_models(mod: Module, owner: ast.ClassDef) -> set[str] | None:
    """The model classes (and their bases of the tree) run with data module ``owner``.

    ``trainer.fit(model, datamodule=data)`` with ``model = MultiModal()`` and
    ``data = FluxDataModule()``: only ``MultiModal``'s hooks read that data
    module's loaders, so a validation loader of it whose every model has no
    ``validation_step`` is never read, whatever another model of the tree
    combines. ``None`` where a run's data module or model cannot be read, or
    where no call read runs ``owner`` (or a subclass of it).
    """
    runs = data_module_runs(mod, owner)
    if runs is None:
        return None
    classes = _classes(mod)
    found: set[str] = set()
    for other, call in runs:
        model = argument(call, "model", 0)
        models = None if model is None else _built_classes(other, model, classes)
        if not models:
            return None
        for _, name in models:
            found |= _lineage(name, classes)
    return found or None


#: Loader hooks a script may call on a data module itself, to hand the Trainer loaders.
_LOADER_HOOKS = frozenset(
    {"train_dataloader", "val_dataloader", "test_dataloader", "predict_dataloader"}
)


def hooks_run_otherwise(mod: Module) -> bool:
    """The tree runs data modules another way: a ``LightningCLI``, or a loader hook called.

    ``trainer.fit(model, dm.train_dataloader(), dm.val_dataloader())`` hands
    loaders that a data module's hooks built; a CLI builds the data module a
    config names. Only where neither appears does a tree whose every run
    hands loaders run no data module (GATrAutoregressor's
    ``PFAutoRegressorDataModule``, beside the loaders ``train_lightning.py``
    builds and hands to ``fit``).
    """
    for other in tree_modules(mod):
        for call in other.calls:
            name = tail(call)
            if name == "LightningCLI" or name.endswith("CLI"):
                return True
            if name in _LOADER_HOOKS and isinstance(call.func, ast.Attribute):
                receiver = dotted(call.func.value)
                if receiver not in ("self", "super()") and not isinstance(
                    call.func.value, ast.Call
                ):
                    return True
                if isinstance(call.func.value, ast.Call) and tail(call.func.value) != "super":
                    return True
    return False


def _class_variable(mod: Module, call: ast.Call, name: str) -> set[str] | None:
    """The classes ``name`` is bound to in ``call``'s function (``model_class = TSPModel``).

    ``None`` where a binding is not a plain class name.
    """
    scope = mod.function_of(call) or mod.tree
    values = [
        node.value
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign) and any(dotted(t) == name for t in node.targets)
    ]
    names = {dotted(v) for v in values if isinstance(v, ast.Name | ast.Attribute)}
    if not values or len(names) != len(values) or None in names:
        return None
    return {n.rpartition(".")[2] for n in names if n is not None}


def _where(mod: Module, call: ast.Call) -> Run:
    """The module and name of the class ``call`` builds (the module where the tree knows).

    ``DataModule.from_argparse_args(args)`` and ``Model.load_from_checkpoint(path)``,
    Lightning's constructors, build the class they are called on.
    """
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and (func.attr.startswith("from_") or func.attr == "load_from_checkpoint")
        and isinstance(func.value, ast.Name | ast.Attribute)
    ):
        return (None, (dotted(func.value) or "").rpartition(".")[2])
    name = (dotted(func) or "").rpartition(".")[2]
    project = mod.cache.get("project")
    found = project.resolve(mod.cache["module_name"], call) if project is not None else None
    return (found[0], found[1]) if found is not None else (None, name)


def lightning_shards(mod: Module, call: ast.Call) -> bool:
    """``call`` builds a Lightning hook's loader, which Lightning shards (or never runs)."""
    func = mod.function_of(call)
    if func is None or func.name not in _HOOKS or not mod.imports_any(LIGHTNING):
        return False
    owner = mod.parents.get(func)
    if not isinstance(owner, ast.ClassDef):
        return False
    if not replacement_off(mod):
        return True
    return never_run(mod, owner)


def handed_to_lightning(mod: Module, call: ast.Call) -> bool:
    """The loader ``call`` builds goes to a Lightning trainer's ``fit`` (or ``validate``...).

    GeoEdit's ``trainer.fit(model, train_loader)`` under ``accelerate launch``
    (torchrun's variables, which Lightning reads): the Trainer puts a
    ``DistributedSampler`` into the loader and sets its epoch, as it does for
    a hook's loader, unless the tree turns the replacement off.
    """
    if not mod.imports_any(LIGHTNING) or replacement_off(mod):
        return False
    names = set(target_names(mod, call))
    scope = mod.function_of(call)
    for other in mod.calls:
        if trainer_method(other) not in _RUNS | {"predict"} or mod.function_of(other) is not scope:
            continue
        handed = [*other.args, *(k.value for k in other.keywords)]
        if any(arg is call or dotted(arg) in names for arg in handed):
            return True
    return False


def never_run(mod: Module, owner: ast.ClassDef) -> bool:
    """No Trainer of the tree runs ``owner`` (nor a subclass): its hooks are never called.

    ``False`` where it may be run, or where what the Trainer is given cannot be read.
    """
    classes = _classes(mod)
    datamodule = any(base.endswith("DataModule") for base in _lineage(owner.name, classes))
    run = _run_classes(mod, datamodule)
    if run is None:
        return False
    here = mod.cache.get("module_name")
    for module, cls in run:
        if cls == owner.name and (module is None or module == here):
            return False  # the class itself (where the tree knows its module, that module)
        if owner.name in _lineage(cls, classes) - {cls}:
            return False  # a base of the class run: its hooks are inherited
    return True
