# An engine every rank builds; it hands its datasets to the task's hook.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Engine:
    def __init__(self, task, train_set, valid_set, test_set, batch_size):
        dist.init_process_group("gloo")
        if hasattr(task, "preprocess"):
            result = task.preprocess(train_set, valid_set, test_set)
            if result is not None:
                train_set, valid_set, test_set = result
        self.task = task
        self.train_set = train_set
        self.batch_size = batch_size

    def train(self, num_epoch):
        sampler = DistributedSampler(self.train_set)
        loader = DataLoader(self.train_set, self.batch_size, sampler=sampler)
        for epoch in range(num_epoch):
            sampler.set_epoch(epoch)
            for batch in loader:
                self.task(batch).backward()
