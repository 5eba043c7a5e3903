# A modulo of the step count by the batch size logs every tenth step: it says
# nothing of the padding, whose repeats are summed over the ranks.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, dataset, log_every):
    sampler = DistributedSampler(dataset, shuffle=False)  # expect: FS109
    loader = DataLoader(dataset, sampler=sampler, batch_size=8)
    correct = torch.zeros(2)
    for step, (x, y) in enumerate(loader):
        hits = model(x).argmax(-1) == y
        correct += torch.tensor([hits.sum(), len(y)])
        if step % log_every == 0:
            print(step, len(loader) % 10)
    dist.reduce(correct, 0)
    return correct[0] / correct[1]
