# The same final test, after a validation that reads the set through a sampler bound to
# the same name: the validation's losses are all-reduced with the padded repeats in them;
# the merge that drops the repeats belongs to the test's own sampler, built later.
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
# validation during training reads the same set, through a sampler of the same name
test_sampler = DistributedSampler(test_ds, shuffle=False)  # expect: FS109
test_dl = DataLoader(test_ds, batch_size=4, sampler=test_sampler)
for epoch in range(10):
    val_loss = torch.zeros(2)
    with torch.no_grad():
        for frames, targets, names in test_dl:
            val_loss += torch.stack(
                [(model(frames) - targets).abs().sum(), torch.tensor(len(names))]
            )
    dist.all_reduce(val_loss)
    print(epoch, (val_loss[0] / val_loss[1]).item())

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
