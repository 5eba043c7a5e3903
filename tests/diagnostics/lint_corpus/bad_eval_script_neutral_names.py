# An evaluation script (its file name says so, and it trains nothing): the
# sampler and loader have neutral names, the padded shares are gathered and
# scored together.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def run(model, loader):
    outputs = [model(x).argmax(1) == y for x, y in loader]
    gathered = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, outputs)
    return [o for part in gathered for o in part]


if __name__ == "__main__":
    dist.init_process_group("nccl")
    dataset = torch.load("dataset.pt")
    sampler = DistributedSampler(dataset, shuffle=False)  # expect: FS109
    dataloader = DataLoader(dataset, batch_size=1, sampler=sampler)
    results = run(torch.load("model.pt"), dataloader)
    if dist.get_rank() == 0:
        print(sum(r.float().mean() for r in results) / len(results))
