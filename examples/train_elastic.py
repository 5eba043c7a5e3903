"""Elastic training: lose a node, shrink, grow back, and still see every sample once.

Run the same command on every node (here two nodes of two processes; the job
goes on with one node and takes a second one back when it returns)::

    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes 1:2 --nproc-per-node 2 \\
        --max-restarts 3 --rdzv-backend c10d --rdzv-endpoint HOST:29400 \\
        examples/train_elastic.py --checkpoint /shared/ckpt.pt

``TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1`` gives every rendezvous round a
fresh store, and ``fairshard.init_elastic_process_group`` joins it: a
restarted or regrown generation never reads a dead one's addresses.

The checkpoint protocol (docs/faults.md, "Checkpoints for elastic jobs"):

1. *Which rank, when*: rank 0, at a step boundary (after the optimizer step,
   every rank has taken the same number of steps, so rank 0's sampler state
   is the job's), every ``--every`` steps and at each epoch's end, together
   with the model and optimizer of the same step.
2. *How*: ``fairshard.save_atomic`` (temporary file, fsync, rename): a kill
   at any moment leaves the previous checkpoint or the new one.
3. *Loading on another world size*: every rank of the new generation builds
   its sampler for the world it is in now and loads the same state; the
   epoch's unconsumed tail is re-partitioned over the new ranks.
4. *What is redone*: the steps after the last checkpoint (at most
   ``--every`` per rank), with the model of that checkpoint -- nothing of
   the epoch is lost, nothing is repeated beyond that window.

The loader has worker processes (``--workers``, default 2) that prefetch
ahead of the loop, so the state saved is ``fairshard.loader_state_dict(loader,
batches=...)``: what the loop took, not what the workers fetched (a plain
``sampler.state_dict()`` would count the prefetched batches, and raises
mid-epoch to say so).
For the demonstration, the checkpoint also carries the indices each epoch
has consumed so far, so rank 0 can print how many distinct samples the
epoch saw across generations.
"""

import argparse
import os

import torch
import torch.distributed as dist
from _common import finish, gather, model
from torch.utils.data import DataLoader, TensorDataset

import fairshard
from fairshard import DistributedSampler


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--every", type=int, default=2, help="checkpoint every k steps")
    p.add_argument("--checkpoint", default="elastic-ckpt.pt")
    p.add_argument("--workers", type=int, default=2, help="DataLoader worker processes")
    args = p.parse_args()
    fairshard.init_elastic_process_group("gloo", timeout=120)
    rank, world = dist.get_rank(), dist.get_world_size()
    g = torch.Generator().manual_seed(0)
    x = torch.randn(args.samples, 16, generator=g)
    y = (x[:, 0] > 0).long()
    dataset = TensorDataset(torch.arange(args.samples), x, y)

    sampler = DistributedSampler(dataset, seed=0)  # this generation's world size
    loader = DataLoader(
        dataset, batch_size=args.batch_size, sampler=sampler, num_workers=args.workers
    )
    net = model(16, 2, torch.device("cpu"))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    step, consumed, first = 0, [], 0
    if os.path.exists(args.checkpoint):
        saved = torch.load(args.checkpoint, weights_only=True)
        net.module.load_state_dict(saved["model"])
        opt.load_state_dict(saved["optimizer"])
        sampler.load_state_dict(saved["sampler"])  # saved on any world size
        step, consumed, first = saved["step"], saved["consumed"], sampler.epoch
        if rank == 0:
            print(
                f"resumed epoch {first} at step {step} on {world} ranks "
                f"(saved on {saved['world_size']})",
                flush=True,
            )
    for epoch in range(first, args.epochs):
        if epoch != first or step == 0:
            sampler.set_epoch(epoch)  # not for the resumed epoch: load_state_dict set it
            consumed = []
        seen = []
        # This pass's batches: the rest of a resumed epoch (len(loader) is the whole epoch's).
        batches = -(-sampler.remaining // args.batch_size)
        for taken, (idx, xb, yb) in enumerate(loader, start=1):
            loss = torch.nn.functional.cross_entropy(net(xb), yb)
            opt.zero_grad()
            loss.backward()  # DDP's gradient all-reduce: every rank is at this step
            opt.step()
            step += 1
            seen.extend(idx.tolist())
            if step % args.every == 0 or taken == batches:
                shares = gather(seen)  # demonstration only: what the epoch consumed
                if rank == 0:
                    state = {
                        "sampler": fairshard.loader_state_dict(loader, batches=taken),
                        "model": net.module.state_dict(),
                        "optimizer": opt.state_dict(),
                        "step": step,
                        "world_size": world,
                        "consumed": consumed + [i for share in shares for i in share],
                    }
                    fairshard.save_atomic(state, args.checkpoint)
        shares = gather(seen)
        consumed = consumed + [i for share in shares for i in share]
        if rank == 0:
            print(
                f"epoch {epoch}: {len(set(consumed))} distinct of {len(dataset)} on {world} "
                f"ranks, {len(consumed)} consumed",
                flush=True,
            )
    finish()


if __name__ == "__main__":
    main()
