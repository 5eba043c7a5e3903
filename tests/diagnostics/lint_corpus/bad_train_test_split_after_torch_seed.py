# torch.manual_seed seeds torch's generator only: the datasets split draws from NumPy's
# global state, which no rank seeds alike, so every rank of the torchrun job holds its
# own train and test parts.
import torch
import torch.distributed as dist
from datasets import load_dataset
from torch.utils.data import DataLoader, DistributedSampler

torch.manual_seed(1337)
parts = load_dataset("text", data_files="corpus.txt")["train"].train_test_split(  # expect: FS110
    test_size=0.01
)


def main(model, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(parts["train"], shuffle=True)
    loader = DataLoader(parts["train"], sampler=sampler, batch_size=8)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
