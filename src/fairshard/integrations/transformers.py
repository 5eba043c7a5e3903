"""transformers.Trainer: train on fairshard samplers, resume mid-epoch in O(1).

``Trainer`` builds its own loaders and hands each to ``accelerator.prepare``,
which shards a map-style loader again on more than one process: a fairshard
sampler returned from ``_get_train_sampler`` is refused at its first batch
(it would otherwise lose ``(W - 1) / W`` of every share). And on
``resume_from_checkpoint`` Trainer skips the consumed batches of the
interrupted epoch by drawing them again (accelerate's ``skip_first_batches``),
which takes as long as the batches took to index (and, for an iterable
dataset, to load).

``FairshardTrainer`` is a ``Trainer`` subclass that changes three things and
nothing else:

* its train (and eval) loader is built around the fairshard sampler you give
  (``train_sampler=``/``eval_sampler=``, a sampler, batch sampler, or a
  function of the dataset that builds one) and wrapped by
  :func:`fairshard.integrations.accelerate.prepare_data_loader`, so the
  shares stay as built and accelerate still places batches, sets the epoch
  and signals the end of the loader (gradient accumulation,
  ``gather_for_metrics``);
* every checkpoint holds each rank's loader state
  (``fairshard_loader_{rank}.pt``, written atomically beside Trainer's
  ``rng_state_{rank}.pth``);
* on ``resume_from_checkpoint`` the loader state is restored and Trainer's
  skip of ``k`` consumed batches becomes a no-op: the next batch is the
  ``k+1``-th of the interrupted epoch, in the time a ``load_state_dict`` takes.

NOTE (why a subclass, not a callback): a ``TrainerCallback`` sees the loader
only after Trainer built and prepared it, and has no say in how Trainer skips
batches. ``get_train_dataloader`` is Trainer's documented override point; the
skip is accelerate's ``skip_first_batches``, which ``transformers.trainer``
calls by its module name. ``FairshardTrainer`` replaces that name once by a
function that returns a fairshard loader whose state was restored as it is
and hands every other loader to accelerate's own function unchanged.

Learning-rate schedules need nothing: Trainer builds its schedule from
``len(train_dataloader)``, this rank's number of batches, and steps it once
per optimizer step.
"""

from __future__ import annotations

import functools
import os
import sys
import weakref
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from torch.utils.data import DataLoader

from .._core.base import PlannedSampler
from .._core.endless import StepSampler
from .._distributed.checkpoint import save_atomic
from .._errors import ConfigError, ConfigTypeError
from .accelerate import batches_done as _batches_done
from .accelerate import prepare_data_loader

# FairshardTrainer is built by the module's __getattr__ on first use (it subclasses Trainer).
__all__ = ["STATE_FILE", "FairshardTrainer"]  # noqa: F822

STATE_FILE = "fairshard_loader_{rank}.pt"
_FORMAT = 1

SamplerSpec = Any  # a fairshard sampler or batch sampler, or dataset -> one of those


def _resolve(spec: SamplerSpec, dataset: Any, name: str) -> PlannedSampler[Any, Any]:
    sampler = spec(dataset) if callable(spec) and not isinstance(spec, PlannedSampler) else spec
    if isinstance(sampler, StepSampler):
        raise ConfigTypeError(
            f"FairshardTrainer({name}=...) trains epochs of a sampler's plan and resumes "
            "them; a StepSampler is one endless stream addressed by the step count, which "
            "Trainer's epochs would cut: pass the sampler it wraps (with max_steps= for a "
            "step-based run)"
        )
    if not isinstance(sampler, PlannedSampler):
        raise ConfigTypeError(
            f"FairshardTrainer({name}=...) needs a fairshard sampler or batch sampler, or a "
            f"function of the dataset that returns one; got {type(sampler).__name__}. For "
            "another sampler, leave it out and override _get_train_sampler as for Trainer"
        )
    return sampler


def _yields_batches(sampler: PlannedSampler[Any, Any]) -> bool:
    from .._batching.base import BatchPlanSampler

    return isinstance(sampler, BatchPlanSampler)


def _skip_first_batches(original: Callable[..., Any]) -> Callable[..., Any]:
    def skip_first_batches(dataloader: Any, num_batches: int = 0) -> Any:
        resume = getattr(dataloader, "_fairshard_resume", None)
        if resume is None:
            return original(dataloader, num_batches)
        return resume(int(num_batches))

    skip_first_batches._fairshard = True  # type: ignore[attr-defined]
    skip_first_batches.__wrapped__ = original  # type: ignore[attr-defined]
    return skip_first_batches


def _install_skip() -> None:
    import transformers.trainer as trainer_module

    name = "skip_first_batches"
    current = getattr(trainer_module, name, None)
    if current is None:
        import transformers

        raise ConfigError(
            f"FairshardTrainer restores the loader instead of Trainer's skip of consumed "
            f"batches, but transformers {transformers.__version__} has no "
            "transformers.trainer.skip_first_batches; use transformers>=4.40"
        )
    if not getattr(current, "_fairshard", False):
        setattr(trainer_module, name, _skip_first_batches(current))


def _state_path(checkpoint: str | os.PathLike[str], rank: int) -> Path:
    return Path(checkpoint) / STATE_FILE.format(rank=rank)


@lru_cache(maxsize=1)
def _trainer_class() -> type[Any]:
    import torch
    from transformers import Trainer

    class FairshardTrainer(Trainer):
        """``transformers.Trainer`` on fairshard samplers, with exact O(1) mid-epoch resume.

        Args:
            train_sampler: a fairshard sampler or batch sampler for the
                training set, or a function ``dataset -> sampler`` (called
                when the loader is built, after the processes started).
                Index samplers batch with ``per_device_train_batch_size``
                and ``dataloader_drop_last``; batch samplers make their own.
            eval_sampler: the same for evaluation (for example
                ``lambda ds: fairshard.DistributedEvalSampler(len(ds))``):
                ``gather_for_metrics`` then scores every sample exactly once.
            *args, **kwargs: ``transformers.Trainer``'s.

        Example::

            trainer = FairshardTrainer(
                model=model, args=TrainingArguments(output_dir, save_steps=100),
                train_dataset=train, eval_dataset=test,
                train_sampler=lambda ds: fairshard.DistributedSampler(len(ds), seed=0),
                eval_sampler=lambda ds: fairshard.DistributedEvalSampler(len(ds)),
            )
            trainer.train(resume_from_checkpoint=True)  # or None on the first run
        """

        def __init__(
            self,
            *args: Any,
            train_sampler: SamplerSpec = None,
            eval_sampler: SamplerSpec = None,
            **kwargs: Any,
        ) -> None:
            super().__init__(*args, **kwargs)
            _install_skip()
            self.fairshard_train_sampler = train_sampler
            self.fairshard_eval_sampler = eval_sampler
            self._fairshard_loader: Any = None
            self._fairshard_checkpoint: str | None = None

        # ---- loaders ----

        def _fairshard_loader_of(
            self,
            dataset: Any,
            sampler: PlannedSampler[Any, Any],
            batch_size: int,
            what: str,
            training: bool = False,
        ) -> Any:
            collator = self.data_collator
            datasets = sys.modules.get("datasets")  # a datasets.Dataset was made by it
            if datasets is not None and isinstance(dataset, datasets.Dataset):
                dataset = self._remove_unused_columns(dataset, description=what)
            else:
                collator = self._get_collator_with_removed_columns(collator, description=what)
            args = self.args
            params: dict[str, Any] = {
                "collate_fn": collator,
                "num_workers": args.dataloader_num_workers,
                "pin_memory": args.dataloader_pin_memory,
                "persistent_workers": args.dataloader_persistent_workers
                and args.dataloader_num_workers > 0,
            }
            if args.dataloader_num_workers > 0:
                params["prefetch_factor"] = args.dataloader_prefetch_factor
                if args.dataloader_multiprocessing_context is not None:
                    params["multiprocessing_context"] = args.dataloader_multiprocessing_context
            if hasattr(args, "dataloader_in_order"):
                params["in_order"] = args.dataloader_in_order
            if training:  # as Trainer seeds its own training loader's workers
                from transformers.trainer_utils import seed_worker

                params["worker_init_fn"] = functools.partial(
                    seed_worker, num_workers=args.dataloader_num_workers, rank=args.process_index
                )
            if _yields_batches(sampler):
                params["batch_sampler"] = sampler
            else:
                params.update(
                    sampler=sampler, batch_size=batch_size, drop_last=args.dataloader_drop_last
                )
            return prepare_data_loader(self.accelerator, DataLoader(dataset, **params))

        def get_train_dataloader(self) -> Any:
            """The fairshard training loader (or Trainer's own without ``train_sampler``)."""
            if self.fairshard_train_sampler is None:
                return super().get_train_dataloader()
            if self.train_dataset is None:
                raise ConfigError("FairshardTrainer: training requires a train_dataset")
            sampler = _resolve(self.fairshard_train_sampler, self.train_dataset, "train_sampler")
            loader = self._fairshard_loader_of(
                self.train_dataset, sampler, self._train_batch_size, "training", training=True
            )
            this = weakref.ref(self)

            def resume(num_batches: int) -> Any:
                trainer = this()
                if trainer is None:  # pragma: no cover - the trainer owns its loop
                    raise RuntimeError("the FairshardTrainer of this loader is gone")
                return trainer._fairshard_restore(loader, num_batches)

            loader._fairshard_resume = resume
            self._fairshard_loader = loader
            return loader

        def get_eval_dataloader(self, eval_dataset: Any = None) -> Any:
            """The fairshard evaluation loader (or Trainer's own without ``eval_sampler``)."""
            if self.fairshard_eval_sampler is None:
                return super().get_eval_dataloader(eval_dataset)
            dataset: Any = self.eval_dataset
            if isinstance(eval_dataset, str):
                dataset = dataset[eval_dataset]
            elif eval_dataset is not None:
                dataset = eval_dataset
            if dataset is None:
                raise ConfigError("FairshardTrainer: evaluation requires an eval_dataset")
            sampler = _resolve(self.fairshard_eval_sampler, dataset, "eval_sampler")
            return self._fairshard_loader_of(
                dataset, sampler, self.args.eval_batch_size, "evaluation"
            )

        # ---- checkpoints ----

        def _save_rng_state(self, output_dir: str) -> None:
            super()._save_rng_state(output_dir)
            loader = self._fairshard_loader
            if loader is None:
                return
            rank = int(self.accelerator.process_index)
            state = loader.state_dict()
            save_atomic(
                {
                    "format": _FORMAT,
                    "world": int(self.accelerator.num_processes),
                    "rank": rank,
                    "global_step": int(self.state.global_step),
                    "num_workers": int(loader.num_workers),
                    "batches": _batches_done(state),
                    "loader": state,
                },
                _state_path(output_dir, rank),
            )

        def _load_from_checkpoint(self, resume_from_checkpoint: str, model: Any = None) -> None:
            self._fairshard_checkpoint = str(resume_from_checkpoint)
            super()._load_from_checkpoint(resume_from_checkpoint, model)

        def _fairshard_restore(self, loader: Any, num_batches: int) -> Any:
            """Trainer's skip of ``num_batches`` consumed batches: the saved state instead."""
            checkpoint = self._fairshard_checkpoint
            rank, world = int(self.accelerator.process_index), int(self.accelerator.num_processes)
            if checkpoint is None:
                raise ConfigError(
                    f"Trainer asked to skip {num_batches} consumed batches but FairshardTrainer "
                    "saw no checkpoint being loaded; resume with "
                    "trainer.train(resume_from_checkpoint=PATH_OR_TRUE)"
                )
            path = _state_path(checkpoint, rank)
            if not path.is_file():
                raise ConfigError(
                    f"resume_from_checkpoint={checkpoint} has no {path.name}: it was not written "
                    "by FairshardTrainer, so the position of this rank's sampler is unknown. "
                    "Resume from a FairshardTrainer checkpoint, or pass "
                    "TrainingArguments(ignore_data_skip=True) to start the interrupted epoch "
                    f"over (its first {num_batches} batches are then trained on twice)"
                )
            saved = torch.load(path, weights_only=True)
            if int(saved.get("format", 0)) != _FORMAT:
                raise ConfigError(
                    f"{path} has format {saved.get('format')!r}, this fairshard reads format "
                    f"{_FORMAT}; resume with the fairshard version that wrote it"
                )
            if int(saved["world"]) != world:
                raise ConfigError(
                    f"{path} was written by {saved['world']} processes and this job runs "
                    f"{world}: Trainer counts the resumed epoch's steps per process, so its "
                    f"global_step={saved['global_step']} means another place in the data here. "
                    f"Resume on {saved['world']} processes"
                )
            workers = int(saved.get("num_workers", loader.num_workers))
            if workers != int(loader.num_workers):
                raise ConfigError(
                    f"{path} holds a loader state with dataloader_num_workers={workers}, and "
                    f"this run has dataloader_num_workers={loader.num_workers}: a loader state "
                    f"resumes with the worker count that saved it. Resume with "
                    f"TrainingArguments(dataloader_num_workers={workers})"
                )
            state = saved["loader"]
            done = saved.get("batches")
            if done is not None and int(done) != num_batches:
                raise ConfigError(
                    f"{path} holds this rank's loader after {done} batches of the epoch, but "
                    f"Trainer resumes after {num_batches} (gradient_accumulation_steps or the "
                    "batch size changed since the checkpoint?); resume with the same "
                    "TrainingArguments"
                )
            loader.load_state_dict(state)
            return loader

    FairshardTrainer.__module__ = __name__
    return FairshardTrainer


def __getattr__(name: str) -> Any:
    if (
        name == "FairshardTrainer"
    ):  # built on first use: importing this module needs no transformers
        return _trainer_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
