"""Class-balanced sampling annealed toward the natural distribution, under torchrun.

    torchrun --nproc-per-node 4 examples/train_balanced.py --epochs 5

Each sample is drawn with weight count(class) ** -alpha; alpha goes from 1
(every class equally often) to 0 (the data as it is) over the run, so rare
classes are learned early without overfitting them late. Rank 0 prints the
class mix the ranks drew together each epoch.
"""

import argparse

import numpy as np
import torch
import torch.distributed as dist
from _common import finish, gather, init, model
from torch.utils.data import DataLoader, TensorDataset

import fairshard


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--batch-size", type=int, default=32)
    args = p.parse_args()
    device = init()
    g = torch.Generator().manual_seed(0)
    # Long-tailed labels: class c has about half as many samples as class c - 1.
    draws = np.random.default_rng(0).geometric(0.5, args.samples) - 1
    labels = torch.from_numpy(np.minimum(draws, 4))
    x = torch.randn(args.samples, 16, generator=g) + labels[:, None].float()
    dataset = TensorDataset(torch.arange(args.samples), x, labels)

    anneal = fairshard.LinearAnneal(start=1.0, end=0.0, epochs=args.epochs)
    sampler = fairshard.ClassBalancedSampler(labels.numpy(), alpha=anneal, seed=0)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)
    net = model(16, 5, device)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)  # also moves alpha along the anneal
        seen = []
        for idx, xb, yb in loader:
            loss = torch.nn.functional.cross_entropy(net(xb.to(device)), yb.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen.extend(idx.tolist())
        shares = gather(seen)
        if dist.get_rank() == 0:
            drawn = labels[[i for s in shares for i in s]]
            mix = torch.bincount(drawn, minlength=5).tolist()
            print(
                f"epoch {epoch}: class mix drawn {mix} (dataset "
                f"{torch.bincount(labels, minlength=5).tolist()})",
                flush=True,
            )
    finish()


if __name__ == "__main__":
    main()
