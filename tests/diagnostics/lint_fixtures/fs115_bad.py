import os

import torch.distributed as dist
import webdataset as wds
from accelerate import Accelerator
from datasets import load_dataset
from datasets.distributed import split_dataset_by_node
from torch.utils.data import DataLoader, IterableDataset, Subset
from transformers import Trainer


class Lines(IterableDataset):
    def __init__(self, files):
        self.files = files

    def __iter__(self):
        rank, world = dist.get_rank(), dist.get_world_size()
        for i, path in enumerate(self.files):
            if i % world == rank:
                yield path


def prepared(model, optimizer, files, urls, table):
    accelerator = Accelerator()
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    lines = DataLoader(Lines(files), batch_size=8)
    shards = DataLoader(wds.WebDataset(urls, nodesplitter=wds.split_by_node), batch_size=8)
    mine = DataLoader(Subset(table, range(rank, len(table), world)), batch_size=8)
    model, optimizer, lines = accelerator.prepare(model, optimizer, lines)
    shards, mine = accelerator.prepare(shards), accelerator.prepare(mine)  # FS115 twice here
    return model, optimizer, lines, shards, mine


def train(model, args):
    stream = load_dataset("text", data_files="corpus/*.txt", streaming=True)["train"]
    stream = split_dataset_by_node(stream, rank=dist.get_rank(), world_size=dist.get_world_size())
    Trainer(model=model, args=args, train_dataset=stream).train()
