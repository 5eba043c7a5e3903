"""Loaders a framework prepares: the sampler they end up with is the framework's.

``fabric.setup_dataloaders`` and ``accelerator.prepare`` (or
``prepare_data_loader``) replace a plain loader's sampler with a distributed
one, and accelerate also copies rank 0's generator state to every rank at
each pass. So a ``shuffle=True`` loader handed to them is sharded (FS103),
and a per-rank seed of the global generator no longer decides its order
(FS104).

opacus's ``PrivacyEngine.make_private`` (and ``make_private_with_epsilon``)
with Poisson sampling, its default, returns a new ``DPDataLoader`` over
``DistributedUniformWithReplacementSampler`` when the module is distributed
(``opacus/privacy_engine.py`` and ``data_loader.py``): the loader handed to it
as ``data_loader=`` keeps neither its sampler nor its shuffle, each rank
draws its own share of every step with rate q, and no ``set_epoch`` changes
what a step holds. With ``poisson_sampling=False`` the loader comes back
as it was.
"""

from __future__ import annotations

import ast

from .caller_flags import function_sites
from .context import target_names
from .flow import poisson_replaced
from .names import Module, argument, dotted, tail
from .positions import WHOLE, returned_at
from .project import Project, imported_modules
from .trainer_runs import TRAINER_PACKAGES

__all__ = ["accelerate_launched", "framework_shards", "trainer_launched"]

#: Calls of training frameworks that re-shard the loaders handed to them.
_SHARDING_SETUP = frozenset({"setup_dataloaders", "prepare", "prepare_data_loader"})


def framework_shards(mod: Module, call: ast.Call, depth: int = 2) -> bool:
    """The loader ``call`` builds is handed to ``setup_dataloaders``, ``prepare`` or opacus.

    Also where ``call``'s function returns the loader whole and every call of
    that function hands its result on (Dense_Reward_T2I's nested
    ``_my_data_iterator`` returns ``DataLoader(..., shuffle=True)``, and the
    script prepares what it gives), up to ``depth`` functions out.
    """
    if _handed_to_setup(mod, call):
        return True
    func = mod.function_of(call)
    if depth <= 1 or func is None or WHOLE not in returned_at(func, call):
        return False
    sites = function_sites(mod, func)
    return bool(sites) and all(framework_shards(m, site, depth - 1) for m, site in sites)


def _handed_to_setup(mod: Module, call: ast.Call) -> bool:
    """The loader ``call`` builds is named in a ``prepare``/``setup_dataloaders``/opacus call."""
    names = set(target_names(mod, call))
    for other in mod.calls:
        if tail(other) in _SHARDING_SETUP:
            handed = list(other.args)
        elif poisson_replaced(other):
            handed = [a for a in (argument(other, "data_loader"),) if a is not None]
        else:
            continue
        for arg in handed:
            if arg is call or dotted(arg) in names:
                return True
            if isinstance(arg, ast.Starred) and _holds(mod, arg.value, call, names):
                return True
    return False


def _holds(mod: Module, container: ast.expr, call: ast.Call, names: set[str]) -> bool:
    """The list unpacked into ``prepare(*container)`` holds the loader ``call`` builds.

    HMT-pytorch's ``accelerator.prepare(model, optim, *all_dataloaders,
    scheduler)``, with the loaders appended to the list (or listed in it, or
    concatenated into it) in the same function.
    """
    held = {dotted(container)} - {None}
    scope = mod.function_of(call) or mod.tree
    for _ in range(3):
        before = len(held)
        for node in ast.walk(scope):
            value: ast.AST | None = None
            if isinstance(node, ast.Assign) and any(dotted(t) in held for t in node.targets):
                value = node.value
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "extend", "insert")
                and dotted(node.func.value) in held
            ):
                value = ast.Tuple(elts=list(node.args), ctx=ast.Load())
            if value is None:
                continue
            for part in ast.walk(value):
                if part is call:
                    return True
                name = dotted(part) if isinstance(part, ast.Name | ast.Attribute) else None
                if name in names:
                    return True
                if name is not None:
                    held.add(name)
        if len(held) == before:
            break
    return False


def accelerate_launched(mod: Module, preparing: Module | None = None) -> bool:
    """An accelerate script that the tree runs on several processes.

    re-grpo's ``train_accelerate.py`` builds ``Accelerator()``, prepares its model
    and optimizer, and its README runs it with ``accelerate launch``: every process
    runs the script, and a loader that never goes through ``accelerator.prepare``
    keeps its own sampler, so each reads the whole dataset. A shipped line that
    launches the script on several processes counts; so does, for a script no
    shipped line runs, a tree whose accelerate configs all name several processes
    (finetune-LLM's ``configs/default_config.yaml``, ``num_processes: 4``: the
    way the tree is meant to be run). ``Accelerator()`` alone is as often a
    one-GPU run using accelerate for mixed precision, and does not count.
    The ``prepare`` calls are read in ``preparing`` where given: a module the
    script imports and hands its accelerator to (calico-confident-al's
    ``DataModule.setup(accelerator=...)`` prepares what ``train_jempp.py`` trains on).
    """
    if not (
        any(tail(c) == "Accelerator" for c in mod.calls)
        and any(tail(c) == "prepare" for c in (preparing or mod).calls)
    ):
        return False
    project = mod.cache.get("project")
    if not isinstance(project, Project) or not project.whole_tree:
        return False
    path = project.tree_path(mod)
    if path is None:
        return False
    if path.as_posix() in project.several_process_scripts:
        return True
    counts = project.accelerate_processes
    return (
        path.as_posix() not in project.run_scripts
        and bool(counts)
        and all(count > 1 for count in counts)
    )


def _builds_a_trainer(mod: Module) -> bool:
    """``mod`` imports transformers or trl and calls a ``...Trainer(...)``."""
    return mod.imports_any(TRAINER_PACKAGES) and any(tail(c).endswith("Trainer") for c in mod.calls)


def trainer_launched(mod: Module) -> bool:
    """A script a shipped line launches on several processes that trains with a ``Trainer``.

    LaDiR's ``vae/train_vae.py``, run by ``torchrun --nproc_per_node 8``, reads
    no rank and sets up no process group itself: it builds its datasets and
    hands them to ``train_model`` of its ``training_utils``, which builds
    transformers' ``Trainer``. Every process runs the script's own lines (a
    split among them is drawn in each), and the Trainer then shards what each
    process built by the rank. The Trainer is built in the script or in a
    module of the tree it imports; the launch is a shipped line's (see
    ``launch_counts``), never a guess.
    """
    if not mod.imports_any(TRAINER_PACKAGES):
        return False
    project = mod.cache.get("project")
    if not isinstance(project, Project) or not project.whole_tree:
        return False
    path = project.tree_path(mod)
    if path is None or path.as_posix() not in project.several_process_scripts:
        return False
    return _builds_a_trainer(mod) or any(_builds_a_trainer(m) for m in imported_modules(mod))
