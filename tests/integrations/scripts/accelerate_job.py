"""HF accelerate on 2 CPU processes with fairshard samplers (``accelerate launch``).

Usage: accelerate launch --multi_gpu --num_processes 2 accelerate_job.py OUT_DIR

Each rank writes OUT_DIR/rank{r}.json with what it saw:

* ``helper``: ``fairshard.integrations.accelerate.prepare_data_loader`` around
  a ``DistributedSampler`` loader and a ``LengthBucketBatchSampler`` loader,
  two epochs each, with gradient accumulation (the sync flags per step);
* ``eval``: a ``DistributedEvalSampler`` loader of 101 samples (51 and 50 on
  the two ranks), scored with ``gather_for_metrics``, at several batch sizes;
* ``lr``: the learning rate after every step of a linear schedule built with
  ``scheduler_steps`` and the one built from ``len(loader) * epochs``;
* ``resume``: ``save_state`` after 3 batches, 2 more batches (lost work),
  ``load_state``, the rest of the epoch, and how many samples were read;
* ``refused``/``check``: the fairshard loader passed to ``accelerator.prepare``;
* ``global``: a sampler built for one process, prepared by accelerate;
* ``twice``: an ``IterableDataset`` that keeps its rank's items (``i % W == rank``),
  prepared by accelerate, which splits it again (``fairshard lint``'s ``FS115``).
"""

import json
import sys
from pathlib import Path

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset

import fairshard
from fairshard.integrations import check_accelerate
from fairshard.integrations.accelerate import prepare_data_loader, scheduler_steps

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the checkout: tests._job_end
from tests._job_end import end_job

N = 40
LENGTHS = [1 + (7 * i) % 13 for i in range(N)]


class Counting(Dataset):
    """``(index, features)`` rows; counts how many rows were read."""

    def __init__(self, n):
        self.n, self.reads = n, 0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.reads += 1
        return torch.tensor(i), torch.full((3,), float(i))


class RankItems(torch.utils.data.IterableDataset):
    """``0 .. n-1`` less the other ranks' items: the stream already holds one rank's share."""

    def __init__(self, n, rank, world):
        self.n, self.rank, self.world = n, rank, world

    def __iter__(self):
        return (i for i in range(self.n) if i % self.world == self.rank)


def collate_lists(rows):
    return torch.stack([r[0] for r in rows]), torch.stack([r[1] for r in rows])


def train_with_helper(accelerator, model, optimizer):
    data = Counting(N)
    plain = prepare_data_loader(
        accelerator, DataLoader(data, batch_size=4, sampler=fairshard.DistributedSampler(N, seed=4))
    )
    bucket = fairshard.LengthBucketBatchSampler(LENGTHS, 3, seed=2)
    bucketed = prepare_data_loader(
        accelerator, DataLoader(data, batch_sampler=bucket, collate_fn=collate_lists)
    )
    seen = {"plain": [], "bucket": [], "sync": [], "device": [], "same": []}
    seen["same"].append(accelerator.prepare(plain) is plain)  # prepared already: kept
    check_accelerate(plain)
    for name, loader in (("plain", plain), ("bucket", bucketed)):
        for _ in range(2):  # accelerate calls set_epoch at every pass
            epoch = []
            for index, x in loader:
                with accelerator.accumulate(model):
                    loss = model(x).pow(2).mean()
                    accelerator.backward(loss)
                    optimizer.step()
                    optimizer.zero_grad()
                seen["sync"].append(accelerator.sync_gradients)
                seen["device"].append(str(x.device))
                epoch.append(index.tolist())
            seen[name].append(epoch)
    seen["len"] = [len(plain), len(bucketed)]
    return seen


def evaluate(accelerator):
    results = {}
    for batch_size in (4, 5, 51):
        sampler = fairshard.DistributedEvalSampler(101)
        loader = prepare_data_loader(
            accelerator, DataLoader(Counting(101), batch_size=batch_size, sampler=sampler)
        )
        scored = []
        for index, x in loader:
            gathered_index, gathered_x = accelerator.gather_for_metrics((index, x))
            assert torch.equal(gathered_x[:, 0].long(), gathered_index)
            scored += gathered_index.tolist()
        results[str(batch_size)] = scored
    return results


def schedules(accelerator):
    lrs = {}
    for name in ("recipe", "usual"):
        model = torch.nn.Linear(3, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
        loader = prepare_data_loader(
            accelerator,
            DataLoader(Counting(N), batch_size=4, sampler=fairshard.DistributedSampler(N)),
        )
        epochs = 2
        total = (
            scheduler_steps(accelerator, loader, epochs)
            if name == "recipe"
            else len(loader) * epochs
        )
        scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda step, total=total: max(0.0, 1 - step / total)
        )
        model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)
        trace = []
        for _ in range(epochs):
            for _, x in loader:
                accelerator.backward(model(x).pow(2).mean())
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                trace.append(round(scheduler.get_last_lr()[0], 6))
        lrs[name] = trace
    return lrs


def resume(accelerator, out):
    data = Counting(N)
    loader = prepare_data_loader(
        accelerator, DataLoader(data, batch_size=4, sampler=fairshard.DistributedSampler(N, seed=9))
    )
    for _ in loader:  # epoch 0, complete: the checkpoint is taken in epoch 1
        pass
    before, lost = [], []
    iterator = iter(loader)
    for _ in range(3):
        before += next(iterator)[0].tolist()
    accelerator.save_state(str(out / "ckpt"))
    for _ in range(2):
        lost += next(iterator)[0].tolist()  # work done after the checkpoint, then a crash
    del iterator
    accelerator.wait_for_everyone()  # the main process writes the files every rank loads
    accelerator.load_state(str(out / "ckpt"))
    data.reads = 0
    after = [i for index, _ in loader for i in index.tolist()]
    reads_after = data.reads
    following = [i for index, _ in loader for i in index.tolist()]  # epoch 2
    return {
        "before": before,
        "lost": lost,
        "after": after,
        "reads": reads_after,
        "next": following,
    }


def main():
    out = Path(sys.argv[1])
    accelerator = Accelerator(cpu=True, gradient_accumulation_steps=4)
    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    model, optimizer = accelerator.prepare(model, optimizer)

    payload = {"rank": accelerator.process_index, "world": accelerator.num_processes}
    payload["helper"] = train_with_helper(accelerator, model, optimizer)
    payload["eval"] = evaluate(accelerator)
    payload["lr"] = schedules(accelerator)
    payload["resume"] = resume(accelerator, out)

    data = list(range(N))
    prepared = accelerator.prepare(
        DataLoader(data, batch_size=4, sampler=fairshard.DistributedSampler(data, seed=4))
    )
    try:
        next(iter(prepared))
        payload["refused"] = "no error"
    except fairshard.ConfigError as exc:
        payload["refused"] = str(exc)
    try:
        check_accelerate(prepared)
        payload["check"] = "ok"
    except fairshard.ConfigError as exc:
        payload["check"] = str(exc)

    one = fairshard.DistributedSampler(data, num_replicas=1, rank=0, seed=4)
    shared = accelerator.prepare(DataLoader(data, batch_size=4, sampler=one))
    payload["global"] = [[i for batch in shared for i in batch.tolist()] for _ in range(2)]
    payload["global_epoch"] = one.epoch

    mine = RankItems(N, accelerator.process_index, accelerator.num_processes)
    twice = accelerator.prepare(DataLoader(mine, batch_size=2))
    payload["twice"] = [i for batch in twice for i in batch.tolist()]
    (out / f"rank{accelerator.process_index}.json").write_text(json.dumps(payload))


if __name__ == "__main__":
    main()
    end_job()  # together, the group torn down, no finalization (tests/_job_end.py)
