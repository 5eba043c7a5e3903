"""Lightning Trainer on CPU, 2 DDP processes, a fairshard sampler; records what each rank saw.

Usage: python lightning_job.py OUT_DIR (correct|forgot)

``correct`` builds the Trainer with use_distributed_sampler=False; ``forgot``
leaves Lightning's default (True). Each rank writes OUT_DIR/rank{r}.json with
the indices it saw per epoch and what ``check_lightning`` said.
"""

import json
import sys
from pathlib import Path

import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset

import fairshard
from fairshard.integrations import check_lightning

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
        self.seen = {}
        self.check = "ok"

    def train_dataloader(self):
        sampler = fairshard.DistributedSampler(Indexed(), seed=3)
        return DataLoader(Indexed(), batch_size=5, sampler=sampler)

    def on_train_start(self):
        try:
            check_lightning(self.trainer)
        except fairshard.ConfigError as exc:
            self.check = str(exc)

    def training_step(self, batch, batch_idx):
        idx, x = batch
        self.seen.setdefault(self.current_epoch, []).extend(idx.tolist())
        return self.net(x).pow(2).mean()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)

    def on_train_end(self):
        rank = self.trainer.global_rank
        payload = {
            "rank": rank,
            "world": self.trainer.world_size,
            "check": self.check,
            "seen": {str(k): v for k, v in self.seen.items()},
        }
        (self.out / f"rank{rank}.json").write_text(json.dumps(payload))


def main():
    out, mode = Path(sys.argv[1]), sys.argv[2]
    trainer = L.Trainer(
        accelerator="cpu",
        devices=2,
        strategy="ddp",
        max_epochs=2,
        use_distributed_sampler=(mode == "forgot"),
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(Module(out))


if __name__ == "__main__":
    main()
