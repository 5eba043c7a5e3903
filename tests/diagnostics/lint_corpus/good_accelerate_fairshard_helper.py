# The fairshard loader goes through the integration helper; only the model is prepared.
from accelerate import Accelerator
from torch.utils.data import DataLoader

import fairshard
from fairshard.integrations.accelerate import prepare_data_loader


def main(model, optimizer, dataset, epochs):
    accelerator = Accelerator()
    sampler = fairshard.DistributedSampler(dataset)
    loader = prepare_data_loader(accelerator, DataLoader(dataset, batch_size=32, sampler=sampler))
    model, optimizer = accelerator.prepare(model, optimizer)
    for epoch in range(epochs):
        for batch in loader:
            accelerator.backward(model(batch).sum())
