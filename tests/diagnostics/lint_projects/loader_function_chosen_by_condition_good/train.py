"""The loader's function is chosen by a conditional expression: on GPUs, the distributed one,
whose sampler the loop gives each epoch."""

import distribute
import loaders
import torch
import torch.distributed as dist


def train(dataset: torch.utils.data.Dataset, model: torch.nn.Module, steps: int) -> None:
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    get_data_loader = (
        distribute.get_distributed_loader if torch.cuda.is_available() else loaders.get_loader
    )
    dl = get_data_loader(dataset, batch_size=8)
    step = 0
    epoch = 0
    while step < steps:
        if hasattr(dl.sampler, "set_epoch"):
            dl.sampler.set_epoch(epoch)
        epoch += 1
        for batch in dl:
            model(batch).sum().backward()
            step += 1
