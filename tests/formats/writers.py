"""Shard sets of the four formats written from one list of records, for the format tests.

Record ``i`` is ``{"id": i, "label": i % 3, "length": 1 + i * 7 % 11,
"payload": bytes}``, so a sample read back names its index. The tar and
Arrow files come from the standard library and pyarrow; MDS shards follow
mosaicml streaming's layout (``MDSWriter``: a uint32 count, ``count + 1``
uint32 offsets, per sample the uint32 sizes of its variable columns then
the columns in sorted-name order, and ``index.json``), checked against the
real writer where its venv exists (``test_peers.py``).
"""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "FORMATS",
    "record",
    "write",
    "write_arrow",
    "write_hf",
    "write_mds",
    "write_parquet",
    "write_tar",
]

FORMATS = ("webdataset", "mds", "parquet", "arrow")


def record(i: int, payload: int = 24) -> dict[str, Any]:
    return {
        "id": i,
        "label": i % 3,
        "length": 1 + i * 7 % 11,
        "payload": bytes([i % 251]) * (payload + i % 5),
    }


def _cuts(n: int, per_shard: int) -> list[range]:
    return [range(s, min(n, s + per_shard)) for s in range(0, n, per_shard)]


def write_tar(folder: Path, n: int, per_shard: int = 17, payload: int = 24) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for k, ids in enumerate(_cuts(n, per_shard)):
        with tarfile.open(folder / f"shard-{k:05d}.tar", "w") as tar:
            for i in ids:
                r = record(i, payload)
                members = {
                    "id": str(i).encode(),
                    "cls": str(r["label"]).encode(),
                    "length": str(r["length"]).encode(),
                    "bin": r["payload"],
                }
                for ext, data in members.items():
                    info = tarfile.TarInfo(f"sample{i:07d}.{ext}")
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
    return folder


def _mds_sample(r: dict[str, Any]) -> bytes:
    # columns sorted by name: id (int, 8 bytes), label (int, 8), length (int, 8), payload (bytes)
    fixed = b"".join(np.int64(r[c]).tobytes() for c in ("id", "label", "length"))
    return np.uint32(len(r["payload"])).tobytes() + fixed + r["payload"]


def write_mds(folder: Path, n: int, per_shard: int = 17, payload: int = 24) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shards = []
    for k, ids in enumerate(_cuts(n, per_shard)):
        samples = [_mds_sample(record(i, payload)) for i in ids]
        offsets = np.concatenate([[0], np.cumsum([len(s) for s in samples])]).astype(np.uint32)
        offsets += 4 + 4 * (len(samples) + 1)
        data = np.uint32(len(samples)).tobytes() + offsets.tobytes() + b"".join(samples)
        name = f"shard.{k:05d}.mds"
        (folder / name).write_bytes(data)
        shards.append(
            {
                "column_encodings": ["int", "int", "int", "bytes"],
                "column_names": ["id", "label", "length", "payload"],
                "column_sizes": [8, 8, 8, None],
                "compression": None,
                "format": "mds",
                "hashes": [],
                "raw_data": {"basename": name, "bytes": len(data), "hashes": {}},
                "samples": len(samples),
                "size_limit": 1 << 26,
                "version": 2,
                "zip_data": None,
            }
        )
    (folder / "index.json").write_text(json.dumps({"shards": shards, "version": 2}))
    return folder


def _table(ids: range, payload: int) -> Any:
    import pyarrow as pa

    rows = [record(i, payload) for i in ids]
    return pa.table({k: [r[k] for r in rows] for k in ("id", "label", "length", "payload")})


def write_parquet(
    folder: Path, n: int, per_shard: int = 40, row_group: int = 8, payload: int = 24
) -> Path:
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    for k, ids in enumerate(_cuts(n, per_shard)):
        pq.write_table(
            _table(ids, payload), folder / f"part-{k:05d}.parquet", row_group_size=row_group
        )
    return folder


def write_arrow(
    folder: Path,
    n: int,
    per_shard: int = 40,
    batch: int = 8,
    payload: int = 24,
    file_format: bool = False,
) -> Path:
    import pyarrow as pa

    folder.mkdir(parents=True, exist_ok=True)
    for k, ids in enumerate(_cuts(n, per_shard)):
        table = _table(ids, payload)
        path = folder / f"part-{k:05d}.arrow"
        writer = pa.ipc.new_file if file_format else pa.ipc.new_stream
        with writer(str(path), table.schema) as w:
            for b in table.to_batches(max_chunksize=batch):
                w.write_batch(b)
    return folder


def write_hf(folder: Path, n: int, num_shards: int = 3) -> Path:
    """An HF ``datasets`` ``save_to_disk`` folder of the records."""
    import datasets

    rows = [record(i) for i in range(n)]
    data = datasets.Dataset.from_dict({k: [r[k] for r in rows] for k in ("id", "label", "length")})
    os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    datasets.disable_progress_bars()
    data.save_to_disk(str(folder), num_shards=num_shards)
    return folder


def write(fmt: str, folder: Path, n: int, **kwargs: Any) -> Path:
    """The records ``[0, n)`` as a shard set of format ``fmt`` under ``folder``."""
    writers = {
        "webdataset": write_tar,
        "mds": write_mds,
        "parquet": write_parquet,
        "arrow": write_arrow,
    }
    return writers[fmt](folder, n, **kwargs)


def open_set(fmt: str, folder: Path, index_dir: Path, **kwargs: Any) -> Any:
    """``fairshard.formats.open_<fmt>`` over ``folder``, each sample decoded to its id."""
    from fairshard import formats

    opener = {
        "webdataset": formats.open_webdataset,
        "mds": formats.open_mds,
        "parquet": formats.open_parquet,
        "arrow": formats.open_arrow,
    }[fmt]
    kwargs.setdefault("decode", sample_id)
    return opener(str(folder), index_dir=index_dir, **kwargs)


def sample_id(sample: dict[str, Any]) -> int:
    """A sample's record id (the tar member's text, the other formats' column)."""
    value = sample["id"]
    return int(value.decode() if isinstance(value, bytes) else value)
