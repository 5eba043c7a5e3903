"""Data parallel x tensor parallel on a 2 x 2 device mesh: shard by the data-parallel group.

    torchrun --nproc-per-node 4 examples/train_mesh.py --epochs 2

The mesh has a data-parallel dim ``dp`` and a tensor-parallel dim ``tp``.
The model's two linear layers are split over ``tp`` (column-wise, then
row-wise, with torch's ``parallelize_module``): the two ranks of a tp group
compute one model on one batch, so they must read *identical* data. The
sampler is built with ``group=mesh["dp"]``: its world is the 2 data-parallel
ranks, and both tp peers of a dp rank take that rank's share.
``fairshard.verify(sampler, replicas=mesh["tp"])`` checks both promises at
the start. Rank 0 prints, every epoch, how many distinct samples the
data-parallel ranks saw together and whether every tp group read identical
batches; mid-way through the last epoch it saves the sampler state, which
loads on any other mesh (dp=4 x tp=1, dp=1 x tp=4).
"""

import argparse

import torch
import torch.distributed as dist
from _common import finish, init
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
from torch.utils.data import DataLoader, TensorDataset

import fairshard


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--checkpoint", default=None, help="where to save the mid-epoch state")
    args = p.parse_args()
    device = init()
    tp_size = 2
    mesh = init_device_mesh(
        device.type, (dist.get_world_size() // tp_size, tp_size), mesh_dim_names=("dp", "tp")
    )
    g = torch.Generator().manual_seed(0)
    x = torch.randn(args.samples, 16, generator=g)
    y = (x[:, 0] > 0).long()
    dataset = TensorDataset(torch.arange(args.samples), x, y)

    # The data-parallel group is the sampler's world; the tp peers are its replicas.
    sampler = fairshard.DistributedSampler(dataset, seed=0, group=mesh["dp"])
    fairshard.verify(sampler, replicas=mesh["tp"])
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
    net = parallelize_module(
        net.to(device), mesh["tp"], {"0": ColwiseParallel(), "2": RowwiseParallel()}
    )
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    dp_group = mesh["dp"].get_group()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        seen, identical = [], True
        for step, (idx, xb, yb) in enumerate(loader):
            peers = [None] * tp_size
            dist.all_gather_object(peers, idx.tolist(), group=mesh["tp"].get_group())
            identical &= all(peer == peers[0] for peer in peers)
            loss = torch.nn.functional.cross_entropy(net(xb.to(device)), yb.to(device))
            opt.zero_grad()
            loss.backward()
            for param in net.parameters():  # average the gradients over data parallel
                local = param.grad.to_local()
                dist.all_reduce(local, group=dp_group)
                local /= dist.get_world_size(dp_group)
            opt.step()
            seen.extend(idx.tolist())
            mid_last = epoch == args.epochs - 1 and step == len(loader) // 2
            if args.checkpoint and mid_last and dist.get_rank() == 0:
                # One state per job: every rank is at this step, so rank 0's will do.
                fairshard.save_atomic({"sampler": sampler.state_dict()}, args.checkpoint)
        shares = [None] * dist.get_world_size()
        dist.all_gather_object(shares, (sampler.rank, seen, identical))
        if dist.get_rank() == 0:
            dp_shares = {rank: set(items) for rank, items, _ in shares}
            distinct = len(set().union(*dp_shares.values()))
            print(
                f"epoch {epoch}: {sampler.num_replicas} data-parallel ranks x {len(sampler)} "
                f"samples, {distinct} distinct of {args.samples}; tp peers identical: "
                f"{all(same for _, _, same in shares)}",
                flush=True,
            )
    finish()


if __name__ == "__main__":
    main()
