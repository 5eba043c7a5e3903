"""Which code a Lightning run executes in every process (FS110's Lightning route).

A Lightning ``Trainer`` on several devices starts its processes one of two
ways. The subprocess launcher (DDP's default since Lightning 2.0, and any
``strategy="ddp"`` before it) runs the whole script again in each process:
every split the script draws, each rank draws for itself. The spawn
launcher (the default for several GPUs before 2.0, ``ddp_spawn``) runs the
script once and pickles the model and data module into its children: what
the script drew is shared, but the hooks Lightning calls in each child
(``setup``, the loader hooks) draw again in every rank. ``strategy="dp"``
(DataParallel) is one process.
"""

from __future__ import annotations

import ast

from .lightning_eval import lightning_ranks
from .lightning_hooks import LIGHTNING, lightning_pin
from .names import Module, argument, tail

__all__ = ["in_lightning_hook", "lightning_reruns", "lightning_runs_on_every_rank"]

#: The first Lightning release whose DDP (the automatic strategy) reruns the script.
_SUBPROCESS_DEFAULT = (2, 0)
#: Strategy words of launchers that start their processes without rerunning the script.
_SPAWNING = ("spawn", "fork", "notebook")
#: Strategy classes that spawn (before 2.0's ``start_method=``).
_SPAWN_CLASSES = frozenset({"DDPSpawnStrategy", "DDPSpawnPlugin", "DDPSpawnShardedStrategy"})
#: Hooks Lightning calls in every process, whichever launcher started it.
_EVERY_PROCESS_HOOKS = frozenset(
    {"setup", "train_dataloader", "val_dataloader", "test_dataloader", "predict_dataloader"}
)


def _reruns(mod: Module, trainer: ast.Call) -> bool:
    """The trainer's launcher runs the script again in each process (unknown: it does)."""
    for key in ("strategy", "accelerator", "distributed_backend"):
        given = argument(trainer, key)
        if isinstance(given, ast.Constant) and isinstance(given.value, str):
            word = given.value.lower()
            if word in {"gpu", "cuda", "cpu", "auto", "tpu", "mps"}:
                continue  # a device kind (accelerator=), not a launcher
            return word != "dp" and not any(s in word for s in _SPAWNING)
        if isinstance(given, ast.Call):
            if tail(given) in _SPAWN_CLASSES:
                return False
            method = argument(given, "start_method")
            return not (
                isinstance(method, ast.Constant)
                and isinstance(method.value, str)
                and any(s in method.value for s in _SPAWNING)
            )
        if given is not None:
            return True  # a strategy read from a config or an option: may rerun
    pinned = lightning_pin(mod)
    return pinned is None or pinned >= _SUBPROCESS_DEFAULT


def lightning_reruns(mod: Module) -> bool:
    """``mod`` builds a several-device Lightning trainer whose launcher reruns ``mod``.

    Motion-prediction's ``pl.Trainer(devices="auto", accelerator="auto")``
    under Lightning 2.x, adversarial_insertions' ``pl.Trainer(gpus=2,
    distributed_backend="ddp")`` under 1.1: each process runs the script
    from the top. A tree pinned below 2.0 whose trainer names no strategy
    spawns instead (see the module's notes).
    """
    if not lightning_ranks(mod):
        return False
    return any(
        tail(c) == "Trainer"
        and (mod.qualified(c.func) or "").split(".")[0] in LIGHTNING
        and _reruns(mod, c)
        for c in mod.calls
    )


def in_lightning_hook(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a method Lightning calls in every process (``setup``, a loader hook)."""
    func = mod.function_of(node)
    return (
        isinstance(func, ast.FunctionDef)
        and func.name in _EVERY_PROCESS_HOOKS
        and isinstance(mod.parents.get(func), ast.ClassDef)
    )


def lightning_runs_on_every_rank(runner: Module, owner: Module, node: ast.AST) -> bool:
    """Every process of ``runner``'s Lightning run executes ``node`` of ``owner``.

    The script is rerun in each process (:func:`lightning_reruns`), or
    ``node`` is in a hook Lightning calls in each (:func:`in_lightning_hook`).
    """
    if not lightning_ranks(runner) or not _stage_run(runner, owner, node):
        return False
    return lightning_reruns(runner) or in_lightning_hook(owner, node)


#: The ``stage`` Lightning passes to ``setup`` for each trainer call.
_STAGES = {"fit": "fit", "validate": "validate", "test": "test", "predict": "predict"}


def _stage_run(runner: Module, owner: Module, node: ast.AST) -> bool:
    """``node`` is not in a ``setup`` branch for stages ``runner``'s trainer never runs.

    Shrec2023_PRSNET's exploration script only tests and predicts; its data
    module draws the split under ``if stage == "fit":``, which
    ``setup("test")`` and ``setup("predict")`` never enter. A runner through
    ``LightningCLI`` may run any stage.
    """
    guard = _setup_stages(owner, node)
    if guard is None or any(tail(c) == "LightningCLI" for c in runner.calls):
        return True
    run = {
        _STAGES[c.func.attr]
        for c in runner.calls
        if isinstance(c.func, ast.Attribute)
        and c.func.attr in _STAGES
        and "trainer" in ast.unparse(c.func.value).lower()
    }
    return bool(guard & run)


def _setup_stages(mod: Module, node: ast.AST) -> set[str] | None:
    """The stages whose ``setup(stage)`` reaches ``node`` (``if stage == "fit":``), or None."""
    func = mod.function_of(node)
    if not (isinstance(func, ast.FunctionDef) and func.name == "setup"):
        return None
    stages: set[str] | None = None
    child: ast.AST = node
    for ancestor in mod.ancestors(node):
        if ancestor is func:
            break
        if isinstance(ancestor, ast.If) and child in ancestor.body:
            named = _stage_values(ancestor.test)
            if named is not None:
                stages = named if stages is None else stages & named
        child = ancestor
    return stages


def _stage_values(test: ast.expr) -> set[str] | None:
    """``stage == "fit"``, ``stage in ("fit", "validate")``, or an ``or`` of them."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        parts = [_stage_values(v) for v in test.values]
        return None if any(p is None for p in parts) else set().union(*(p for p in parts if p))
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.left, ast.Name)
        and test.left.id == "stage"
    ):
        return None
    right = test.comparators[0]
    if isinstance(test.ops[0], ast.Eq) and isinstance(right, ast.Constant):
        return {str(right.value)}
    if isinstance(test.ops[0], ast.In) and isinstance(right, ast.Tuple | ast.List | ast.Set):
        values = [e.value for e in right.elts if isinstance(e, ast.Constant)]
        return {str(v) for v in values} if len(values) == len(right.elts) else None
    return None
