# The tree calls the builder for training and for evaluation.
import torch.distributed as dist
from loader import create_label_loader


def main(model, dataset_train, dataset_eval, epochs):
    dist.init_process_group("nccl")
    train = create_label_loader(dataset_train, 64, is_training=True, distributed=True)
    evaluation = create_label_loader(dataset_eval, 64, distributed=True)
    for epoch in range(epochs):
        train.sampler.set_epoch(epoch)
        for x in train:
            model(x).sum().backward()
    score = sum(model(x).sum() for x in evaluation)
    dist.all_reduce(score)
    return score
