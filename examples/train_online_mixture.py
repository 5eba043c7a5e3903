"""Online data mixing by steps: weights from per-domain losses, under torchrun.

    torchrun --nproc-per-node 4 examples/train_online_mixture.py --epochs 3

Three toy domains are mixed by an ``OnlineMixtureSampler`` read as an
endless, step-addressed stream (``StepSampler``). Every ``--every`` steps the
ranks all-reduce their per-domain loss sums, turn the mean losses into new
weights (a softmax: domains with higher loss get more weight, in the spirit
of DoReMi), and switch the mixture from the next step on. The switch goes
through one identity-checked exchange, so every rank applies the same
weights at the same position; rank 0 prints how many switches there were,
that every rank holds the same ones, and the worst prefix error within a
segment (below one sample).
"""

import argparse
import itertools

import numpy as np
import torch
import torch.distributed as dist
from _common import finish, gather, init, model
from torch.utils.data import ConcatDataset, DataLoader, TensorDataset

import fairshard


def domain(n: int, label: int, noise: float) -> TensorDataset:
    g = torch.Generator().manual_seed(label)
    x = torch.randn(n, 8, generator=g) * noise + label
    return TensorDataset(x, torch.full((n,), label))


def worst_segment_error(sampler: fairshard.OnlineMixtureSampler, epochs: int) -> float:
    """Largest |draws - target| over every prefix of every segment of the first epochs."""
    worst = 0.0
    for epoch in range(epochs):
        plan = sampler.plan(epoch)
        ends = [*plan.starts.tolist(), len(plan)]
        for lo, hi in itertools.pairwise(ends):
            sources = plan.sources(np.arange(lo, hi))
            counts = np.cumsum(np.eye(3, dtype=np.int64)[sources], axis=0)
            target = np.arange(1, hi - lo + 1)[:, None] * sampler.proportions_at(epoch, lo)
            worst = max(worst, float(np.abs(counts - target).max()))
    return worst


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3, help="epochs' worth of steps")
    p.add_argument("--samples", type=int, default=3000, help="draws per epoch, all ranks")
    p.add_argument("--batch-size", type=int, default=16, help="micro-batch per rank")
    p.add_argument("--every", type=int, default=5, help="steps between weight updates")
    args = p.parse_args()
    device = init()
    world = dist.get_world_size()
    parts = [domain(args.samples, 0, 0.5), domain(args.samples // 2, 1, 2.0), domain(50, 2, 4.0)]
    inner = fairshard.OnlineMixtureSampler(parts, [1, 1, 1], num_samples=args.samples, seed=0)
    global_batch = args.batch_size * world * 2  # two accumulation steps
    steps = fairshard.StepSampler(
        inner, micro_batch_size=args.batch_size, global_batch_size=global_batch
    )
    loader = iter(DataLoader(ConcatDataset(parts), batch_size=args.batch_size, sampler=steps))
    net = model(8, 3, device)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    total_steps = args.epochs * args.samples // global_batch
    sums, counts = torch.zeros(3), torch.zeros(3)
    for step in range(total_steps):
        opt.zero_grad()
        for _ in range(steps.accumulation_steps(step)):
            xb, yb = next(loader)
            losses = torch.nn.functional.cross_entropy(
                net(xb.to(device)), yb.to(device), reduction="none"
            ).cpu()
            (losses.mean() / steps.accumulation_steps(step)).backward()
            sums += torch.bincount(yb, weights=losses.detach(), minlength=3)
            counts += torch.bincount(yb, minlength=3)
        opt.step()
        if (step + 1) % args.every == 0:
            dist.all_reduce(sums)
            dist.all_reduce(counts)
            mean = (sums / counts.clamp(min=1)).numpy()
            weights = np.exp(mean - mean.max())
            epoch, position = steps.epoch_position(step + 1)  # from the next step on
            inner.update_weights(weights / weights.sum(), epoch=epoch, position=position)
            sums.zero_()
            counts.zero_()
    switches = gather(inner.switches())
    if dist.get_rank() == 0:
        same = all(s == switches[0] for s in switches)
        error = worst_segment_error(inner, args.epochs)
        print(
            f"steps {total_steps}: {len(switches[0])} switches, weights identical on "
            f"{world} ranks: {same}, worst prefix error in a segment {error:.2f} (< 1)"
        )
    finish()


if __name__ == "__main__":
    main()
