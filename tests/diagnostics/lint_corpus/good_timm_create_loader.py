# timm's create_loader without distributed evaluation: one process evaluates, or
# the training flag cannot be read here; and a create_loader of the tree's own.
import torch.distributed as dist
from timm.data import create_loader

from .loaders import create_loader as create_own_loader


def main(args, model, dataset_train, dataset_eval):
    dist.init_process_group("nccl")
    loader_train = create_loader(
        dataset_train, input_size=224, batch_size=64, is_training=True, distributed=True
    )
    loader_eval = create_loader(
        dataset_eval, input_size=224, batch_size=128, is_training=False, distributed=False
    )
    loader_any = create_loader(
        dataset_eval, 224, 128, is_training=args.train, distributed=args.distributed
    )
    loader_own = create_own_loader(dataset_eval, 224, 128, distributed=True)
    for epoch in range(args.epochs):
        loader_train.sampler.set_epoch(epoch)
        for x, y in loader_train:
            model(x).sum().backward()
    return loader_eval, loader_any, loader_own
