# The tree calls the builder only for training (is_training=True): its padded
# evaluation branch never runs; the evaluation loader is built another way.
import torch.distributed as dist
from loader import create_label_loader
from torch.utils.data import DataLoader


def main(model, dataset_train, dataset_eval, epochs):
    dist.init_process_group("nccl")
    train = create_label_loader(dataset_train, 64, is_training=True, distributed=True)
    evaluation = DataLoader(dataset_eval, batch_size=64)
    for epoch in range(epochs):
        train.sampler.set_epoch(epoch)
        for x in train:
            model(x).sum().backward()
    return evaluation
