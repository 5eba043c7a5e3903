"""The index of a shard set: which bytes of which shard hold sample ``i``.

One pass over the shards (a format's ``scan``) cuts each into *units*, the
smallest pieces the format reads on their own: a sample of a WebDataset tar
(its run of members) or of an MDS shard, a Parquet row group, an Arrow record
batch. The index holds, per unit, its first sample, its shard and its byte
range: four int64 arrays, so sample ``i`` is one binary search away.

NOTE (cached and checked): the index is saved in a folder named by the
format and a *digest* of the shard set (each shard's path, size and stamp:
modification time locally, the ETag on an object store), so a changed,
added or removed shard names another folder and the index is built again;
the arrays' SHA-256 sums are checked when the folder is loaded (a damaged
or foreign index is rebuilt), and a shard that changes while it is read
fails loudly naming it (its size, a format's own row counts). The arrays are
memory-mapped read-only, so a node's ranks and workers share one copy in the
page cache, and a worker started by ``spawn`` maps them again instead of
receiving a copy.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import numpy as np
from numpy.typing import NDArray

from .._errors import DegenerateConfigWarning, ShardError, warn
from .store import Store

__all__ = ["ARRAYS", "VERSION", "Scanner", "ShardIndex", "Units", "default_index_dir", "open_index"]

#: Bumped when what an index holds changes: older folders are then rebuilt.
VERSION = 1
#: The per-unit arrays, saved as ``<name>.npy``.
ARRAYS = ("unit_first", "unit_shard", "unit_start", "unit_stop")


@dataclass
class Units:
    """One shard cut into units by a format's scan.

    Attributes:
        counts: ``(u,)`` samples per unit.
        starts: ``(u,)`` first byte of each unit in the shard.
        stops: ``(u,)`` one past its last byte.
        meta: What else the format needs to read the shard (JSON values).
    """

    counts: NDArray[np.int64]
    starts: NDArray[np.int64]
    stops: NDArray[np.int64]
    meta: dict[str, Any] = field(default_factory=dict)


class Scanner(Protocol):
    """A format's index pass over one shard."""

    name: str

    def scan(self, f: BinaryIO, size: int, url: str) -> Units:
        """Cut the shard open as ``f`` (``size`` bytes, named ``url`` in errors) into units."""


def default_index_dir() -> Path:
    """``$FAIRSHARD_INDEX_DIR``, else ``$XDG_CACHE_HOME/fairshard/index`` (``~/.cache``)."""
    given = os.environ.get("FAIRSHARD_INDEX_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fairshard" / "index"


class ShardIndex:
    """A shard set's index (see the module docstring); built by :func:`open_index`."""

    def __init__(self, folder: Path, head: dict[str, Any], *, check: bool) -> None:
        self.folder = folder
        self.head = head
        self.format: str = head["format"]
        self.digest: str = head["digest"]
        self.shards: tuple[str, ...] = tuple(head["shards"])
        self.sizes: tuple[int, ...] = tuple(head["sizes"])
        self.stamps: tuple[str, ...] = tuple(head["stamps"])
        self.counts = np.asarray(head["counts"], dtype=np.int64)  # (S,) samples per shard
        self.shard_units = np.asarray(head["shard_units"], dtype=np.int64)  # (S + 1,)
        self.meta: dict[str, Any] = head["meta"]
        self.shard_meta: list[dict[str, Any]] = head["shard_meta"]
        arrays = {}
        for name in ARRAYS:
            arrays[name] = np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False)
            if check and _sha(arrays[name]) != head["sha256"][name]:
                raise ShardError(f"index {folder}: {name}.npy does not match its checksum")
        self.unit_first: NDArray[np.int64] = arrays["unit_first"]  # (U + 1,)
        self.unit_shard: NDArray[np.int64] = arrays["unit_shard"]  # (U,)
        self.unit_start: NDArray[np.int64] = arrays["unit_start"]  # (U,)
        self.unit_stop: NDArray[np.int64] = arrays["unit_stop"]  # (U,)

    def __getstate__(self) -> dict[str, Any]:
        return {"folder": self.folder, "head": self.head}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["folder"], state["head"], check=False)  # type: ignore[misc]

    def __len__(self) -> int:
        return int(self.unit_first[-1])

    @property
    def num_units(self) -> int:
        """Units in the whole set."""
        return len(self.unit_shard)

    def locate(self, indices: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(unit, row in unit)`` of each sample index: (m,) -> (m,), (m,)."""
        unit = np.searchsorted(self.unit_first, indices, side="right") - 1
        return unit, indices - self.unit_first[unit]

    def unit_rows(self, unit: int) -> int:
        """Samples in ``unit``."""
        return int(self.unit_first[unit + 1] - self.unit_first[unit])


def _sha(array: NDArray[Any]) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def _digest(
    fmt: str, key: dict[str, Any], paths: Sequence[str], stats: Sequence[tuple[int, str]]
) -> str:
    listing = [[p, size, stamp] for p, (size, stamp) in zip(paths, stats, strict=True)]
    text = json.dumps({"format": fmt, "version": VERSION, "key": key, "shards": listing})
    return hashlib.sha256(text.encode()).hexdigest()


def open_index(
    store: Store,
    scanner: Scanner,
    paths: Sequence[str],
    *,
    index_dir: str | os.PathLike[str] | None = None,
    rebuild: bool = False,
    key: dict[str, Any] | None = None,
    meta: dict[str, Any] | None = None,
    threads: int = 8,
) -> ShardIndex:
    """Load the index of ``paths`` from ``index_dir``, building it in one pass where needed.

    Args:
        store: Where the shards are.
        scanner: The format's scan.
        paths: The shards, in order (their order is the sample order).
        index_dir: The folder of saved indexes (default :func:`default_index_dir`).
        rebuild: Build it again even where a saved one matches.
        key: What else the index depends on (a format's options), digested.
        meta: Dataset-level values saved with it (an MDS set's columns).
        threads: Shards scanned at once (remote scans wait on the network).

    Raises:
        ShardError: A shard is missing or unreadable (named), or the set is empty.
    """
    stats = store.stat(paths)
    digest = _digest(scanner.name, key or {}, paths, stats)
    root = Path(index_dir) if index_dir is not None else default_index_dir()
    root.mkdir(parents=True, exist_ok=True)
    folder = root / f"{scanner.name}-{digest[:24]}"
    fd = os.open(root / f".{folder.name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # one process of the node builds, the others load it
        if folder.exists() and not rebuild:
            try:
                head = json.loads((folder / "index.json").read_text())
                if head.get("version") == VERSION and head.get("digest") == digest:
                    return ShardIndex(folder, head, check=True)
            except (OSError, ValueError, KeyError, ShardError):
                pass  # damaged or foreign: built again below
        head = _build(store, scanner, paths, stats, digest, meta or {}, threads, folder)
        return ShardIndex(folder, head, check=False)
    finally:
        os.close(fd)


def _build(
    store: Store,
    scanner: Scanner,
    paths: Sequence[str],
    stats: Sequence[tuple[int, str]],
    digest: str,
    meta: dict[str, Any],
    threads: int,
    folder: Path,
) -> dict[str, Any]:
    def one(i: int) -> Units:
        url = store.url(paths[i])
        try:
            with store.scan(paths[i]) as f:
                return scanner.scan(f, stats[i][0], url)
        except ShardError:
            raise
        except FileNotFoundError:
            raise ShardError(f"shard {url} does not exist") from None
        except Exception as err:  # a format library's own error: say which shard
            raise ShardError(f"shard {url} cannot be read as {scanner.name}: {err}") from err

    with ThreadPoolExecutor(max(1, min(threads, len(paths)))) as pool:
        scans = list(pool.map(one, range(len(paths))))
    counts = [int(u.counts.sum()) for u in scans]
    if sum(counts) == 0:
        raise ShardError(f"the {len(paths)} shards at {store.url(paths[0])}... hold no samples")
    empty = [store.url(p) for p, c in zip(paths, counts, strict=True) if c == 0]
    if empty:
        warn(
            f"{len(empty)} of {len(paths)} shards hold no samples: {', '.join(empty[:5])}"
            + (" ..." if len(empty) > 5 else ""),
            DegenerateConfigWarning,
        )
    sizes = [np.asarray(u.counts, dtype=np.int64) for u in scans]
    first = np.concatenate([[0], np.cumsum(np.concatenate(sizes))]).astype(np.int64)
    arrays = {
        "unit_first": first,
        "unit_shard": np.concatenate(
            [np.full(len(u.counts), i, dtype=np.int64) for i, u in enumerate(scans)]
        ),
        "unit_start": np.concatenate([np.asarray(u.starts, dtype=np.int64) for u in scans]),
        "unit_stop": np.concatenate([np.asarray(u.stops, dtype=np.int64) for u in scans]),
    }
    head = {
        "version": VERSION,
        "format": scanner.name,
        "digest": digest,
        "shards": list(paths),
        "sizes": [s for s, _ in stats],
        "stamps": [t for _, t in stats],
        "counts": counts,
        "shard_units": np.concatenate([[0], np.cumsum([len(u.counts) for u in scans])]).tolist(),
        "meta": meta,
        "shard_meta": [u.meta for u in scans],
        "sha256": {name: _sha(a) for name, a in arrays.items()},
    }
    temp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        for name, array in arrays.items():
            np.save(temp / f"{name}.npy", array, allow_pickle=False)
        (temp / "index.json").write_text(json.dumps(head))
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(temp, folder)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    return head
