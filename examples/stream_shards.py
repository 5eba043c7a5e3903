"""An IterableDataset of record files, split across ranks x workers, under torchrun.

    torchrun --nproc-per-node 4 examples/stream_shards.py --epochs 2

An iterable dataset cannot take a sampler, so fairshard.ShardedIterable does
the splitting: whole shards go to ranks (shuffled every epoch from the seed),
each rank's stream is split between its DataLoader workers, and with the
shard sizes known every rank yields the same number of items and batches.
Rank 0 prints what the ranks read together every epoch: each record once,
apart from the declared drop that keeps the ranks equal.
"""

import argparse
import json
import tempfile
from pathlib import Path

import torch.distributed as dist
from _common import finish, gather, init
from torch.utils.data import DataLoader

import fairshard


def write_shards(folder: Path, shards: int, per_shard: int) -> tuple[list[str], list[int]]:
    """Write JSON-lines record files; shard ``s`` holds ``per_shard + s % 3`` records."""
    paths, sizes, next_id = [], [], 0
    for s in range(shards):
        count = per_shard + s % 3
        path = folder / f"shard-{s:03d}.jsonl"
        with path.open("w") as f:
            for _ in range(count):
                f.write(json.dumps({"id": next_id, "value": next_id * 0.5}) + "\n")
                next_id += 1
        paths.append(str(path))
        sizes.append(count)
    return paths, sizes


def read_records(path: str):
    """Open one shard: yield its records' ids."""
    with open(path) as f:
        for line in f:
            yield json.loads(line)["id"]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--samples", type=int, default=1000, help="about this many records")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    init()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if dist.get_rank() == 0:
            write_shards(folder, shards=20, per_shard=max(1, args.samples // 20 - 1))
        box = [str(folder)]
        dist.broadcast_object_list(box)  # every rank reads rank 0's files (same machine)
        paths = sorted(str(q) for q in Path(box[0]).glob("shard-*.jsonl"))
        sizes = [sum(1 for _ in read_records(q)) for q in paths]
        dataset = fairshard.ShardedIterable(
            paths, mode="shard", open_shard=read_records, shard_sizes=sizes, tail="drop", seed=0
        )
        loader = DataLoader(dataset, batch_size=args.batch_size, num_workers=args.workers)
        for epoch in range(args.epochs):
            dataset.set_epoch(epoch)  # before iter(loader)
            seen = [i for batch in loader for i in batch.tolist()]
            shares = gather(seen)
            if dist.get_rank() == 0:
                every = [i for s in shares for i in s]
                print(
                    f"epoch {epoch}: {dist.get_world_size()} ranks x {len(shares[0])} records "
                    f"(len {len(dataset)}), {len(set(every))} distinct, "
                    f"{len(every) - len(set(every))} repeated, of {sum(sizes)} written",
                    flush=True,
                )
        dist.barrier()  # rank 0 removes the folder only after everyone has read it
    finish()


if __name__ == "__main__":
    main()
