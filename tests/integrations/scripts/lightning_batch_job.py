"""Lightning's own launcher (``python script.py``, devices=2) with a fairshard batch sampler.

Usage: python lightning_batch_job.py OUT_DIR (resume|before)

``resume``: the Trainer is built first, then the loader, with
``num_replicas=trainer.world_size, rank=trainer.global_rank`` (Lightning
starts the second process by running this script again). A
``LengthBucketBatchSampler`` with ``use_distributed_sampler=False``:
phase 1 trains 5 steps of epoch 0 with a checkpoint after step 3 (steps 4
and 5 are lost work); phase 2, in the same processes, a new Trainer resumes
from that checkpoint with ``ExactResume`` and trains to the end of epoch 1.
Each rank writes OUT_DIR/rank{r}.json with the batches of every phase.

``before``: the loader is built before the Trainer, with the world
detected, as in a script written for torchrun: the process Lightning starts
has ``WORLD_SIZE`` but no ``RANK`` and refuses; Lightning then ends the job.
"""

import json
import sys
from pathlib import Path

import lightning as L
import torch
from lightning.pytorch.callbacks import ModelCheckpoint
from torch.utils.data import DataLoader, Dataset

import fairshard
from fairshard.integrations.lightning import ExactResume

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the checkout: tests._job_end
from tests._job_end import end_job

N = 80
LENGTHS = [1 + (5 * i) % 11 for i in range(N)]


class Indexed(Dataset):
    def __len__(self):
        return N

    def __getitem__(self, i):
        return i, torch.full((4,), float(i) / N)


def collate(rows):
    return torch.tensor([r[0] for r in rows]), torch.stack([r[1] for r in rows])


class Module(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
        self.seen = {}

    def training_step(self, batch, batch_idx):
        idx, x = batch
        self.seen.setdefault(str(self.current_epoch), []).append(idx.tolist())
        return self.net(x).pow(2).mean()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


def trainer_for(out, **flags):
    return L.Trainer(
        accelerator="cpu",
        devices=2,
        strategy="ddp",
        use_distributed_sampler=False,  # the one step a fairshard batch sampler needs
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=str(out),
        **flags,
    )


def loader_for(trainer):
    batches = fairshard.LengthBucketBatchSampler(
        LENGTHS, 4, seed=6, num_replicas=trainer.world_size, rank=trainer.global_rank
    )
    return DataLoader(Indexed(), batch_sampler=batches, collate_fn=collate, num_workers=1)


def main():
    out, mode = Path(sys.argv[1]), sys.argv[2]
    if mode == "before":
        early = DataLoader(Indexed(), batch_sampler=fairshard.LengthBucketBatchSampler(LENGTHS, 4))
        trainer_for(out, max_epochs=1).fit(Module(), early)
        return
    ckpt = ModelCheckpoint(
        dirpath=str(out), filename="{step}", every_n_train_steps=3, save_top_k=-1
    )
    resume = ExactResume()
    first = trainer_for(out, max_steps=5, callbacks=[resume, ckpt])
    module = Module()
    first.fit(module, resume.loader(loader_for(first)))
    phase1 = module.seen

    resume = ExactResume()
    second = trainer_for(out, max_epochs=2, callbacks=[resume])
    module = Module()
    second.fit(module, resume.loader(loader_for(second)), ckpt_path=str(out / "step=3.ckpt"))
    payload = {
        "rank": second.global_rank,
        "world": second.world_size,
        "phase1": phase1,
        "phase2": module.seen,
    }
    (out / f"rank{second.global_rank}.json").write_text(json.dumps(payload))


if __name__ == "__main__":
    main()
    end_job()  # together, the group torn down, no finalization (tests/_job_end.py)
