"""Hard-example mining: draw samples with probability rising with their loss.

    torchrun --nproc-per-node 4 examples/train_hard_examples.py --epochs 5

IndexedDataset makes every sample arrive with its index, so the training step
can record(indices, losses). set_epoch(e) is a collective: the ranks
exchange what they recorded and all update the same scores, so their plans
stay identical. Rank 0 prints the share of draws that went to the hardest
tenth of the data.
"""

import argparse

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
    x = torch.randn(args.samples, 16, generator=g)
    y = (x[:, 0] + 0.3 * torch.randn(args.samples, generator=g) > 0).long()  # noisy near 0
    dataset = fairshard.IndexedDataset(TensorDataset(x, y))  # items: (index, (x, y))

    sampler = fairshard.HardExampleSampler(len(dataset), seed=0)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)
    net = model(16, 2, device)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    hardest = set(torch.argsort(x[:, 0].abs())[: args.samples // 10].tolist())
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)  # collective: every rank must call it
        seen = []
        for idx, (xb, yb) in loader:
            losses = torch.nn.functional.cross_entropy(
                net(xb.to(device)), yb.to(device), reduction="none"
            )
            opt.zero_grad()
            losses.mean().backward()
            opt.step()
            sampler.record(idx, losses.detach().cpu())
            seen.extend(idx.tolist())
        shares = gather(seen)
        if dist.get_rank() == 0:
            drawn = [i for s in shares for i in s]
            share = sum(i in hardest for i in drawn) / len(drawn)
            print(
                f"epoch {epoch}: {share:.0%} of draws from the hardest 10% "
                f"(mean loss {losses.mean().item():.3f})",
                flush=True,
            )
    finish()


if __name__ == "__main__":
    main()
