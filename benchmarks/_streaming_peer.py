"""mosaicml streaming's side of ``bench_cold.py``, run in a venv of its own.

streaming pins ``numpy<2.2`` and imports ``torchvision`` at import time (its
vision datasets); PyPI's torchvision does not load beside this machine's torch
build, so the vision modules are stubbed before ``import streaming`` (nothing
here uses them). This file imports neither fairshard nor the harness: it runs
under the peer's interpreter and prints one JSON line.

    python _streaming_peer.py version
    python _streaming_peer.py write DIR RECORD_BYTES COUNT
    python _streaming_peer.py read DIR ALGO WORKERS LIMIT [REMOTE]
    python _streaming_peer.py resume DIR WORKERS CUT

``write`` stores ``COUNT`` records of ``RECORD_BYTES`` random bytes, each with
its index, as MDS shards. ``read`` builds a ``StreamingDataset`` over them
(local only, ``shuffle=True``, the given ``shuffle_algo`` and its default
block size), evicts every shard file from the page cache with
``posix_fadvise(DONTNEED)``, then reads the first ``LIMIT`` samples in one
thread (``WORKERS=0``) or through a ``DataLoader`` with ``WORKERS`` workers
(batches of 64, timed from the first batch as fairshard's cells are), and
prints the rate and the indices read, in order. With ``REMOTE`` (an
``s3://`` URL; ``S3_ENDPOINT_URL`` names the server) ``DIR`` is the local
cache it downloads shards into (emptied first). ``resume`` reads ``CUT``
batches of 64 through a ``StreamingDataLoader``, saves its state, and
resumes from it in a fresh loader: it prints the seconds from
``load_state_dict`` to the first resumed batch and the indices read before
and after the cut, for the caller to count what was lost or repeated.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import sys
import time
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _evict import evict_tree


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


def read(folder: str, algo: str, workers: int, limit: int, remote: str | None) -> dict[str, Any]:
    from torch.utils.data import DataLoader

    data = _dataset(folder, remote, shuffle_algo=algo)
    if not remote:
        evict_tree(folder)
    seen: list[int] = []
    if workers == 0:
        it = iter(data)
        seen.append(int(next(it)["i"]))
        start = time.perf_counter()
        for sample in it:
            seen.append(int(sample["i"]))
            if len(seen) >= limit:
                break
        count = len(seen) - 1
    else:
        loader = DataLoader(data, batch_size=64, num_workers=workers)
        it = iter(loader)
        seen.extend(int(i) for i in next(it)["i"])
        start = time.perf_counter()
        count = 0
        for batch in it:
            got = [int(i) for i in batch["i"]]
            seen.extend(got)
            count += len(got)
            if len(seen) >= limit:
                break
    rate = count / (time.perf_counter() - start)
    return {"rate": rate, "indices": seen[:limit]}


def resume(folder: str, workers: int, cut: int) -> dict[str, Any]:
    from streaming import StreamingDataLoader

    loader = StreamingDataLoader(_dataset(folder, None), batch_size=64, num_workers=workers)
    before: list[int] = []
    for k, batch in enumerate(loader):
        before.extend(int(i) for i in batch["i"])
        if k + 1 == cut:
            break
    state = loader.state_dict()
    del loader
    start = time.perf_counter()
    again = StreamingDataLoader(_dataset(folder, None), batch_size=64, num_workers=workers)
    again.load_state_dict(state)
    it = iter(again)
    first = next(it)
    seconds = time.perf_counter() - start
    after = [int(i) for i in first["i"]]
    for batch in it:
        after.extend(int(i) for i in batch["i"])
    return {"seconds": seconds, "before": before, "after": after}


def main(argv: list[str]) -> None:
    _stub_torchvision()
    if argv[0] == "version":
        import streaming

        result: dict[str, Any] = {"version": streaming.__version__}
    elif argv[0] == "write":
        result = write(argv[1], int(argv[2]), int(argv[3]))
    elif argv[0] == "resume":
        result = resume(argv[1], int(argv[2]), int(argv[3]))
    else:
        remote = argv[5] if len(argv) > 5 else None
        result = read(argv[1], argv[2], int(argv[3]), int(argv[4]), remote)
    print("@@PEER@@" + json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
