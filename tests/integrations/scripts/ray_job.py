"""Ray Train on 2 CPU workers: what prepare_data_loader does with every fairshard family.

Usage: python ray_job.py OUT_DIR

Each worker writes OUT_DIR/rank{r}.json: for every family of
the catalog's ``sampler_families()``, what Ray's own ``prepare_data_loader`` (default
arguments) left in the loader, and the batches per epoch through
``fairshard.integrations.ray.prepare_data_loader``, and the resume ledger: for an
index and a batch family, ``num_workers`` 0 and 2, a pass stopped after 3 batches,
its state taken as docs/resume.md says (the bare ``sampler.state_dict()``; when
that is refused, the loader's own ``state_dict()``), a fresh sampler and loader
resumed from it, and every index the training loop received, per epoch.
"""

import json
import sys
from pathlib import Path

import ray
import torch
from ray.train import ScalingConfig
from ray.train.torch import TorchTrainer
from torch.utils.data import DataLoader

N = 60


def train(config):
    import ray.train.torch as rt

    import fairshard
    from fairshard.integrations.ray import prepare_data_loader
    from tests.catalog import sampler_families

    FAMILIES = {f.name: f.make for f in sampler_families() if f.items in ("index", "batch")}

    context = ray.train.get_context()
    rank, world = context.get_world_rank(), context.get_world_size()
    report = {"rank": rank, "world": world, "ray": {}, "helper": {}}
    data = list(range(N))
    for name, make in sorted(FAMILIES.items()):
        sampler = make(N, rank, world)
        batch = isinstance(sampler, fairshard._batching.base.BatchPlanSampler)

        def loader(sampler=sampler, batch=batch):
            if batch:
                return DataLoader(data, batch_sampler=sampler)
            return DataLoader(data, batch_size=4, sampler=sampler)

        raw = rt.prepare_data_loader(loader(), move_to_device=False)
        try:
            first = next(iter(raw))
            first = first.tolist() if isinstance(first, torch.Tensor) else first
        except Exception as exc:  # what the first batch of Ray's loader does
            first = f"{type(exc).__name__}: {exc}"
        report["ray"][name] = {
            "sampler": f"{type(raw.sampler).__module__}.{type(raw.sampler).__name__}",
            "batch_sampler": type(raw.batch_sampler).__name__ if raw.batch_sampler else None,
            "first": first,
        }
        kept = prepare_data_loader(loader())
        epochs = []
        for epoch in range(2):
            sampler.set_epoch(epoch)
            epochs.append([b.tolist() for b in kept])
        report["helper"][name] = epochs
    try:
        prepare_data_loader(loader(), add_dist_sampler=True)
        report["refused"] = "no error"
    except fairshard.ConfigError as exc:
        report["refused"] = str(exc)
    report["resume"] = {
        f"{name}-w{workers}": _resume_ledger(FAMILIES[name], rank, world, workers)
        for name in ("distributed", "length-bucket")
        for workers in (0, 2)
    }
    Path(config["out"], f"rank{rank}.json").write_text(json.dumps(report))


def _resume_ledger(make, rank, world, workers, stop=3):
    """Indices the loop received in epochs 0 and 1, with a stop and resume in epoch 0."""
    import fairshard
    from fairshard.integrations.ray import prepare_data_loader

    data = list(range(N))

    def build():
        sampler = make(N, rank, world)
        if isinstance(sampler, fairshard._batching.base.BatchPlanSampler):
            raw = DataLoader(data, batch_sampler=sampler, num_workers=workers)
        else:
            raw = DataLoader(data, batch_size=4, sampler=sampler, num_workers=workers)
        return sampler, prepare_data_loader(raw)

    sampler, loader = build()
    seen = {0: [], 1: []}
    sampler.set_epoch(0)
    for step, batch in enumerate(loader):
        seen[0] += batch.tolist()
        if step + 1 == stop:
            try:
                state, refused = sampler.state_dict(), None
            except fairshard.ConfigError as exc:
                refused = str(exc)
                if not hasattr(loader, "state_dict"):
                    return {"refused": refused, "seen": None}
                state = loader.state_dict()
            break
    del loader
    sampler, loader = build()  # the relaunch
    sampler.load_state_dict(state)
    for epoch in (0, 1):
        sampler.set_epoch(epoch)
        for batch in loader:
            seen[epoch] += batch.tolist()
    return {"refused": refused, "seen": [seen[0], seen[1]]}


def main():
    out = Path(sys.argv[1]).resolve()
    root = str(Path(__file__).resolve().parents[3])
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": f"{root}/src:{root}", "OMP_NUM_THREADS": "1"}},
    )
    trainer = TorchTrainer(
        train,
        train_loop_config={"out": str(out)},
        scaling_config=ScalingConfig(num_workers=2, use_gpu=False, resources_per_worker={"CPU": 1}),
        run_config=ray.train.RunConfig(storage_path=str(out / "ray"), name="job"),
    )
    trainer.fit()
    ray.shutdown()


if __name__ == "__main__":
    main()
