# Each rank writes what it scored on its padded share for a later merge of the files: the
# repeats of the padding land in two ranks' files.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, optimizer, saver, eval_set, epoch):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(eval_set, shuffle=False)  # expect: FS109
    loader = DataLoader(eval_set, batch_size=64, sampler=sampler)
    correct = 0
    with torch.no_grad():
        for inputs, targets in loader:
            correct += (model(inputs).argmax(-1) == targets).sum().item()
    print(f"rank {dist.get_rank()} accuracy {correct / len(eval_set):.3f}")
    saver.save(correct=correct, rank=dist.get_rank(), epoch=epoch)
