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

Left alone: loaders that name their own ``sampler=`` or ``batch_sampler=``
(fairshard's ``DistributedEvalSampler`` is a ``DistributedSampler``, which
Lightning keeps), trees that turn the replacement off, ``predict_dataloader``
(Lightning shards prediction without repeats), hooks that never combine, and
combined results cut back to the set's length or kept by sample id.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from .dedup import scope_deduplicates
from .flow import LOADERS
from .lightning_hooks import LIGHTNING, lightning_modules, never_run, replacement_off
from .names import Module, argument, dotted, is_constant, tail

__all__ = ["lightning_padded_evaluations"]

#: Loader hooks Lightning pads, and the prefixes of the hooks that score what they yield.
_EVAL_HOOKS = {"val_dataloader": "validation", "test_dataloader": "test"}
_SCORING = ("_step", "_epoch_end")


def _given(node: ast.AST | None) -> bool:
    return node is not None and not is_constant(node, None)


def _combines(func: ast.FunctionDef | ast.AsyncFunctionDef, torchmetrics: bool) -> ast.AST | None:
    """The first call of ``func`` that combines its values over the ranks, if any."""
    for node in ast.walk(func):
        if not isinstance(node, ast.Call):
            continue
        if tail(node) in {"log", "log_dict"} and is_constant(argument(node, "sync_dist"), True):
            return node
        if tail(node) == "all_gather" and (dotted(node.func) or "").startswith("self."):
            return node
        if torchmetrics and tail(node) == "compute" and not node.args:
            return node
    return None


def _scoring_hooks(mod: Module, stage: str) -> Iterator[tuple[Module, ast.FunctionDef]]:
    """Methods of the tree's Lightning classes that score a stage (``validation_step``...)."""
    for other in lightning_modules(mod):
        for name, defs in other.functions.items():
            base = name.removeprefix("on_")
            if not (base.startswith(stage) and base.endswith(_SCORING)):
                continue
            for func in defs:
                if isinstance(func, ast.FunctionDef) and isinstance(
                    other.parents.get(func), ast.ClassDef
                ):
                    yield other, func


def _combined(mod: Module, stage: str) -> tuple[Module, ast.AST] | None:
    """Where a hook of ``stage`` combines over the ranks with no de-duplication."""
    for other, func in _scoring_hooks(mod, stage):
        found = _combines(func, other.imports_any(frozenset({"torchmetrics"})))
        if found is not None and not scope_deduplicates(func):
            return other, found
    return None


def _path_of(mod: Module) -> str:
    project = mod.cache.get("project")
    if project is None:
        return "line"
    return Path(project.paths[mod.cache["module_name"]]).as_posix()


def lightning_padded_evaluations(mod: Module) -> Iterator[tuple[ast.Call, str]]:
    """Loaders of ``val_dataloader``/``test_dataloader`` that Lightning pads, scored combined."""
    if not mod.imports_any(LIGHTNING):
        return
    for hook, stage in _EVAL_HOOKS.items():
        for func in mod.functions.get(hook, []):
            owner = mod.parents.get(func)
            if not isinstance(owner, ast.ClassDef) or never_run(mod, owner):
                continue
            loaders = [
                c
                for c in ast.walk(func)
                if isinstance(c, ast.Call)
                and tail(c) in LOADERS
                and not _given(argument(c, "sampler", 3))
                and not _given(argument(c, "batch_sampler", 4))
                and not any(k.arg is None for k in c.keywords)
            ]
            if not loaders or replacement_off(mod):
                continue
            where = _combined(mod, stage)
            if where is None:
                continue
            other, node = where
            at = f"{_path_of(other)}:{getattr(node, 'lineno', 0)}"
            for loader in loaders:
                yield loader, at
