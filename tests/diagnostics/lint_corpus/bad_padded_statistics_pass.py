# A reference-statistics pass: it trains nothing, the sampler pads, and every batch is
# all-gathered into the statistics, so the padding's repeats are counted.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def gather_concat(x):
    parts = [torch.empty_like(x) for _ in range(dist.get_world_size())]
    dist.all_gather(parts, x)
    return torch.cat(parts)


def main(data, fid, batch_size):
    dist.init_process_group("nccl")
    data_sampler = DistributedSampler(data, shuffle=False)  # expect: FS109
    data_loader = DataLoader(data, sampler=data_sampler, batch_size=batch_size)
    for x, _ in data_loader:
        fid.update(gather_concat(x.cuda()), real=True)
    if dist.get_rank() == 0:
        torch.save(fid.state_dict(), "fid_stats.pth")
