# A fairshard loader handed to accelerator.prepare, which shards it a second time.
from accelerate import Accelerator
from torch.utils.data import DataLoader

import fairshard


def main(model, optimizer, dataset, epochs):
    accelerator = Accelerator()
    sampler = fairshard.DistributedSampler(dataset, auto_epoch=True)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)  # expect: FS114
    for epoch in range(epochs):
        for batch in loader:
            accelerator.backward(model(batch).sum())
