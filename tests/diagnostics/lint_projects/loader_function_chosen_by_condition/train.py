"""The loader's function is chosen by a conditional expression: on GPUs, the distributed one,
whose sampler no code of the loop below ever gives an epoch."""

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
    while step < steps:  # expect: FS101
        for batch in dl:
            model(batch).sum().backward()
            step += 1
