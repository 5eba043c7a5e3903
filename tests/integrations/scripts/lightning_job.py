"""Lightning Trainer on CPU, 2 DDP processes, fairshard samplers; records what each rank saw.

Usage: python lightning_job.py OUT_DIR (default|off)

``default`` builds the Trainer with Lightning's default flags
(``use_distributed_sampler=True``); ``off`` passes
``use_distributed_sampler=False``. Two training loaders (a
``DistributedSampler`` and a ``WeightedSampler``) and one validation loader
(``DistributedEvalSampler``). Each rank writes OUT_DIR/rank{r}.json with the
indices each loader yielded per epoch, the sampler classes Lightning left in
the loaders, and what ``check_lightning`` said.
"""

import json
import sys
from pathlib import Path

import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset

import fairshard
from fairshard.integrations import check_lightning

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the checkout: tests._job_end
from tests._job_end import end_job

N = 50


class Indexed(Dataset):
    def __len__(self):
        return N

    def __getitem__(self, i):
        return i, torch.full((4,), float(i) / N)


class Module(L.LightningModule):
    def __init__(self, out: Path):
        super().__init__()
        self.out = out
        self.net = torch.nn.Linear(4, 1)
        self.seen = {"plain": {}, "weighted": {}, "val": {}}
        self.check = "ok"
        self.samplers = {}

    def train_dataloader(self):
        plain = fairshard.DistributedSampler(Indexed(), seed=3)
        weighted = fairshard.WeightedSampler(torch.arange(1.0, N + 1), seed=5)
        return {
            "plain": DataLoader(Indexed(), batch_size=5, sampler=plain),
            "weighted": DataLoader(Indexed(), batch_size=5, sampler=weighted),
        }

    def val_dataloader(self):
        return DataLoader(Indexed(), batch_size=4, sampler=fairshard.DistributedEvalSampler(N))

    def on_train_start(self):
        try:
            check_lightning(self.trainer)
        except fairshard.ConfigError as exc:
            self.check = str(exc)
        for name, loader in self.trainer.train_dataloader.items():
            self.samplers[name] = type(loader.sampler).__name__

    def training_step(self, batch, batch_idx):
        loss = 0.0
        for name, (idx, x) in batch.items():
            self.seen[name].setdefault(self.current_epoch, []).extend(idx.tolist())
            loss = loss + self.net(x).pow(2).mean()
        return loss

    def validation_step(self, batch, batch_idx):
        if not self.trainer.sanity_checking:
            idx, _ = batch
            self.seen["val"].setdefault(self.current_epoch, []).extend(idx.tolist())

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)

    def on_train_end(self):
        rank = self.trainer.global_rank
        payload = {
            "rank": rank,
            "world": self.trainer.world_size,
            "check": self.check,
            "samplers": self.samplers,
            "seen": {
                name: {str(k): v for k, v in epochs.items()} for name, epochs in self.seen.items()
            },
        }
        (self.out / f"rank{rank}.json").write_text(json.dumps(payload))


def main():
    out, mode = Path(sys.argv[1]), sys.argv[2]
    flags = {} if mode == "default" else {"use_distributed_sampler": False}
    trainer = L.Trainer(
        accelerator="cpu",
        devices=2,
        strategy="ddp",
        max_epochs=2,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        **flags,
    )
    trainer.fit(Module(out))


if __name__ == "__main__":
    main()
    end_job()  # together, the group torn down, no finalization (tests/_job_end.py)
