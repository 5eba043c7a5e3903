# A script's final test: every rank writes its records (one per video, by file name), the
# records of all ranks are gathered, and a helper keeps the first record of each name, so
# the padded repeats are dropped before anything is scored.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def dedupe_records_by_name(records):
    deduped = {}
    for record in records:
        deduped.setdefault(record["name"], record)
    return [deduped[name] for name in sorted(deduped)]


def gather_records(local_records):
    bucket = [None] * dist.get_world_size()
    dist.all_gather_object(bucket, local_records)
    return [record for part in bucket for record in part]


dist.init_process_group("nccl")
rank, world_size = dist.get_rank(), dist.get_world_size()
model = torch.load("model.pt")
test_ds = torch.load("test_set.pt")
test_sampler = DistributedSampler(test_ds, num_replicas=world_size, rank=rank, shuffle=False)
test_dl = DataLoader(test_ds, batch_size=4, sampler=test_sampler)
records_local = []
with torch.no_grad():
    for frames, targets, names in test_dl:
        for name, pred, target in zip(names, model(frames).tolist(), targets.tolist()):
            records_local.append({"name": name, "prediction": pred, "target": target})
records_all = dedupe_records_by_name(gather_records(records_local))
if rank == 0:
    errors = [abs(r["prediction"] - r["target"]) for r in records_all]
    print(sum(errors) / len(errors))
