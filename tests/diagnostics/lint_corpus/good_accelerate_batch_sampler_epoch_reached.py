# The epoch reaches the batch sampler: set on the object built before prepare
# (prepare wraps that same object), on the loader before prepare, or through
# the wrapper's .batch_sampler; a batch sampler whose order rides on its
# .sampler (reached by DataLoaderShard.set_epoch); fairshard's recipe.
import random

from accelerate import Accelerator
from torch.utils.data import DataLoader, DistributedSampler, Sampler

import fairshard
from fairshard.integrations.accelerate import prepare_data_loader


class DynamicBatchSampler(Sampler):
    def __init__(self, sampler, random_seed=0):
        self.batches = [[i] for i in sampler]
        self.random_seed = random_seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        batches = list(self.batches)
        random.Random(self.random_seed + self.epoch).shuffle(batches)
        return iter(batches)


class BucketBatchSampler(Sampler):
    def __init__(self, sampler, size):
        self.sampler = sampler
        self.size = size

    def set_epoch(self, epoch):
        self.sampler.set_epoch(epoch)

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.size:
                yield batch
                batch = []


def object_itself(model, optimizer, dataset, epochs):
    accelerator = Accelerator()
    batch_sampler = DynamicBatchSampler(range(len(dataset)))
    loader = DataLoader(dataset, batch_sampler=batch_sampler)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(epochs):
        batch_sampler.set_epoch(epoch)
        for batch in loader:
            accelerator.backward(model(batch))


def through_the_wrapper(model, dataset, epochs):
    accelerator = Accelerator()
    raw = DataLoader(dataset, batch_sampler=DynamicBatchSampler(range(len(dataset))))
    prepared = accelerator.prepare(raw)
    for epoch in range(epochs):
        prepared.batch_sampler.batch_sampler.set_epoch(epoch)
        for batch in prepared:
            accelerator.backward(model(batch))


def unprepared_name(model, dataset, epochs):
    accelerator = Accelerator()
    raw = DataLoader(dataset, batch_sampler=DynamicBatchSampler(range(len(dataset))))
    prepared = accelerator.prepare(raw)
    for epoch in range(epochs):
        raw.batch_sampler.set_epoch(epoch)
        for batch in prepared:
            accelerator.backward(model(batch))


def order_on_the_sampler(model, dataset, epochs):
    accelerator = Accelerator()
    sampler = DistributedSampler(dataset, seed=0)
    bucketed = DataLoader(dataset, batch_sampler=BucketBatchSampler(sampler, 8))
    bucketed = accelerator.prepare(bucketed)
    for epoch in range(epochs):
        bucketed.set_epoch(epoch)
        for batch in bucketed:
            accelerator.backward(model(batch))


def fairshard_recipe(model, dataset, epochs):
    accelerator = Accelerator()
    sampler = fairshard.DistributedSampler(dataset, seed=0)
    recipe_loader = prepare_data_loader(accelerator, DataLoader(dataset, sampler=sampler))
    for epoch in range(epochs):
        recipe_loader.set_epoch(epoch)
        for batch in recipe_loader:
            accelerator.backward(model(batch))
