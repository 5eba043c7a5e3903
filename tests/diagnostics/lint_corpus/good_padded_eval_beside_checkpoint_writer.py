# Each rank scores its own padded share and logs it; the project's checkpoint writer, handed
# the model and its optimizer by keyword, saves weights, not a result for a later merge.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, optimizer, saver, eval_set, epoch):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(eval_set, shuffle=False)
    loader = DataLoader(eval_set, batch_size=64, sampler=sampler)
    correct = 0
    with torch.no_grad():
        for inputs, targets in loader:
            correct += (model(inputs).argmax(-1) == targets).sum().item()
    print(f"rank {dist.get_rank()} accuracy {correct / len(eval_set):.3f}")
    saver.save(module=model, optimizer=optimizer, epoch=epoch)
