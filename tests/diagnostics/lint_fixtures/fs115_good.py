import webdataset as wds
from accelerate import Accelerator
from datasets import load_dataset
from torch.utils.data import DataLoader, IterableDataset
from transformers import Trainer


class Lines(IterableDataset):
    def __init__(self, files):
        self.files = files

    def __iter__(self):
        yield from self.files  # every file: accelerate splits the stream once


def prepared(model, optimizer, files, urls):
    accelerator = Accelerator()
    whole = DataLoader(Lines(files), batch_size=8)
    model, optimizer, whole = accelerator.prepare(model, optimizer, whole)
    # split by node by hand: the loader is not prepared, batches go to the device here
    shards = DataLoader(wds.WebDataset(urls, nodesplitter=wds.split_by_node), batch_size=8)
    return model, optimizer, whole, shards


def train(model, args):
    stream = load_dataset("text", data_files="corpus/*.txt", streaming=True)["train"]
    Trainer(model=model, args=args, train_dataset=stream).train()  # the Trainer splits it once
