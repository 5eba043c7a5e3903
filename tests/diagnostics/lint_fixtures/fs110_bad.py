import numpy as np
import torch.distributed as dist
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, SubsetRandomSampler, random_split
from transformers import set_seed


def loaders(dataset, train_indices):
    dist.init_process_group("nccl")
    train, val = random_split(dataset, [0.9, 0.1])  # FS110
    sampler = SubsetRandomSampler(train_indices)  # FS110
    return DataLoader(train), DataLoader(val), DataLoader(dataset, sampler=sampler)


def library_splits(hf_dataset, features, labels):
    parts = hf_dataset.train_test_split(test_size=0.1)  # FS110
    x_train, x_val, y_train, y_val = train_test_split(features, labels, test_size=0.1)  # FS110
    return parts, x_train, x_val, y_train, y_val


def main_split(hf_dataset):
    parts = hf_dataset.train_test_split(test_size=0.3)  # FS110
    np.random.seed(0)  # after the draw: each rank's split is already its own
    return parts


def split_file(hf_dataset):
    return hf_dataset.train_test_split(test_size=0.2)  # FS110


def run(hf_dataset, seed):
    first = split_file(hf_dataset)  # before the seed: ranks differ
    set_seed(seed)
    return first, split_file(hf_dataset)


if __name__ == "__main__":
    main_split(None)
