"""mosaicml streaming's side of ``bench_cold.py`` and ``bench_formats.py``, in a venv of its own.

streaming pins ``numpy<2.2`` and imports ``torchvision`` at import time (its
vision datasets); PyPI's torchvision does not load beside this machine's torch
build, so the vision modules are stubbed before ``import streaming`` (nothing
here uses them). This file imports neither fairshard nor the harness: it runs
under the peer's interpreter and prints one JSON line.

    python _streaming_peer.py version
    python _streaming_peer.py write DIR RECORD_BYTES COUNT
    python _streaming_peer.py read DIR ALGO WORKERS LIMIT [REMOTE]
    python _streaming_peer.py resume DIR WORKERS CUT [AFTER_WORKERS [REMOTE]]
    python _streaming_peer.py rank DIR WORKERS CUT PHASE STATES OLD_WORLD

``write`` stores ``COUNT`` records of ``RECORD_BYTES`` random bytes, each with
its index, as MDS shards. ``read`` evicts every shard file from the page
cache (``posix_fadvise(DONTNEED)``), builds a ``StreamingDataset`` over them
(``shuffle=True``, the given ``shuffle_algo`` and its default block size),
then reads the first ``LIMIT`` samples in one thread (``WORKERS=0``) or
through a ``DataLoader`` with ``WORKERS`` workers (batches of 64, timed from
the first batch as fairshard's cells are), and prints the rate, the seconds
from building the dataset to the first batch (``first``) and to the last
(``elapsed``), the records read (``read``) and the first ``LIMIT`` indices, in
order. With ``REMOTE`` (an ``s3://`` URL; ``S3_ENDPOINT_URL`` names
the server) ``DIR`` is the local cache it downloads shards into (emptied
first). ``resume`` reads ``CUT`` batches of 64 through a
``StreamingDataLoader``, saves its ``state_dict()``, and resumes from it in a
fresh dataset and loader (``AFTER_WORKERS`` workers, by default
``WORKERS``; with ``REMOTE``, into an emptied cache again, as a restart on
another node): it prints the seconds from building them to the first
resumed batch and the indices read before and after the cut, for the caller
to count what was lost or repeated. ``rank`` is one rank of a resume on
another world size (``_peers.rank_pass``; ``RANK``, ``WORLD_SIZE``,
``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``, ``MASTER_ADDR`` / ``MASTER_PORT`` in
the environment, all ranks on one node, as streaming reads them; the job's
gloo group is made from them first, as a trainer makes it): the
``StreamingDataLoader``'s ``state_dict()`` saved after ``CUT`` batches,
``load_state_dict`` on the new world; it declares its epoch's length per
rank (``len(dataset)``, padding included).
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import time
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _evict import evict_tree
from _peers import rank_pass, resume_pass, serve, timed_read


def _stub_torchvision() -> None:
    """Stand-ins for the names ``streaming.vision`` imports (never called here)."""
    root = types.ModuleType("torchvision")
    datasets = types.ModuleType("torchvision.datasets")
    transforms = types.ModuleType("torchvision.transforms")
    functional = types.ModuleType("torchvision.transforms.functional")

    class VisionDataset:
        """Placeholder for torchvision's base class."""

    datasets.VisionDataset = VisionDataset  # type: ignore[attr-defined]
    datasets.CIFAR10 = VisionDataset  # type: ignore[attr-defined]
    functional.to_tensor = lambda x: x  # type: ignore[attr-defined]
    root.datasets, root.transforms = datasets, transforms  # type: ignore[attr-defined]
    transforms.functional = functional  # type: ignore[attr-defined]
    for module in (root, datasets, transforms, functional):
        module.__spec__ = importlib.machinery.ModuleSpec(module.__name__, None)
        sys.modules[module.__name__] = module


def write(folder: str, record: int, count: int) -> dict[str, Any]:
    from streaming import MDSWriter

    chunk = os.urandom(1 << 20)
    with MDSWriter(out=folder, columns={"i": "int", "x": "bytes"}) as out:
        for i in range(count):
            start = (i * record) % ((1 << 20) - record + 1)
            out.write({"i": i, "x": chunk[start : start + record]})
    return {"written": count}


def _dataset(folder: str, remote: str | None, **kwargs: Any) -> Any:
    import shutil

    from streaming import StreamingDataset
    from streaming.base.util import clean_stale_shared_memory

    clean_stale_shared_memory()
    if remote:
        shutil.rmtree(folder, ignore_errors=True)  # a cold local cache
        return StreamingDataset(remote=remote, local=folder, shuffle=True, batch_size=64, **kwargs)
    return StreamingDataset(local=folder, shuffle=True, batch_size=64, **kwargs)


def _ids(batch: Any) -> list[int]:
    return [int(i) for i in batch["i"]]


def read(folder: str, algo: str, workers: int, limit: int, remote: str | None) -> dict[str, Any]:
    from torch.utils.data import DataLoader

    if not remote:
        evict_tree(folder)
    begin = time.perf_counter()
    data = _dataset(folder, remote, shuffle_algo=algo)
    if workers == 0:
        return timed_read(data, lambda sample: [int(sample["i"])], limit, begin)
    return timed_read(DataLoader(data, batch_size=64, num_workers=workers), _ids, limit, begin)


def resume(folder: str, workers: int, cut: int, after: int, remote: str | None) -> dict[str, Any]:
    from streaming import StreamingDataLoader

    def loader(k: int) -> Any:
        return StreamingDataLoader(_dataset(folder, remote), batch_size=64, num_workers=k)

    return resume_pass(loader, workers, after, cut, _ids)


def rank(folder: str, workers: int, cut: int, phase: str, states: str, old: int) -> dict[str, Any]:
    import torch.distributed as dist
    from streaming import StreamingDataLoader

    # The job's gloo group, made before streaming as a trainer makes it: left to itself,
    # streaming makes and destroys one per call on the same port (clean_stale_shared_memory,
    # then the dataset), and a slow rank meets a store already closed (DistNetworkError).
    dist.init_process_group("gloo")

    def make(_: str) -> Any:
        return StreamingDataLoader(_dataset(folder, None), batch_size=64, num_workers=workers)

    def load(loader: Any, state: Any) -> dict[str, Any]:
        loader.load_state_dict(state)
        return {"epoch_per_rank": len(loader.dataset)}

    try:
        return rank_pass(
            make, lambda loader, _: loader.state_dict(), load, _ids, phase, cut, states, old
        )
    finally:
        dist.barrier()  # every rank's pass done before the group goes
        dist.destroy_process_group()


def version() -> str:
    import streaming

    return str(streaming.__version__)


def main(argv: list[str]) -> None:
    _stub_torchvision()
    serve(argv, version, write, read, resume, rank)


if __name__ == "__main__":
    main(sys.argv[1:])
