"""The corpus loader's epochs, run through a helper: no loop here shows the sampler.

The finetuning script's reported loop shares only a helper module with this one, so
it is not this sampler's finding: the sampler is named in its own right.
"""

import torch
import torch.distributed as dist
from lib.corpus import CorpusLoader
from lib.utils import log


def run_epoch(model, data_loader):
    for batch in data_loader:
        model(batch).sum().backward()


def main(epochs):
    dist.init_process_group("gloo")
    model = torch.nn.Linear(3, 1)
    train_loader = CorpusLoader(torch.randn(64, 3), batch_size=8, distributed=True)
    for epoch in range(epochs):
        run_epoch(model=model, data_loader=train_loader)
        log("epoch", epoch)


if __name__ == "__main__":
    main(10)
