# The training loop evaluates every eval_interval steps: test() reads the validation
# loader in the same order each time, which is what an evaluation should do.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def test(model, loader):
    return sum(model(batch).sum() for batch in loader)


def main(model, train_set, val_set, args):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(train_set, shuffle=True)
    loader = DataLoader(train_set, sampler=sampler)
    val_loader = DataLoader(val_set, sampler=DistributedSampler(val_set, drop_last=True))
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, batch in enumerate(loader):
            model(batch).sum().backward()
            if step % args.eval_interval == 0:
                test(model, val_loader)
