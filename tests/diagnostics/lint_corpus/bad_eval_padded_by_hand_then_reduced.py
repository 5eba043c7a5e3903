# A validation split across ranks by hand, the way DistributedSampler pads: the work list
# is padded with its own first items to a multiple of the world size, each rank takes its
# stride, and the loss sums are all-reduced, so the repeated items count twice.
import torch
import torch.distributed as dist


def validation_pass(model, samples, device):
    rank, world = dist.get_rank(), dist.get_world_size()
    work = [(s, t) for s in range(len(samples)) for t in (0, 1, 2, 3)]
    pad = (-len(work)) % max(1, world)
    if pad:
        work = work + work[:pad]  # expect: FS109
    my_work = work[rank::world] if world > 1 else work
    total, count = 0.0, 0
    with torch.no_grad():
        for s, t in my_work:
            total += float(model(samples[s], t))
            count += 1
    sums = torch.tensor([total, count], dtype=torch.float64, device=device)
    dist.all_reduce(sums, op=dist.ReduceOp.SUM)
    return (sums[0] / sums[1]).item()
