# The method the options dict is handed to fills only its batch size: the loader
# spreads shuffle=True with no sampler, and every rank reads the whole set.
import torch.distributed as dist
from torch.utils.data import DataLoader


class Workbench:
    def __init__(self, ddp, training_set):
        self.ddp = ddp
        self.training_set = training_set
        if ddp:
            dist.init_process_group("gloo")

    def get_sampler(self, dataset, params):
        if self.ddp:
            params["batch_size"] = 4

    def loaders(self):
        train_params = {"batch_size": 8, "shuffle": True}
        self.get_sampler(self.training_set, train_params)
        return DataLoader(self.training_set, **train_params)  # expect: FS103

    def train(self, epochs):
        loader = self.loaders()
        for _epoch in range(epochs):
            for batch in loader:
                print(batch)
