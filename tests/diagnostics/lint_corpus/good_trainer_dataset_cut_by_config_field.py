# The dataclass holds the rank in one field; the cut reads another: every process keeps
# the same 90% of the data, and the Trainer splits it once.
import argparse
import os
from dataclasses import dataclass

import torch
from datasets import Dataset
from transformers import Trainer, TrainingArguments


@dataclass
class TrainingConfig:
    eval_split: float = 0.1
    local_rank: int = -1


def main(model: torch.nn.Module, dataset: Dataset) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--eval_split", type=float, default=0.1)
    args = parser.parse_args()
    config = TrainingConfig(eval_split=args.eval_split, local_rank=int(os.environ["LOCAL_RANK"]))
    start = int(len(dataset) * config.eval_split)
    eval_dataset = dataset.select(range(start))
    train_dataset = dataset.select(range(start, len(dataset)))
    trainer = Trainer(
        model=model,
        args=TrainingArguments(output_dir="out"),
        train_dataset=train_dataset,
        eval_dataset=eval_dataset,
    )
    trainer.train()
