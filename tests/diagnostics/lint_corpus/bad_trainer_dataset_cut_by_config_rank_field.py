# The same dataclass, and the cut reads its rank field: each process keeps its own slice,
# and the Trainer shards that slice again, so each keeps 1/W of its share.
import argparse
import os
from dataclasses import dataclass

import torch
from datasets import Dataset
from transformers import Trainer, TrainingArguments


@dataclass
class TrainingConfig:
    world_size: int = 1
    rank: int = 0


def main(model: torch.nn.Module, dataset: Dataset) -> None:
    parser = argparse.ArgumentParser()
    parser.parse_args()
    config = TrainingConfig(world_size=int(os.environ["WORLD_SIZE"]), rank=int(os.environ["RANK"]))
    share = dataset.shard(num_shards=config.world_size, index=config.rank)
    trainer = Trainer(  # expect: FS115
        model=model, args=TrainingArguments(output_dir="out"), train_dataset=share
    )
    trainer.train()
