# Under DDP: a test loader every rank reads whole (rank 0 logs its own mean: repeated
# work, no wrong count), and a throwaway loader that takes one batch for a picture.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, train_set, test_set, args):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(train_set)
    train_loader = DataLoader(train_set, sampler=sampler)
    testingdata = DataLoader(test_set, batch_size=args.testbatchsize, shuffle=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in train_loader:
            model(batch).sum().backward()
        if dist.get_rank() == 0:
            print(sum(model(batch).mean() for batch in testingdata))


def snapshot(dataset, visualize, num_samples=100):
    dataloader = DataLoader(dataset, batch_size=num_samples, shuffle=True)
    data = next(iter(dataloader))
    return visualize(data)
