# The same padding batch sampler; the evaluation cuts the merged predictions back to
# the evaluation set's length, so every sample counts once.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Sampler


class DistributedBatchSampler(Sampler):
    def __init__(self, sampler, rank=0, world_size=1, drop_last=False):
        self.sampler, self.rank, self.world_size = sampler, rank, world_size
        self.drop_last = drop_last

    def __iter__(self):
        for b in self.sampler:
            if len(b) % self.world_size != 0:
                if self.drop_last:
                    break
                b.extend([b[0] for _ in range(self.world_size - len(b) % self.world_size)])
            chunk = len(b) // self.world_size
            yield b[self.rank * chunk : (self.rank + 1) * chunk]

    def __len__(self):
        return len(self.sampler)


def merge_distributed(parts, max_len=None):
    gathered = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, torch.cat(parts))
    merged = torch.cat(gathered)
    return merged if max_len is None else merged[:max_len]


def evaluate(model, eval_data, batches, args):
    sampler = DistributedBatchSampler(batches, rank=args.rank, world_size=args.world_size)
    loader = DataLoader(eval_data, batch_sampler=sampler)
    predicts, labels = [], []
    for batch in loader:
        predicts.append(model(batch).argmax(-1))
        labels.append(batch["labels"])
    predicts = merge_distributed(predicts, len(eval_data))
    labels = merge_distributed(labels, len(eval_data))
    return (predicts == labels).float().mean()
