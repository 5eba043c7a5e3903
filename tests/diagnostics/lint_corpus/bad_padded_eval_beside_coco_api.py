import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, dataset_val):
    # accuracy averaged over the padded shares: repeats counted (no COCO evaluator here)
    dist.init_process_group("nccl")
    sampler_val = DistributedSampler(dataset_val, shuffle=False)  # expect: FS109
    correct = total = 0
    for images, labels in DataLoader(dataset_val, sampler=sampler_val):
        correct += (model(images).argmax(1) == labels).sum().item()
        total += len(labels)
    counts = torch.tensor([correct, total])
    dist.all_reduce(counts)
    return (counts[0] / counts[1]).item()
