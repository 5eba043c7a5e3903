from accelerate import Accelerator
from torch.utils.data import DataLoader, DistributedSampler

import fairshard
from fairshard.integrations.accelerate import prepare_data_loader


def build_loaders(dataset, batch_size):
    sampler = fairshard.DistributedSampler(dataset, seed=0)
    train_loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    eval_loader = DataLoader(dataset, sampler=fairshard.DistributedEvalSampler(dataset))
    return train_loader, eval_loader


def one_process_loader(dataset):
    loader = DataLoader(dataset, sampler=DistributedSampler(dataset, num_replicas=1, rank=0))
    return loader


def train_one_epoch(model, loader, accelerator):
    for batch in loader:
        accelerator.backward(model(batch).sum())


def main(dataset, model, optimizer, epochs):
    accelerator = Accelerator()
    train_loader, eval_loader = build_loaders(dataset, 32)
    train_loader = prepare_data_loader(accelerator, train_loader)  # accelerate calls set_epoch
    loader = accelerator.prepare(one_process_loader(dataset))
    model, optimizer = accelerator.prepare(model, optimizer)
    for epoch in range(epochs):
        for batch in train_loader:
            accelerator.backward(model(batch).sum())
        train_one_epoch(model, loader, accelerator)
