# The split helper draws unseeded, but main seeds NumPy alike on every rank
# (transformers' set_seed) before it calls the builder that calls the helper.
import torch.distributed as dist
from datasets import Dataset
from transformers import set_seed


def local_dataset(path):
    full = Dataset.from_json(path)
    return full.train_test_split(test_size=0.1)


def make_data_module(args):
    def load_data(name):
        return local_dataset(name)

    return load_data(args.dataset)


def main(args, trainer_cls):
    dist.init_process_group("nccl")
    set_seed(args.seed)
    data = make_data_module(args)
    return trainer_cls(train_dataset=data["train"], eval_dataset=data["test"]).train()
