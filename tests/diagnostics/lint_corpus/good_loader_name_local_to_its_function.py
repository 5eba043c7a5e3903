# The same name in two functions is two variables: the sharded train_loader of
# training_loader says nothing of the plain (non-distributed) one that testing_loader
# builds and a one-process probe reads for several passes; a module-level loader of that
# name is not the function's own either.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def training_loader(dataset, batch_size):
    train_loader = DataLoader(dataset, batch_size=batch_size, sampler=DistributedSampler(dataset))
    return train_loader


def testing_loader(dataset, batch_size):
    train_loader = DataLoader(dataset, batch_size=batch_size, shuffle=False)
    return train_loader


def probe(dataset, model, passes):
    train_loader = testing_loader(dataset, 32)
    for _ in range(passes):
        for batch in train_loader:
            model(batch)


def main(dataset, model, epochs):
    dist.init_process_group("nccl")
    loader = training_loader(dataset, 32)
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            model(batch)


if __name__ == "__main__":
    train_loader = training_loader(None, 32)
