import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def evaluate(model, dataset_val, device):
    sampler_val = DistributedSampler(dataset_val, shuffle=False)  # expect: FS109
    loader = DataLoader(dataset_val, batch_size=256, sampler=sampler_val)
    correct = torch.zeros(1, device=device)
    total = torch.zeros(1, device=device)
    with torch.no_grad():
        for images, target in loader:
            correct += (model(images).argmax(1) == target).sum()
            total += target.numel()
    dist.all_reduce(correct)
    dist.all_reduce(total)
    return (correct / total).item()
