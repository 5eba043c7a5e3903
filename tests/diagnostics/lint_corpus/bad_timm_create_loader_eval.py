# timm's create_loader builds the evaluation loader on its OrderedDistributedSampler
# (padded by repeating) when distributed; validate all-reduces accuracy per batch.
import torch
import torch.distributed as dist
from timm.data import create_loader


def main(args, model, dataset_train, dataset_eval):
    dist.init_process_group("nccl")
    loader_train = create_loader(
        dataset_train, input_size=224, batch_size=64, is_training=True, distributed=True
    )
    loader_eval = create_loader(  # expect: FS109
        dataset_eval,
        input_size=224,
        batch_size=128,
        is_training=False,
        distributed=args.distributed,
    )
    probe = create_loader(dataset_eval, 224, 128, distributed=True)  # expect: FS109
    for epoch in range(args.epochs):
        loader_train.sampler.set_epoch(epoch)
        for x, y in loader_train:
            model(x).sum().backward()
        correct = torch.zeros(1)
        for x, y in loader_eval:
            correct += (model(x).argmax(1) == y).sum()
        dist.all_reduce(correct)
    seen = sum(len(y) for x, y in probe)
    dist.all_reduce(seen)  # counts the padded repeats too
    return seen
