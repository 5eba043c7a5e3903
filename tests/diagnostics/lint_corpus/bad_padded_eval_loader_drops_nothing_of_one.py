# drop_last=True drops nothing with one sample per batch: every padded repeat is read,
# and the all-reduced accuracy counts it twice.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, test_set):
    sampler = DistributedSampler(test_set, shuffle=False)  # expect: FS109
    loader = DataLoader(test_set, batch_size=1, sampler=sampler, drop_last=True)
    correct = torch.zeros(2)
    for images, labels in loader:
        correct += torch.tensor([(model(images).argmax(1) == labels).sum().item(), len(labels)])
    dist.all_reduce(correct)
    return (correct[0] / correct[1]).item()
