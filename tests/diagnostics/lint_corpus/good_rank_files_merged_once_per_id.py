# Each rank writes its share's predictions to a file; rank 0 merges the files and
# keeps the first record of each id, so the padded repeats count once.
import json
import os

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def predict(model, dataset, out_dir):
    dist.init_process_group("nccl")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    sampler = DistributedSampler(dataset, shuffle=False)
    results = []
    for batch in DataLoader(dataset, batch_size=8, sampler=sampler):
        for item_id, pred in zip(batch["id"], model(batch["image"]).tolist()):
            results.append({"id": item_id, "pred": pred})
    with open(os.path.join(out_dir, f"shard_{rank}.json"), "w") as f:
        json.dump(results, f)
    dist.barrier()
    if rank == 0:
        merged = []
        for r in range(world_size):
            with open(os.path.join(out_dir, f"shard_{r}.json")) as f:
                merged.extend(json.load(f))
        seen = set()
        unique = []
        for item in merged:
            if item["id"] not in seen:
                seen.add(item["id"])
                unique.append(item)
        accuracy = sum(r["pred"] > 0.5 for r in unique) / len(unique)
        print(accuracy)
