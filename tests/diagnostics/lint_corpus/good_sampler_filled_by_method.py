# The options dict is handed to a method that fills its "sampler" key (and turns
# shuffle off) before the loader spreads it: the loader is sharded.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Workbench:
    def __init__(self, ddp, training_set):
        self.ddp = ddp
        self.training_set = training_set
        if ddp:
            dist.init_process_group("gloo")

    def get_sampler(self, dataset, params):
        if self.ddp:
            params["sampler"] = DistributedSampler(dataset, shuffle=True)
            params["shuffle"] = False

    def loaders(self):
        train_params = {"batch_size": 8, "shuffle": True}
        self.get_sampler(self.training_set, train_params)
        return DataLoader(self.training_set, **train_params)

    def train(self, epochs):
        loader = self.loaders()
        for epoch in range(epochs):
            loader.sampler.set_epoch(epoch)
            for batch in loader:
                print(batch)
