# The task's hook keeps a random part of the training set as labels; every rank runs it.
import torch
from torch.utils.data import Subset


class Completion(torch.nn.Module):
    def __init__(self, fact_ratio=None):
        super().__init__()
        self.fact_ratio = fact_ratio

    def preprocess(self, train_set, valid_set, test_set):
        if self.fact_ratio:
            length = int(len(train_set) * self.fact_ratio)
            index = torch.randperm(len(train_set))[length:]
            train_set = Subset(train_set, index)
        return train_set, valid_set, test_set
