"""Lightning's own launcher (``python script.py``, devices=2): resumed epochs, three recipes.

Usage: python lightning_resume_job.py OUT_DIR [elastic DEVICES]

In the same two processes, three recipes, each in two phases: phase 1
trains 6 steps of epoch 0 with a checkpoint after step 4 (steps 5 and 6
are lost work); phase 2, a new Trainer, resumes from that checkpoint with
``fit(ckpt_path=...)`` and trains to the end of epoch 1.

* ``stateful-index``: torchdata's ``StatefulDataLoader(num_workers=2)`` over
  a ``DistributedSampler``, Lightning's default flags; Lightning saves and
  restores the loader's state itself.
* ``stateful-batch``: the same over a ``LengthBucketBatchSampler``
  (``use_distributed_sampler=False``).
* ``handmade``: a plain ``DataLoader`` (``num_workers=0``); the module saves
  ``sampler.state_dict()`` in ``on_save_checkpoint`` and loads it into the
  sampler it builds in ``train_dataloader``.

``elastic DEVICES``: the ``stateful-index`` recipe and ``exact`` (a plain
``DataLoader(num_workers=2)`` with the ``ExactResume`` callback) on another
world size, one phase per launch: with ``DEVICES=1`` phase 1 (one process), with
``DEVICES=2`` phase 2 from its checkpoint. Lightning fixes the epoch's
length from ``len(loader)`` before ``StatefulDataLoader`` restores the
sampler (at ``iter()``): the resumed epoch on two ranks is longer than
the fresh epoch's share whose length Lightning kept, so it stops early and
the backstop warns at ``set_epoch(1)``. ``ExactResume`` restores the
sampler before Lightning reads the length: exact.

Each rank writes OUT_DIR/rank{r}.json: per recipe and phase, the sample ids
of every epoch in order, ``len(loader)`` as Lightning read it, and the
messages of the fairshard warnings raised in the phase.
"""

import json
import sys
import warnings
from pathlib import Path

import lightning as L
import torch
from lightning.pytorch.callbacks import ModelCheckpoint
from torch.utils.data import DataLoader, Dataset
from torchdata.stateful_dataloader import StatefulDataLoader

import fairshard
from fairshard.integrations.lightning import ExactResume

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the checkout: tests._job_end
from tests._job_end import end_job

N = 203
BATCH = 4
LENGTHS = [1 + (5 * i) % 11 for i in range(N)]


class Indexed(Dataset):
    def __len__(self):
        return N

    def __getitem__(self, i):
        return i, torch.full((4,), float(i) / N)


def collate(rows):
    return torch.tensor([r[0] for r in rows]), torch.stack([r[1] for r in rows])


class Module(L.LightningModule):
    def __init__(self, recipe):
        super().__init__()
        self.recipe = recipe
        self.net = torch.nn.Linear(4, 1)
        self.seen = {}
        self.lengths = []
        self.saved = None
        self.sampler = None

    def train_dataloader(self):
        if self.recipe == "stateful-batch":
            batches = fairshard.LengthBucketBatchSampler(LENGTHS, BATCH, seed=6)
            return StatefulDataLoader(
                Indexed(), batch_sampler=batches, collate_fn=collate, num_workers=2
            )
        sampler = fairshard.DistributedSampler(N, seed=3)
        if self.recipe == "exact":
            return self.resume.loader(
                DataLoader(
                    Indexed(), batch_size=BATCH, sampler=sampler, collate_fn=collate, num_workers=2
                )
            )
        if self.recipe == "stateful-index":
            return StatefulDataLoader(
                Indexed(), batch_size=BATCH, sampler=sampler, collate_fn=collate, num_workers=2
            )
        if self.saved is not None:
            sampler.load_state_dict(self.saved)
        self.sampler = sampler
        return DataLoader(Indexed(), batch_size=BATCH, sampler=sampler, collate_fn=collate)

    def on_save_checkpoint(self, checkpoint):
        if self.recipe == "handmade":
            checkpoint["sampler"] = self.sampler.state_dict()

    def on_load_checkpoint(self, checkpoint):
        if self.recipe == "handmade":
            self.saved = checkpoint["sampler"]

    def on_train_epoch_start(self):
        self.lengths.append(self.trainer.num_training_batches)

    def training_step(self, batch, batch_idx):
        idx, x = batch
        self.seen.setdefault(str(self.current_epoch), []).extend(idx.tolist())
        return self.net(x).pow(2).mean()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


def trainer_for(recipe, out, devices=2, **flags):
    return L.Trainer(
        accelerator="cpu",
        devices=devices,
        strategy="ddp",
        use_distributed_sampler=recipe != "stateful-batch",
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=str(out),
        **flags,
    )


def phase(recipe, out, ckpt_path=None, callbacks=(), **flags):
    module = Module(recipe)
    if recipe == "exact":
        module.resume = ExactResume()
        callbacks = [*callbacks, module.resume]
    flags["callbacks"] = list(callbacks)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer = trainer_for(recipe, out, **flags)
        trainer.fit(module, ckpt_path=ckpt_path)
    said = [str(w.message) for w in caught if type(w.message).__module__.startswith("fairshard")]
    return trainer, {"seen": module.seen, "lengths": module.lengths, "warnings": said}


def elastic(out, devices):
    ledger, rank = {}, 0
    for recipe in ("stateful-index", "exact"):
        folder = out / f"elastic-{recipe}"
        if devices == 1:
            ckpt = ModelCheckpoint(
                dirpath=str(folder), filename="{step}", every_n_train_steps=4, save_top_k=-1
            )
            trainer, ledger[recipe] = phase(
                recipe, folder, devices=1, max_steps=6, callbacks=[ckpt]
            )
        else:
            trainer, ledger[recipe] = phase(
                recipe, folder, str(folder / "step=4.ckpt"), max_epochs=2
            )
        rank = trainer.global_rank
    (out / f"elastic{devices}-rank{rank}.json").write_text(json.dumps(ledger))


def main():
    out = Path(sys.argv[1])
    if len(sys.argv) > 2:
        elastic(out, int(sys.argv[3]))
        return
    ledger, rank = {}, 0
    for recipe in ("stateful-index", "stateful-batch", "handmade"):
        folder = out / recipe
        ckpt = ModelCheckpoint(
            dirpath=str(folder), filename="{step}", every_n_train_steps=4, save_top_k=-1
        )
        _, first = phase(recipe, folder, max_steps=6, callbacks=[ckpt])
        trainer, second = phase(recipe, folder, str(folder / "step=4.ckpt"), max_epochs=2)
        rank = trainer.global_rank
        ledger[recipe] = {"phase1": first, "phase2": second}
    (out / f"rank{rank}.json").write_text(json.dumps(ledger))


if __name__ == "__main__":
    main()
    end_job()  # together, the group torn down, no finalization (tests/_job_end.py)
