"""Training on a mixture of datasets with fairshard.MixtureSampler, under torchrun.

    torchrun --nproc-per-node 4 examples/train_mixture.py --epochs 3

Three toy sources of different sizes are mixed 50/30/20 through one
``ConcatDataset``. Every prefix of the global plan holds each source within
one sample of its share, each rank takes its strided share of it, and a source
that runs out is re-shuffled (the small one makes several passes per epoch).
Rank 0 prints what the ranks drew from each source against the target, and
how many passes each source made.
"""

import argparse

import numpy as np
import torch
import torch.distributed as dist
from _common import finish, gather, init, model
from torch.utils.data import ConcatDataset, DataLoader, TensorDataset

import fairshard


def source(n: int, label: int, seed: int) -> TensorDataset:
    """``n`` samples of 8 features whose mean shifts with ``label``; targets are the label."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g) + label
    return TensorDataset(torch.arange(n), x, torch.full((n,), label))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--samples", type=int, default=3000, help="draws per epoch, all ranks")
    p.add_argument("--batch-size", type=int, default=32)
    args = p.parse_args()
    device = init()
    sizes = [args.samples, args.samples // 2, args.samples // 20]
    parts = [source(n, k, seed=k) for k, n in enumerate(sizes)]
    weights = [0.5, 0.3, 0.2]
    sampler = fairshard.MixtureSampler(parts, weights, num_samples=args.samples, seed=0)
    loader = DataLoader(ConcatDataset(parts), sampler=sampler, batch_size=args.batch_size)
    net = model(8, 3, device)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        per_source = np.zeros(3, dtype=np.int64)
        for _, xb, yb in loader:
            loss = torch.nn.functional.cross_entropy(net(xb.to(device)), yb.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            per_source += np.bincount(yb.numpy(), minlength=3)
        shares = gather(per_source.tolist())
        if dist.get_rank() == 0:
            drawn = np.sum(shares, axis=0)
            target = np.array(weights) * drawn.sum()
            print(
                f"epoch {epoch}: draws per source {drawn.tolist()} (target "
                f"{np.round(target, 1).tolist()}), passes {sampler.passes().tolist()}, "
                f"loss {loss.item():.3f}",
                flush=True,
            )
    finish()


if __name__ == "__main__":
    main()
