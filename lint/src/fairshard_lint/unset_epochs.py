"""Epochs that no code of the project sets, and samplers hidden from the framework (FS101).

NOTE (the class): the epoch loop is not always in the linted code. A model
library builds ``DistributedSampler(dataset)`` in its ``get_data_loader``
hook and hands the loader to an external trainer package, whose loop the
linter never sees (coqui TTS: its ``trainer`` package iterates the loader
every epoch and calls ``set_epoch`` nowhere). FS101's loop check has
nothing to look at there. What the linter can see is that nothing in the
whole tree ever names ``set_epoch``: then no code of the project advances
the sampler, and unless the framework that iterates it does, every epoch
repeats each rank's order (:func:`unset_in_the_project`). Frameworks known
to call ``set_epoch`` on the samplers of the loaders they run (Lightning,
accelerate, transformers' and trl's trainers, SpeechBrain, composer,
ignite, mmengine/mmcv, catalyst, fairseq, detectron2's own samplers) are
taken to do it: a tree that imports one anywhere is left alone (any
file's text: the script that hands the loader on may name no data word).
Lightning does it only through the ``sampler`` attribute of the loader it
gets, so a wrapper class that hides it loses the epoch there too
(:func:`hidden_from_the_framework`). Only when a folder is linted (the
whole tree is known); a file on its own says nothing of the rest.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from .context import context_of, training_split_loop
from .flow import LOADERS, needs_set_epoch, spread_entry
from .lightning_hooks import LIGHTNING, lineage_of, tree_modules
from .loops import unsynced_loops
from .names import Module, argument, calls_bound_to, dotted, is_constant, tail
from .project import Project, evaluation_caller, importers, training_site

__all__ = [
    "EPOCH_SETTING_FRAMEWORKS",
    "epoch_frameworks_in",
    "epochs_set_past_the_batch_sampler",
    "batch_samplers_out_of_reach",
    "hidden_from_the_framework",
    "loops_over_epochs",
    "unprepared_trainer_loaders",
    "unset_in_the_project",
]

#: Packages whose loops call ``set_epoch`` on the samplers of the loaders they run.
EPOCH_SETTING_FRAMEWORKS = frozenset(
    {
        "pytorch_lightning",
        "lightning",
        "lightning_fabric",
        "accelerate",
        "speechbrain",
        "composer",
        "ignite",
        "mmengine",
        "mmcv",
        "catalyst",
        "fairseq",
        "detectron2",
    }
)


_FRAMEWORK_IMPORT = re.compile(
    r"^[ \t]*(?:from|import)[ \t]+(" + "|".join(sorted(EPOCH_SETTING_FRAMEWORKS)) + r")\b", re.M
)
#: transformers and trl run loaders only through their trainers (their models are no loop).
_TRAINER_IMPORT = re.compile(
    r"^[ \t]*from[ \t]+(transformers|trl)\b[^\n]*\b\w*Trainer\b|\b(transformers|trl)\.\w*Trainer\b",
    re.M,
)


def epoch_frameworks_in(source: str) -> set[str]:
    """The loader-running frameworks that ``source`` imports (its text, not parsed)."""
    found = {match.group(1) for match in _FRAMEWORK_IMPORT.finditer(source)}
    found.update(m.group(1) or m.group(2) for m in _TRAINER_IMPORT.finditer(source))
    return found


def _hook_of_an_outside_loop(project: Project, mod: Module, call: ast.Call) -> bool:
    """``call`` sits in a method that only code outside the tree calls (a trainer's hook).

    ``def get_data_loader(self, ...)`` of a model class, called by an external
    trainer: no call in the tree names the method, except ``self.<method>()``
    in methods (of any class: a base class's ``get_data_loader`` calling the
    subclass's ``self.get_sampler``) that nothing in the tree names either,
    two levels up. A function the tree calls otherwise hands its loader to
    code the linter reads, whose loop FS101's loop check sees; constructors
    and protocol methods (``__init__``, ``__iter__``) are no hooks.
    """
    func = mod.function_of(call)
    owner = mod.parents.get(func) if func is not None else None
    if func is None or not isinstance(owner, ast.ClassDef) or func.name.startswith("__"):
        return False
    frontier, seen = {func.name}, set()
    for _ in range(2):
        callers: set[str] = set()
        for home, site in (pair for named in frontier for pair in project.calls_named(named)):
            caller = project.modules[home].function_of(site)
            if not (dotted(site.func) or "").startswith("self.") or caller is None:
                return False  # called from elsewhere in the tree
            callers.add(caller.name)
        seen |= frontier
        frontier = callers - seen
        if not frontier:
            return True
    return False


def _names_set_epoch(project: Project) -> bool:
    """Some file of the tree names ``set_epoch`` (a call, a method, an attribute)."""
    if "names_set_epoch" not in project.facts:
        project.facts["names_set_epoch"] = any(
            "set_epoch" in other.identifiers for other in project.modules.values()
        )
    return project.facts["names_set_epoch"]


def _builds_epoch_bound_sampler(project: Project) -> bool:
    """Some file of the tree builds a shuffling distributed sampler that needs ``set_epoch``."""
    if "epoch_bound_sampler" not in project.facts:
        project.facts["epoch_bound_sampler"] = any(
            needs_set_epoch(other, call)
            for other in project.modules.values()
            for call in other.calls
        )
    return project.facts["epoch_bound_sampler"]


#: ``for epoch in range(...)``, ``for ep, batch in ...``, ``while epoch < n``,
#: ``while self.epoch <= ...``.
_EPOCH_LOOP = re.compile(
    r"^[ \t]*(?:for[ \t]+[\w, ()]*\b(?:ep|\w*epoch\w*)\b[\w, ()]*[ \t]+in[ \t]"
    r"|while[ \t][^\n:]*epoch)",
    re.M | re.I,
)


def loops_over_epochs(source: str) -> bool:
    """``source`` holds a loop over epochs (its text, not parsed)."""
    return bool(_EPOCH_LOOP.search(source))


def _loop_reported_near(project: Project, mod: Module) -> bool:
    """FS101's loop check reports a loop in ``mod`` or within two imports of it.

    Either way round: ``train.py`` iterating the loader that ``data.py``'s
    builder makes (it imports ``data``), a script whose sampler a trainer
    module it imports iterates, or a trainer that a script beside the builder
    imports. That loop is the finding for the sampler: it is not named twice.
    Two modules that only share a dependency are not near: NLPLab's
    ``gpt2train.py`` and ``pretrain-lm.py`` both import ``nli.utils``, and the
    loop of the one iterates none of the other's loaders.
    """
    start: str = mod.cache["module_name"]

    def imported_by(name: str) -> list[str]:
        return [o for o in project.modules if o != name and project.imports_module(name, o)]

    def importers_of(name: str) -> list[str]:
        return [o for o in project.modules if o != name and project.imports_module(o, name)]

    near = {start}
    for importer in importers_of(start):
        near.update((importer, *imported_by(importer), *importers_of(importer)))
    for imported in imported_by(start):
        near.update((imported, *imported_by(imported)))
    return any(unsynced_loops(project.modules[n]) for n in near)


def _trained_in_the_tree(project: Project, mod: Module, call: ast.Call) -> bool:
    """The tree's own training code reaches ``call`` and runs epochs, its loop out of sight.

    NOTE (the class): a builder of the tree (``get_dataset(..., distributed)``)
    makes the sampler, a trainer class keeps the loader on ``self`` and a base
    class's epoch loop in another module calls the method that iterates it
    (Integrated-Design-Diffusion-Model's trainers; clear-diffusion's loaders in
    a dict handed to ``Trainer.fit``). FS101's loop check follows none of that,
    yet with ``set_epoch`` named nowhere in the tree no path can advance the
    sampler. Reported where a call site whose names say training reaches the
    sampler (an evaluation site too does not clear it: the builder serves
    both), the tree loops over epochs somewhere, and no loop of the sampler's
    own module is reported already.
    """
    name = mod.cache["module_name"]
    verdict = context_of(mod, call)
    if verdict == "eval" or not project.epoch_loops or _loop_reported_near(project, mod):
        return False
    if mod.function_of(call) is not None and not importers(mod) and not _runs_itself(mod):
        # a module no file imports (cloud-phase-prediction's data_utils_ddp.py beside the
        # data_utils.py its scripts import): callers of the same names call the other one
        return False
    if training_site(project, name, call) is not None:
        return True
    named_for_training = verdict == "train" or training_split_loop(mod, call) is not None
    return named_for_training and _called_in_the_tree(project, mod, call)


def _called_in_the_tree(project: Project, mod: Module, call: ast.Call) -> bool:
    """Code of the tree runs ``call``: it sits at module level, or its function is called.

    A constructor counts as called where the tree names its class; a sampler
    in a function no code of the tree calls is built by no path it ships.
    """
    func = mod.function_of(call)
    if func is None:
        return True
    named = func.name
    owner = mod.parents.get(func)
    if named == "__init__" and isinstance(owner, ast.ClassDef):
        named = owner.name
    return bool(project.calls_named(named))


def _runs_itself(mod: Module) -> bool:
    """The module runs code of its own when run: a call at module level or under a main guard."""
    return any(
        isinstance(stmt, ast.Expr | ast.If) and any(isinstance(n, ast.Call) for n in ast.walk(stmt))
        for stmt in mod.tree.body
    )


def unset_in_the_project(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    """Shuffling distributed samplers for training, where no code of the tree sets an epoch."""
    project = mod.cache.get("project")
    if project is None or not project.whole_tree:
        return  # a file on its own says nothing of the rest of the tree
    if project.frameworks:
        return  # a framework of the tree may run this loader and set its epoch
    candidates = [call for call in mod.calls if needs_set_epoch(mod, call)]
    if not candidates or _names_set_epoch(project):
        return  # the cheap tests first: the searches below walk the whole tree
    name = mod.cache["module_name"]
    hooks = [
        call
        for call in candidates
        if context_of(mod, call) != "eval"
        and _hook_of_an_outside_loop(project, mod, call)
        # a neutral builder that an evaluation reaches: its order is no epoch's
        and evaluation_caller(project, name, call) is None
    ]
    if any(unsynced_loops(other) for other in project.modules.values()):
        hooks = []  # FS101's loop check already names the loop that repeats its order
    samplers = [
        call for call in candidates if call in hooks or _trained_in_the_tree(project, mod, call)
    ]
    for call in samplers:
        where = "(here, one outside this code)" if call in hooks else "(the training's epoch loop)"
        yield (
            call,
            (
                f"{ast.unparse(call.func)}(...) shuffles, and no code of this project calls "
                f"set_epoch: the loop that iterates it {where} repeats "
                "each rank's order every epoch; call loader.sampler.set_epoch(epoch) at "
                "every epoch (or build a fairshard sampler with auto_epoch=True)"
            ),
        )


#: Frameworks that set the epoch through ``loader.sampler`` (or ``loader.batch_sampler``)
#: of the loader object they are handed: Lightning's fit loop (``_set_sampler_epoch``).
_SAMPLER_ATTRIBUTE_FRAMEWORKS = LIGHTNING
_EXPOSED = frozenset({"sampler", "batch_sampler"})


def hidden_from_the_framework(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    """A loader wrapper class of the tree that keeps its sampler where Lightning cannot see it.

    NOTE (the class): Lightning sets each epoch through the ``sampler`` (or
    ``batch_sampler.sampler``) attribute of the object a ``*_dataloader`` hook
    returns. A class of the project that takes ``sampler=``, builds a real
    ``DataLoader`` with it inside (``self.dataloader = DataLoader(...,
    sampler=sampler)``) and exposes neither attribute is iterated by Lightning
    with the epoch never set: a shuffling ``DistributedSampler`` handed to it
    repeats each rank's order every epoch (uni2ts's ``DataLoader`` wrapper).
    Reported at the inner loader, only in a folder linted as a whole that uses
    Lightning, builds a shuffling distributed sampler somewhere, and names
    ``set_epoch`` nowhere.
    """
    project = mod.cache.get("project")
    if project is None or not project.whole_tree:
        return
    if not project.frameworks & _SAMPLER_ATTRIBUTE_FRAMEWORKS:
        return
    if _names_set_epoch(project):
        return
    if not _builds_epoch_bound_sampler(project):
        return
    for classes in mod.classes.values():
        for cls in classes:
            inner = _hiding_loader(mod, cls)
            if inner is not None:
                yield (
                    inner,
                    (
                        f"{cls.name} keeps its loader's sampler out of sight (no .sampler or "
                        ".batch_sampler): Lightning sets each epoch through those attributes and "
                        "nothing in this project calls set_epoch, so a shuffling "
                        "DistributedSampler handed to it repeats each rank's order every epoch; "
                        "expose it (self.sampler = sampler) or call sampler.set_epoch(epoch)"
                    ),
                )


def batch_samplers_out_of_reach(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    """A distributed sampler handed to a loader as its ``batch_sampler``, under Lightning.

    Lightning sets each epoch on the loader's ``sampler`` and on its
    ``batch_sampler.sampler``, never on the ``batch_sampler`` itself: LiSu's
    ``batch_sampler=DistributedProxySampler(BatchSampler(...))`` (ignite's proxy,
    which seeds each epoch's draw from its own epoch) keeps epoch 0, and every
    epoch gives the same batches. Only in a folder linted as a whole that uses
    Lightning and names ``set_epoch`` nowhere.
    """
    project = mod.cache.get("project")
    if project is None or not project.whole_tree:
        return
    if not project.frameworks & _SAMPLER_ATTRIBUTE_FRAMEWORKS or _names_set_epoch(project):
        return
    for call in mod.calls:
        if tail(call) not in LOADERS:
            continue
        given = argument(call, "batch_sampler", 2) or spread_entry(mod, call, "batch_sampler")
        for sampler in _batch_sampler_calls(mod, call, given):
            yield (
                sampler,
                (
                    f"{tail(sampler)}(...) is this loader's batch_sampler: Lightning sets the "
                    "epoch of the loader's sampler and of batch_sampler.sampler, not of the "
                    "batch sampler itself, and nothing in this project calls set_epoch, so "
                    "every epoch repeats each rank's batches; call "
                    "loader.batch_sampler.set_epoch(epoch) at each epoch (a callback's "
                    "on_train_epoch_start), or use a fairshard batch sampler with "
                    "auto_epoch=True"
                ),
            )


def _batch_sampler_calls(
    mod: Module, loader: ast.Call, given: ast.expr | None
) -> Iterator[ast.Call]:
    """The epoch-bound batch samplers ``given`` builds: in place, or bound to its name.

    An ignite-style wrapper (:func:`_epoch_bound_wrapper`), or a training
    batch sampler that is itself a shuffling distributed sampler: a class of
    the tree derived from ``DistributedSampler`` that yields batches (gated-e2t's
    ``GLIMSampler(DistributedSampler)``, seeded by ``self.seed + self.epoch``,
    bound to ``train_sampler`` in ``train_dataloader`` and handed on as
    ``batch_sampler=train_sampler``). Evaluation samplers are left alone:
    their order does not matter; so are names bound more than once.
    """
    if given is None:
        return
    scope = mod.function_of(loader) or mod.tree
    built = [given] if isinstance(given, ast.Call) else calls_bound_to(scope, dotted(given))
    if not isinstance(given, ast.Call) and (len(built) != 1 or _stores(scope, given) != 1):
        return  # rebound (AVSL's ``sorter = DistributedSamplerWrapper(sorter)`` on several
        # devices only): which binding the loader gets depends on the branch taken
    for sampler in built:
        if context_of(mod, sampler) == "eval":
            continue  # an evaluation's order does not matter
        if _epoch_bound_wrapper(sampler) or (
            _epoch_seeded_subclass(mod, sampler)
            and not is_constant(argument(sampler, "shuffle"), False)
        ):
            yield sampler


def _stores(scope: ast.AST, name: ast.expr) -> int:
    """How many times ``scope`` binds the dotted name ``name`` (any assignment target)."""
    wanted = dotted(name)
    return sum(
        isinstance(node, ast.Name | ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and dotted(node) == wanted
        for node in ast.walk(scope)
    )


def _epoch_seeded_subclass(mod: Module, call: ast.Call) -> bool:
    """``call`` builds a class of the tree derived from ``DistributedSampler`` that reads its epoch.

    Its own ``__iter__`` reads ``self.epoch`` (``g.manual_seed(self.seed +
    self.epoch)``): only ``set_epoch`` moves it. The class is looked up in the
    module, else through the project's imports.
    """
    project = mod.cache.get("project")
    where = (
        project.resolve(mod.cache["module_name"], call) if isinstance(project, Project) else None
    )
    home = project.modules[where[0]] if isinstance(project, Project) and where else mod
    for cls in home.classes.get(where[1] if where else tail(call), []):
        if not any(
            (dotted(base) or "").rpartition(".")[2] == "DistributedSampler" for base in cls.bases
        ):
            continue
        for item in cls.body:
            if (
                isinstance(item, ast.FunctionDef)
                and item.name == "__iter__"
                and any(
                    isinstance(node, ast.Attribute)
                    and node.attr == "epoch"
                    and dotted(node.value) == "self"
                    for node in ast.walk(item)
                )
            ):
                return True
    return False


def _set_epoch_calls(project: Project) -> Iterator[tuple[str, Module, ast.Call]]:
    """Every ``X.set_epoch(...)`` call of the tree, with its module's path."""
    for name, other in project.modules.items():
        if "set_epoch" not in other.identifiers:
            continue
        for call in other.calls:
            if isinstance(call.func, ast.Attribute) and call.func.attr == "set_epoch":
                yield project.paths.get(name, name), other, call


def _only_guarded_loader_samplers(project: Project) -> bool:
    """Some call sets an epoch, and each goes through a guarded ``loader.sampler``."""
    key = "set_epoch only on guarded loader samplers"
    if key not in project.facts:
        calls = list(_set_epoch_calls(project))
        project.facts[key] = bool(calls) and all(
            _guarded_loader_sampler_call(other, call) for _, other, call in calls
        )
    return project.facts[key]


def _guarded_loader_sampler_call(mod: Module, call: ast.Call) -> bool:
    """``loader.sampler.set_epoch(e)`` under a test of that attribute, or in a ``try``.

    The receiver is a loader's own ``sampler`` attribute (not ``self.sampler``,
    which may be the distributed sampler itself, nor ``batch_sampler.sampler``),
    and the call only runs where an ``if`` that names ``sampler``
    (``isinstance(loader.sampler, DistributedSampler)``, ``hasattr(...)``) lets
    it, or inside a ``try``: on a loader built with ``batch_sampler=`` it
    then does nothing, where unguarded it would stop the run at once.
    """
    assert isinstance(call.func, ast.Attribute)
    receiver = call.func.value
    if not (isinstance(receiver, ast.Attribute) and receiver.attr == "sampler"):
        return False
    holder = dotted(receiver.value)
    if holder is None or holder == "self" or holder.endswith("batch_sampler"):
        return False
    node: ast.AST | None = mod.parents.get(call)
    while node is not None and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        if isinstance(node, ast.Try):
            return True
        if isinstance(node, ast.If) and "sampler" in ast.unparse(node.test):
            return True
        node = mod.parents.get(node)
    return False


def _wrapped_samplers(mod: Module, loader: ast.Call) -> Iterator[ast.Call]:
    """Shuffling distributed samplers handed to ``loader`` only inside its ``batch_sampler``.

    ``DataLoader(ds, batch_sampler=MultiplyBatchSampler(train_sampler, 64))``
    with ``train_sampler = DistributedSampler(ds, shuffle=True)`` in the same
    function (or built in place), the sampler handed to no loader as ``sampler=``.
    """
    given = argument(loader, "batch_sampler")
    scope = mod.function_of(loader) or mod.tree
    if given is None:
        return
    wrappers = [given] if isinstance(given, ast.Call) else calls_bound_to(scope, dotted(given))
    for wrapper in wrappers:
        if needs_set_epoch(mod, wrapper):
            continue  # the batch sampler is the distributed one (Lightning's rule reads it)
        for value in [*wrapper.args, *(k.value for k in wrapper.keywords)]:
            name = dotted(value)
            built = [value] if isinstance(value, ast.Call) else calls_bound_to(scope, name)
            for sampler in built:
                if not needs_set_epoch(mod, sampler) or context_of(mod, sampler) == "eval":
                    continue
                if name is not None and any(
                    (own := argument(c, "sampler")) is not None and dotted(own) == name
                    for c in mod.calls
                    if tail(c) in LOADERS
                ):
                    continue  # also a loader's own sampler: its set_epoch may reach it
                yield sampler


def epochs_set_past_the_batch_sampler(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    """A distributed sampler inside a loader's ``batch_sampler``, set through ``loader.sampler``.

    NOTE (the class): a ``DataLoader`` built with ``batch_sampler=`` has a
    default ``SequentialSampler`` as its ``sampler`` attribute. bartali wraps
    its shuffling ``DistributedSampler`` in a batch sampler of its own and sets
    the epoch with ``if isinstance(dataloader.sampler, DistributedSampler):
    dataloader.sampler.set_epoch(epoch)``: the test is always false, and every
    epoch repeats each rank's order. Reported when every ``set_epoch`` call of
    the tree goes through a loader's ``sampler`` attribute under such a guard
    (one through ``batch_sampler.sampler`` or the sampler's own name may reach
    it), in a folder linted as a whole that no epoch-setting framework runs.
    """
    project = mod.cache.get("project")
    if project is None or not project.whole_tree or project.frameworks:
        return
    if not _names_set_epoch(project) or not _only_guarded_loader_samplers(project):
        return
    path, _, first = next(_set_epoch_calls(project))
    where = f"{path}:{first.lineno}"
    for loader in mod.calls:
        if tail(loader) not in LOADERS:
            continue
        for sampler in _wrapped_samplers(mod, loader):
            yield (
                sampler,
                (
                    f"{ast.unparse(sampler.func)}(...) reaches its loader only inside a "
                    "batch_sampler, so the loader's .sampler is a SequentialSampler and this "
                    f"project's guarded loader.sampler.set_epoch ({where}) never reaches it: "
                    "every epoch repeats each rank's order; call "
                    "loader.batch_sampler.sampler.set_epoch(epoch) (or keep the sampler and "
                    "call its set_epoch) at every epoch"
                ),
            )


#: Distributed samplers that wrap another sampler and draw each epoch from their epoch.
_DISTRIBUTED_WRAPPERS = frozenset({"DistributedProxySampler", "DistributedSamplerWrapper"})


def _epoch_bound_wrapper(call: ast.Call) -> bool:
    """A shuffling ``DistributedProxySampler`` (ignite) or ``DistributedSamplerWrapper``."""
    return tail(call) in _DISTRIBUTED_WRAPPERS and not is_constant(argument(call, "shuffle"), False)


def _hiding_loader(mod: Module, cls: ast.ClassDef) -> ast.Call | None:
    """The ``DataLoader(..., sampler=<the sampler parameter>)`` a wrapper hides, if any."""
    if any((dotted(base) or "").endswith("DataLoader") for base in cls.bases):
        return None  # a DataLoader subclass: its own .sampler is what Lightning reads
    methods = [node for node in cls.body if isinstance(node, ast.FunctionDef)]
    if {m.name for m in methods} & _EXPOSED or "__iter__" not in {m.name for m in methods}:
        return None
    stored = {
        target.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Attribute) and dotted(target.value) == "self"
    }
    if stored & _EXPOSED or "__getattr__" in {m.name for m in methods}:
        return None
    init = next((m for m in methods if m.name == "__init__"), None)
    if init is None or "sampler" not in {a.arg for a in init.args.args + init.args.kwonlyargs}:
        return None
    for node in ast.walk(init):
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        call = node.value
        # ``DataLoader`` or an alias of it (``from torch.utils.data import DataLoader as
        # TorchDataLoader``, beside the wrapper's own class of that name)
        if (mod.qualified(call.func) or "").rpartition(".")[2] not in LOADERS:
            continue
        given = argument(call, "sampler", 3)
        if isinstance(given, ast.Name) and given.id == "sampler":
            return call
    return None


#: The transformers releases whose ``Trainer`` set the epoch of a plain ``DataLoader``'s
#: ``DistributedSampler`` itself (``train_dataloader.sampler.set_epoch(epoch)``: up to 4.30).
_TRAINER_SET_SAMPLER_EPOCHS_UP_TO = (4, 30, 10**6)
_TRAINER_PACKAGES = frozenset({"transformers", "trl"})


def _trainer_subclass(mod: Module, cls: ast.ClassDef) -> bool:
    """``cls`` descends from a ``*Trainer`` class the tree does not define (transformers')."""
    tree_classes = {name for other in tree_modules(mod) for name in other.classes}
    return any(
        name.endswith("Trainer") and name not in tree_classes for name in lineage_of(mod, cls.name)
    )


def unprepared_trainer_loaders(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    """A transformers ``Trainer`` subclass whose training loader its loop never advances.

    NOTE (the class): ``get_train_dataloader`` overridden to return a plain
    ``DataLoader`` with a shuffling ``DistributedSampler`` (pyreft's
    distributed trainer). From transformers 4.31 the Trainer no longer calls
    ``loader.sampler.set_epoch``: it prepares its own loader with accelerate in
    ``get_train_dataloader``, and from 4.35 calls ``set_epoch`` only on a loader
    object that has one (a ``DataLoader`` has none), so an override that skips
    ``self.accelerator.prepare`` repeats each rank's order every epoch. Left
    alone: trees that pin transformers at 4.30 or older (``pins``), overrides
    that call ``prepare``, and trees that name ``set_epoch`` (a callback).
    """
    project = mod.cache.get("project")
    if project is None or not project.whole_tree:
        return
    if not project.frameworks & _TRAINER_PACKAGES:
        return
    pinned = project.pins.get("transformers")
    if pinned is not None and pinned <= _TRAINER_SET_SAMPLER_EPOCHS_UP_TO:
        return
    if _names_set_epoch(project):
        return
    for func in mod.functions.get("get_train_dataloader", []):
        owner = mod.parents.get(func)
        if not isinstance(owner, ast.ClassDef) or not _trainer_subclass(mod, owner):
            continue
        calls = [node for node in ast.walk(func) if isinstance(node, ast.Call)]
        if any(tail(call) == "prepare" for call in calls):
            continue  # self.accelerator.prepare(...): accelerate sets its epochs
        for call in calls:
            if needs_set_epoch(mod, call):
                yield (
                    call,
                    (
                        f"{owner.name}.get_train_dataloader returns a loader over a shuffling "
                        f"{ast.unparse(call.func)} that transformers' Trainer (4.31 and later) "
                        "never advances: it sets the epoch only on loaders that have set_epoch "
                        "(accelerate's), so every epoch repeats each rank's order; return "
                        "self.accelerator.prepare(loader), or set the sampler's epoch in a "
                        "TrainerCallback's on_epoch_begin"
                    ),
                )
