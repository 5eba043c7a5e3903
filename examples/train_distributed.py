"""Sharded shuffling with fairshard.DistributedSampler, checkpointed mid-epoch.

    torchrun --nproc-per-node 4 examples/train_distributed.py --epochs 3

The only change from a PyTorch script is the import of DistributedSampler.
Rank 0 prints, every epoch, how many distinct samples the ranks saw together
(all of them), and saves the sampler's state mid-way through the last epoch:
load it into a sampler on any number of ranks to finish that epoch.
"""

import argparse

import torch
import torch.distributed as dist
from _common import finish, gather, init, model
from torch.utils.data import DataLoader, TensorDataset

import fairshard
from fairshard import DistributedSampler  # was: from torch.utils.data import DistributedSampler


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--checkpoint", default=None, help="where to save the mid-epoch state")
    args = p.parse_args()
    device = init()
    g = torch.Generator().manual_seed(0)
    x = torch.randn(args.samples, 16, generator=g)
    y = (x[:, 0] > 0).long()
    dataset = TensorDataset(torch.arange(args.samples), x, y)

    sampler = DistributedSampler(dataset, seed=0)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)
    net = model(16, 2, device)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)  # before iter(loader): the order is fixed when iteration starts
        seen = []
        for step, (idx, xb, yb) in enumerate(loader):
            loss = torch.nn.functional.cross_entropy(net(xb.to(device)), yb.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen.extend(idx.tolist())
            mid_last = epoch == args.epochs - 1 and step == len(loader) // 2
            if args.checkpoint and mid_last and dist.get_rank() == 0:
                # Every rank is at the same step: rank 0's state is the job's state.
                # save_atomic: a kill mid-write leaves the previous file, never a torn one.
                # To survive torchrun restarts, also join with
                # fairshard.init_elastic_process_group: see examples/train_elastic.py.
                fairshard.save_atomic(
                    {"sampler": sampler.state_dict(), "model": net.module.state_dict()},
                    args.checkpoint,
                )
        shares = gather(seen)
        if dist.get_rank() == 0:
            distinct = len(set().union(*shares))
            print(
                f"epoch {epoch}: {dist.get_world_size()} ranks x {len(shares[0])} samples, "
                f"{distinct} distinct of {len(dataset)}, loss {loss.item():.3f}",
                flush=True,
            )
    finish()


if __name__ == "__main__":
    main()
