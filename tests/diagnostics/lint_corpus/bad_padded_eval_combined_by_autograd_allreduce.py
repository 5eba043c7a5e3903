# The evaluation averages top-1 over the ranks through an autograd Function
# that all-reduces (AllReduce.apply), after a padded sampler: the repeats
# enter the reported accuracy.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class AllReduce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x = x.clone()
        dist.all_reduce(x)
        return x / dist.get_world_size()

    @staticmethod
    def backward(ctx, grad):
        return grad


def evaluate(model, val_dataset):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(val_dataset, shuffle=False)  # expect: FS109
    val_loader = DataLoader(val_dataset, batch_size=64, sampler=sampler)
    correct, total = torch.zeros(()), torch.zeros(())
    for images, labels in val_loader:
        with torch.no_grad():
            correct += (model(images).argmax(1) == labels).sum()
            total += labels.numel()
    return AllReduce.apply(correct / total)
