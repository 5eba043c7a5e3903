"""One launch of the seam matrix: every given cell of one driver and ``num_workers``.

Usage (under the driver's own launcher, see ``tests/seams/launch.py``)::

    job.py DRIVER WORKERS OUT_DIR CELL_ID [CELL_ID ...]

Each rank runs the cells one after another. A cell: build the family's
sampler and loader the way the driver's recipe does (docs/integrations.md,
docs/resume.md), train epoch 0 up to the cell's stop point, checkpoint the
way the driver does, then build a fresh sampler, loader and trainer, restore
from that checkpoint and train to the end of epoch 1. The rank writes
``OUT_DIR/CELL_ID/rank{r}.json``: ``phase1`` and ``phase2``, each a list of
``[epoch, ids]`` per trained batch (the epoch from the step count, so a
framework that restores the wrong counter shows it), or ``error`` when the
cell raised.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

import fairshard  # noqa: E402
from tests._job_end import end_job  # noqa: E402
from tests.seams.cells import (  # noqa: E402
    BATCH,
    EPOCHS,
    Cell,
    iter_cells,
    steps_per_epoch,
    stop_after,
)
from tests.seams.families import build, ids_of, loader  # noqa: E402


class Ledger:
    """What one rank trained in one cell."""

    def __init__(self, cell: Cell, rank: int) -> None:
        self.cell, self.rank = cell, rank
        self.per_epoch = steps_per_epoch(cell.kind, rank)
        self.data: dict[str, Any] = {"rank": rank, "phase1": [], "phase2": []}
        self.phase = "phase1"
        self.steps = 0  # batches trained in this run (both phases), for the epoch

    def take(self, batch: Any, step: int | None = None) -> None:
        """Record one trained batch; ``step``: the framework's own step count, if any."""
        step = self.steps if step is None else step
        self.data[self.phase].append([step // self.per_epoch, ids_of(self.cell.kind, batch)])
        self.steps = step + 1

    def write(self, out: Path) -> None:
        folder = out / self.cell.id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"rank{self.rank}.json").write_text(json.dumps(self.data))


def _save(path: Path, payload: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload))


def _train_to_stop(
    cell: Cell, ledger: Ledger, stop: int, data: Any, set_epoch: Any, save: Any
) -> None:
    """Train epoch 0 up to the cell's stop point, then ``save(epoch to resume, batches)``.

    ``batches`` is what this pass trained (``None`` at the epoch boundary);
    the ``steps`` kind counts steps of its endless stream.
    """
    if cell.kind == "steps":
        batches = iter(data)
        for _ in range(stop):
            ledger.take(next(batches))
        save(0, stop)
        return
    for epoch in range(EPOCHS):
        set_epoch(epoch)
        for i, batch in enumerate(data):
            ledger.take(batch)
            if cell.stop != "boundary" and i + 1 == stop:
                save(epoch, i + 1)
                return
        if cell.stop == "boundary":
            save(epoch + 1, None)
            return


def _train_rest(
    cell: Cell, ledger: Ledger, stop: int, data: Any, set_epoch: Any, start: int
) -> None:
    """After the restart: train from epoch ``start`` (or step ``stop``) to the end."""
    if cell.kind == "steps":
        batches = iter(data)
        for _ in range(EPOCHS * ledger.per_epoch - stop):
            ledger.take(next(batches))
        return
    for epoch in range(start, EPOCHS):
        set_epoch(epoch)
        for batch in data:
            ledger.take(batch)


# ---------------------------------------------------------------- a plain loop
def plain(cell: Cell, rank: int, world: int, out: Path, wrap: Any = None) -> Ledger:
    """torchrun, a DataLoader, the recipes of docs/resume.md.

    With ``num_workers=0`` the sampler's own ``state_dict()``; with workers
    ``fairshard.loader_state_dict(loader, batches=...)``. ``wrap``: what the
    driver does to a loader before the loop (Ray's ``prepare_data_loader``,
    whose loader's own ``state_dict()`` is the state to save).
    """
    ledger = Ledger(cell, rank)
    stop = stop_after(cell.kind, cell.stop, rank)
    path = out / cell.id / f"ckpt{rank}.json"
    wrap = wrap or (lambda data: data)
    sampler = build(cell.kind, rank, world)
    data = wrap(loader(cell.kind, sampler, cell.workers))

    def save(epoch: int, batches: int | None) -> None:
        if cell.kind == "steps":
            state = sampler.state_dict(step=batches)
        elif batches is None:  # the epoch's end: nothing is held back
            state = sampler.state_dict()
        elif callable(getattr(data, "state_dict", None)):  # Ray's ResumableLoader
            state = data.state_dict()
        elif cell.workers:
            state = fairshard.loader_state_dict(data, batches=batches)
        else:
            state = sampler.state_dict()
        _save(path, {"epoch": epoch, "sampler": state})

    _train_to_stop(cell, ledger, stop, data, lambda e: sampler.set_epoch(e), save)
    del data
    # ... the job restarts: a fresh sampler and loader from the checkpoint file ...
    ledger.phase = "phase2"
    ckpt = json.loads(path.read_text())
    sampler = build(cell.kind, rank, world)
    sampler.load_state_dict(ckpt["sampler"])
    data = wrap(loader(cell.kind, sampler, cell.workers))
    _train_rest(cell, ledger, stop, data, lambda e: sampler.set_epoch(e), ckpt["epoch"])
    return ledger
    for epoch in range(ckpt["epoch"], EPOCHS):
        sampler.set_epoch(epoch)
        for batch in data:
            ledger.take(batch)
    return ledger


# ------------------------------------------------------------------- Lightning
def _lightning(cell: Cell, rank: int, world: int, out: Path, stateful: bool) -> Ledger:
    """Lightning's Trainer and launcher; ``ExactResume`` or a ``StatefulDataLoader``."""
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint
    from torchdata.stateful_dataloader import StatefulDataLoader

    from fairshard.integrations.lightning import ExactResume

    ledger = Ledger(cell, rank)

    class Module(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(1))

        def training_step(self, batch: Any, batch_idx: int) -> Any:
            ledger.take(batch, self.global_step)
            return (self.w - 1.0).pow(2).sum()

        def configure_optimizers(self) -> Any:
            return torch.optim.SGD(self.parameters(), lr=0.01)

    def trainer(**flags: Any) -> Any:
        return L.Trainer(
            accelerator="cpu",
            devices=world,
            strategy="ddp",
            use_distributed_sampler=False,
            logger=False,
            enable_progress_bar=False,
            enable_model_summary=False,
            default_root_dir=str(out / cell.id),
            **flags,
        )

    loader_class = StatefulDataLoader if stateful else torch.utils.data.DataLoader

    class Steps(Module):
        """A StepSampler's recipe: built in train_dataloader() from the restored step."""

        def train_dataloader(self) -> Any:
            inner = build("index", self.trainer.global_rank, self.trainer.world_size)
            sampler = fairshard.StepSampler(
                inner,
                micro_batch_size=BATCH,
                global_batch_size=BATCH * self.trainer.world_size,
                start_step=self.trainer.global_step,
            )
            return loader("steps", sampler, cell.workers, loader_class=loader_class)

    def fit(flags: dict[str, Any], ckpt: str | None, save: Any = None) -> Any:
        if cell.kind == "steps":
            run = trainer(callbacks=[save] if save is not None else [], **flags)
            run.fit(Steps(), ckpt_path=ckpt)
            return run
        resume = None if stateful else ExactResume()
        callbacks = [c for c in (resume, save) if c is not None]
        run = trainer(callbacks=callbacks, **flags)
        sampler = build(cell.kind, run.global_rank, run.world_size)
        data = loader(cell.kind, sampler, cell.workers, loader_class=loader_class)
        if resume is not None:
            data = resume.loader(data)
        run.fit(Module(), data, ckpt_path=ckpt)
        return run

    stop = stop_after(cell.kind, cell.stop, rank)
    total = EPOCHS * ledger.per_epoch
    # The recipe's checkpoint: ModelCheckpoint during training; the run stops right
    # after it (as a job killed then would), so nothing was trained after it.
    folder = out / cell.id / "ckpt"
    if cell.stop == "boundary" and cell.kind != "steps":  # steps: an endless loader
        save = ModelCheckpoint(dirpath=folder, filename="ckpt", save_on_train_epoch_end=True)
        flags: dict[str, Any] = {"max_epochs": 1}
    else:
        save = ModelCheckpoint(
            dirpath=folder, filename="ckpt", every_n_train_steps=stop, save_top_k=-1
        )
        flags = (
            {"max_steps": stop}
            if cell.kind == "steps"
            else {"max_steps": stop, "max_epochs": EPOCHS}
        )
    fit(flags, None, save)
    path = folder / "ckpt.ckpt"
    ledger.phase = "phase2"
    flags = {"max_steps": total} if cell.kind == "steps" else {"max_epochs": EPOCHS}
    fit(flags, str(path))
    return ledger


def lightning_exact(cell: Cell, rank: int, world: int, out: Path) -> Ledger:
    return _lightning(cell, rank, world, out, stateful=False)


def lightning_stateful(cell: Cell, rank: int, world: int, out: Path) -> Ledger:
    return _lightning(cell, rank, world, out, stateful=True)


def _lightning_main(driver: str, workers: int, out: Path, names: list[str]) -> None:
    """Lightning's own launcher: this script, started again for rank 1 by the Trainer."""
    import torch.distributed as dist

    for cell in iter_cells(driver, workers, names):
        rank = int(os.environ.get("LOCAL_RANK", "0"))
        try:
            ledger = DRIVERS[driver](cell, rank, 2, out)
        except Exception as exc:  # the cell's verdict reads it
            ledger = Ledger(cell, rank)
            ledger.data["error"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        ledger.write(out)
        if dist.is_initialized():
            dist.barrier()
    if dist.is_initialized():
        dist.destroy_process_group()


# ------------------------------------------------------------------ accelerate
def accelerate_cell(cell: Cell, rank: int, world: int, out: Path) -> Ledger:
    """``accelerate launch``; the loader through fairshard's ``prepare_data_loader``."""
    from accelerate import Accelerator

    from fairshard.integrations.accelerate import prepare_data_loader

    ledger = Ledger(cell, rank)
    stop = stop_after(cell.kind, cell.stop, rank)
    folder = out / cell.id / "state"
    marker = out / cell.id / f"epoch{rank}.json"

    def prepared() -> tuple[Any, Any, Any]:
        accelerator = Accelerator(cpu=True)
        model = torch.nn.Linear(1, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        model, optimizer = accelerator.prepare(model, optimizer)
        sampler = build(cell.kind, rank, world)
        return (
            accelerator,
            sampler,
            prepare_data_loader(accelerator, loader(cell.kind, sampler, cell.workers)),
        )

    accelerator, _, data = prepared()

    def save(epoch: int, batches: int | None) -> None:
        accelerator.save_state(str(folder))
        _save(marker, {"epoch": epoch})

    _train_to_stop(cell, ledger, stop, data, lambda e: data.set_epoch(e), save)
    del data
    accelerator.wait_for_everyone()
    ledger.phase = "phase2"
    accelerator, _, data = prepared()
    accelerator.load_state(str(folder))
    start = json.loads(marker.read_text())["epoch"]
    _train_rest(cell, ledger, stop, data, lambda e: data.set_epoch(e), start)
    return ledger


# ------------------------------------------------------ transformers' Trainer
def trainer_cell(cell: Cell, rank: int, world: int, out: Path) -> Ledger:
    """torchrun; ``FairshardTrainer`` with its checkpoints and ``resume_from_checkpoint``."""
    from torch.utils.data import default_collate
    from transformers import TrainerCallback, TrainingArguments

    from fairshard.integrations.transformers import FairshardTrainer
    from tests.catalog import CATALOG, loader_parts
    from tests.seams.cells import BATCH, FAMILIES, N

    ledger = Ledger(cell, rank)
    stop = stop_after(cell.kind, cell.stop, rank)
    total = EPOCHS * ledger.per_epoch
    name = "distributed" if cell.kind == "steps" else FAMILIES[cell.kind]
    dataset, common, _ = loader_parts(CATALOG[name], N, BATCH)
    collate = common.get("collate_fn")
    holder: dict[str, Any] = {}

    def collate_fn(rows: Any) -> Any:
        return collate(rows) if collate else {"idx": default_collate(rows)}

    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(1))

        def forward(self, **batch: Any) -> Any:
            if self.training:
                ledger.take(batch, holder["trainer"].state.global_step)
            return {"loss": (self.w - 1.0).pow(2).sum()}

    class Stop(TrainerCallback):  # type: ignore[misc]
        def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            if cell.stop != "boundary" and state.global_step >= stop:
                control.should_training_stop = True

        def on_epoch_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            if cell.stop == "boundary":
                control.should_training_stop = True

    def arguments(**extra: Any) -> Any:
        return TrainingArguments(
            output_dir=str(out / cell.id),
            use_cpu=True,
            per_device_train_batch_size=BATCH,
            num_train_epochs=EPOCHS,
            learning_rate=0.01,
            logging_strategy="no",
            report_to=[],
            dataloader_num_workers=cell.workers,
            disable_tqdm=True,
            seed=0,
            **({"max_steps": total} if cell.kind == "steps" else {}),
            **extra,
        )

    def trainer(args: Any, callbacks: list[Any]) -> Any:
        run = FairshardTrainer(
            model=Model(),
            args=args,
            train_dataset=dataset,
            data_collator=collate_fn,
            train_sampler=lambda ds: build(cell.kind, rank, world),
            callbacks=callbacks,
        )
        holder["trainer"] = run
        return run

    if cell.stop == "boundary":
        args = arguments(save_strategy="epoch")
    else:
        args = arguments(save_strategy="steps", save_steps=stop)
    trainer(args, [Stop()]).train()
    ledger.phase = "phase2"
    checkpoint = out / cell.id / f"checkpoint-{stop}"
    trainer(arguments(save_strategy="no"), []).train(resume_from_checkpoint=str(checkpoint))
    return ledger


# ------------------------------------------------------------------ Ray Train
def ray_cell(cell: Cell, rank: int, world: int, out: Path) -> Ledger:
    """Ray Train workers; the plain loop's recipe through fairshard's ``prepare_data_loader``."""
    from fairshard.integrations.ray import prepare_data_loader

    return plain(cell, rank, world, out, wrap=prepare_data_loader)


def _ray_worker(config: dict[str, Any]) -> None:
    import ray.train

    context = ray.train.get_context()
    rank, world = context.get_world_rank(), context.get_world_size()
    out = Path(config["out"])
    for cell in iter_cells("ray", config["workers"], config["names"]):
        try:
            ledger = ray_cell(cell, rank, world, out)
        except Exception as exc:  # the cell's verdict reads it
            ledger = Ledger(cell, rank)
            ledger.data["error"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        ledger.write(out)


def _ray_main(workers: int, out: Path, names: list[str]) -> None:
    import ray
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": f"{ROOT}/src:{ROOT}", "OMP_NUM_THREADS": "1"}},
    )
    trainer = TorchTrainer(
        _ray_worker,
        train_loop_config={"out": str(out), "workers": workers, "names": names},
        scaling_config=ScalingConfig(num_workers=2, use_gpu=False, resources_per_worker={"CPU": 1}),
        run_config=RunConfig(storage_path=str(out / "ray"), name="seams"),
    )
    trainer.fit()
    ray.shutdown()


DRIVERS = {
    "plain": plain,
    "lightning-exact": lightning_exact,
    "lightning-stateful": lightning_stateful,
    "accelerate": accelerate_cell,
    "trainer": trainer_cell,
}


def _torchrun_main(driver: str, workers: int, out: Path, names: list[str]) -> None:
    """torchrun or ``accelerate launch``: the plain loop makes the group, the frameworks theirs."""
    import torch.distributed as dist

    if driver == "plain":
        dist.init_process_group("gloo")
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    for cell in iter_cells(driver, workers, names):
        try:
            ledger = DRIVERS[driver](cell, rank, world, out)
        except Exception as exc:  # the cell's verdict reads it
            ledger = Ledger(cell, rank)
            ledger.data["error"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        ledger.write(out)
        if dist.is_initialized():
            dist.barrier()
    if dist.is_initialized():
        dist.destroy_process_group()


def main(argv: list[str]) -> None:
    driver, workers, out, names = argv[0], int(argv[1]), Path(argv[2]), argv[3:]
    torch.manual_seed(0)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if driver in ("plain", "accelerate", "trainer"):
        _torchrun_main(driver, workers, out, names)
    elif driver == "ray":
        _ray_main(workers, out, names)
    elif driver.startswith("lightning"):
        _lightning_main(driver, workers, out, names)
    else:
        raise SystemExit(f"unknown driver {driver!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
    end_job()  # together, the group torn down, no finalization (tests/_job_end.py)
