"""``ShardDataset``: a shard set read as one map-style dataset of ``n`` samples.

Every fairshard sampler yields indices into ``[0, n)``; this dataset maps
index ``i`` to its unit (a binary search in the index), reads the unit's
bytes (``os.pread`` locally, the chunk cache remotely) and decodes it, so
every family -- index, weighted, class balanced, mixtures over a
``ConcatDataset`` of shard sets, packing by a length column, steps, the
locality order -- runs on shards unchanged, with its whole contract: the
sampler's state is the resume point, the dataset keeps no cursor.

NOTE (batches): ``DataLoader`` hands a worker a whole batch of indices
through ``__getitems__``; the batch's units are read together (in parallel
threads for a remote store, so request latency is paid once per batch, not
per sample) and each unit is decoded once for all its rows in the batch.

NOTE (decoded units): a Parquet row group or Arrow batch is decoded whole;
the last ones decoded stay in a per-process cache bounded by
``decoded_bytes``, so reading a window of the locality order (blocks of a
row group each, ``dataset.block_size``) decodes each row group about once.

NOTE (read-ahead): :meth:`ShardDataset.read_ahead` takes the locality
sampler; the first time a process meets a window of its plan it starts
reading that window's units and the next ``ahead`` windows of this rank (a
``WILLNEED`` hint locally, a background fetch into the chunk cache
remotely), found from the plan, not from a count of what was consumed.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray
from torch.utils.data import Dataset

from .._core.locality import WindowTracker
from .._errors import ConfigError, ConfigTypeError, ShardError, check_int
from .index import ShardIndex
from .store import Store

__all__ = ["Reader", "ShardDataset"]

#: Bytes of decoded units kept per process when not given.
DEFAULT_DECODED_BYTES = 256 << 20
#: Bytes of a local read that ``block_size`` aims at for one-sample units (docs/locality.md).
LOCAL_BLOCK_BYTES = 1 << 20


class Reader(Protocol):
    """A format's decoding of units (``_formats/readers.py``)."""

    name: str
    #: Whether every unit is one sample (tar, MDS) rather than a batch of rows.
    granular: bool

    def unit(self, ds: ShardDataset, unit: int) -> Any:
        """The decoded unit (a sample, or a table of rows)."""

    def rows(self, decoded: Any, rows: list[int]) -> list[Any]:
        """Rows ``rows`` of a decoded unit, as samples."""

    def column(self, ds: ShardDataset, name: str) -> NDArray[Any]:
        """Column ``name`` of every sample, in index order."""


class ShardDataset(Dataset[Any]):
    """A shard set read as one random-access dataset (opened by ``fairshard.formats``).

    Args:
        index: The shard set's index.
        store: Where the shards are.
        reader: The format's decoding.
        decode: Applied to each sample before it is returned (``None``: as read).
        decoded_bytes: Decoded row groups / batches kept per process.

    Attributes:
        format: ``"webdataset"``, ``"mds"``, ``"parquet"`` or ``"arrow"``.
        digest: The SHA-256 of the shard set (paths, sizes, stamps) the
            index was built from: save it with a checkpoint to know the data
            is the same on resume.
    """

    def __init__(
        self,
        index: ShardIndex,
        store: Store,
        reader: Reader,
        *,
        decode: Callable[[Any], Any] | None = None,
        decoded_bytes: int = DEFAULT_DECODED_BYTES,
    ) -> None:
        if decode is not None and not callable(decode):
            raise ConfigTypeError(f"decode must be callable or None, got {type(decode).__name__}")
        self.index, self.store, self.reader, self.decode = index, store, reader, decode
        self.decoded_bytes = check_int("decoded_bytes", decoded_bytes, minimum=0)
        self.format = index.format
        self.digest = index.digest
        self._windows: WindowTracker | None = None
        self._reset()

    def _reset(self) -> None:
        self._pid = os.getpid()
        self._decoded: OrderedDict[int, tuple[Any, int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self.handles: dict[Any, Any] = {}  # per-process open files of a reader (Parquet footers)

    def __getstate__(self) -> dict[str, Any]:
        keep = ("index", "store", "reader", "decode", "decoded_bytes", "format", "digest")
        return {**{k: self.__dict__[k] for k in keep}, "_windows": self._windows}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reset()

    def _here(self) -> None:
        if self._pid != os.getpid():  # a forked worker: fresh caches, locks and threads
            self._reset()

    # ------------------------------------------------------------- the set
    def __len__(self) -> int:
        return len(self.index)

    def __repr__(self) -> str:
        return (
            f"ShardDataset(format={self.format!r}, samples={len(self)}, "
            f"shards={len(self.index.shards)}, first={self.shards[0]!r})"
        )

    @property
    def shards(self) -> tuple[str, ...]:
        """The shards, in index order (their samples are numbered in this order)."""
        return tuple(self.store.url(p) for p in self.index.shards)

    @property
    def shard_sizes(self) -> list[int]:
        """Samples per shard."""
        return [int(c) for c in self.index.counts]

    @property
    def block_size(self) -> int:
        """Neighbouring samples the format reads best together: ``order="locality"``'s block.

        The median row group / record batch for Parquet and Arrow; for tar
        and MDS (one sample per unit) the samples of about 1 MiB locally, of
        one cache chunk remotely.
        """
        index = self.index
        rows = np.diff(index.unit_first)
        if not self.reader.granular:
            return max(1, int(np.median(rows)))
        total = int(np.sum(np.asarray(index.unit_stop) - np.asarray(index.unit_start)))
        target = self.store.cache.chunk_bytes if self.store.cache else LOCAL_BLOCK_BYTES
        return max(1, round(target * len(self) / max(1, total)))

    def locate(self, index: int) -> tuple[str, int]:
        """``(shard, position in that shard)`` of sample ``index``."""
        i = self._check(index)
        shard = int(np.searchsorted(np.cumsum(self.index.counts), i, side="right"))
        before = int(np.sum(self.index.counts[:shard]))
        return self.shards[shard], i - before

    def column(self, name: str) -> NDArray[Any]:
        """Column ``name`` of every sample, in index order (lengths, labels, weights).

        One pass over that column (Parquet reads only its chunks); for tar
        shards ``name`` is a member extension (``"cls"``) whose text is parsed
        as a number.
        """
        return self.reader.column(self, name)

    # ---------------------------------------------------------------- reads
    def _check(self, index: Any) -> int:
        i = int(index)
        if not 0 <= i < len(self):
            raise IndexError(f"index {index} is out of range for {len(self)} samples")
        return i

    def __getitem__(self, index: int) -> Any:
        return self.__getitems__([index])[0]

    def __getitems__(self, indices: Sequence[int]) -> list[Any]:
        """The samples at ``indices`` (what a DataLoader worker asks for, a batch at once)."""
        self._here()
        wanted = np.asarray([self._check(i) for i in indices], dtype=np.int64)
        if self._windows is not None:
            for i in wanted.tolist():
                self._touch(i)
        units, rows = self.index.locate(wanted)
        order = list(dict.fromkeys(units.tolist()))
        decoded = self._load(order)
        out: list[Any] = [None] * len(wanted)
        for u, got in zip(order, decoded, strict=True):
            where = np.flatnonzero(units == u)
            samples = self.reader.rows(got, rows[where].tolist())
            for k, sample in zip(where.tolist(), samples, strict=True):
                out[k] = sample if self.decode is None else self.decode(sample)
        return out

    def _load(self, units: list[int]) -> list[Any]:
        """The decoded ``units``: from the per-process cache, else read (in parallel remotely)."""
        found: dict[int, Any] = {}
        with self._lock:
            for u in units:
                hit = self._decoded.get(u)
                if hit is not None:
                    self._decoded.move_to_end(u)
                    found[u] = hit[0]
        missing = [u for u in units if u not in found]
        if len(missing) > 1 and not self.store.local:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(16, thread_name_prefix="fairshard-read")
            got = list(self._pool.map(self._decode_unit, missing))
        else:
            got = [self._decode_unit(u) for u in missing]
        for u, value in zip(missing, got, strict=True):
            found[u] = value
            if not self.reader.granular:
                self._keep(u, value)
        return [found[u] for u in units]

    def _decode_unit(self, unit: int) -> Any:
        try:
            return self.reader.unit(self, unit)
        except ShardError:
            raise
        except Exception as err:  # a format library's error: say which shard, and why
            url = self.shards[int(self.index.unit_shard[unit])]
            raise ShardError(
                f"shard {url}: reading its {self.format} unit at bytes "
                f"{int(self.index.unit_start[unit])}-{int(self.index.unit_stop[unit])} failed "
                f"({type(err).__name__}: {err}); if the shard changed since it was indexed, "
                "rebuild the index (rebuild=True) or restore the shard"
            ) from err

    def _keep(self, unit: int, value: Any) -> None:
        size = int(getattr(value, "nbytes", 0))
        with self._lock:
            self._decoded[unit] = (value, size)
            self._held += size
            while self._held > self.decoded_bytes and len(self._decoded) > 1:
                _, (_, old) = self._decoded.popitem(last=False)
                self._held -= old

    def unit_bytes(self, unit: int) -> bytes:
        """The bytes of ``unit`` (for the readers)."""
        index = self.index
        shard = int(index.unit_shard[unit])
        return self.store.read(
            index.shards[shard],
            int(index.unit_start[unit]),
            int(index.unit_stop[unit]),
            size=index.sizes[shard],
            stamp=index.stamps[shard],
        )

    def shard_file(self, shard: int) -> Any:
        """A seekable file over shard ``shard`` (reads through the store)."""
        index = self.index
        return self.store.file(
            index.shards[shard], size=index.sizes[shard], stamp=index.stamps[shard]
        )

    # ----------------------------------------------------------- read-ahead
    def read_ahead(self, sampler: Any, *, ahead: int = 1) -> ShardDataset:
        """Read the next windows of a locality-ordered sampler ahead of use; returns ``self``.

        Args:
            sampler: ``DistributedSampler(len(dataset), order="locality",
                block_size=dataset.block_size)``; its copy travels to each
                DataLoader worker with the dataset.
            ahead: Windows read beyond the current one (``>= 0``).

        Raises:
            ConfigTypeError: The sampler is not locality-ordered.
            ConfigError: It covers another number of samples.
        """
        if getattr(sampler, "order", None) != "locality" or not getattr(sampler, "shuffle", False):
            raise ConfigTypeError(
                "read_ahead needs a DistributedSampler(order='locality', shuffle=True), got "
                f"{type(sampler).__name__}(order={getattr(sampler, 'order', None)!r}); build "
                "the sampler with order='locality'"
            )
        if getattr(sampler, "n", len(self)) != len(self):
            raise ConfigError(
                f"read_ahead: the sampler covers {sampler.n} samples, the dataset {len(self)}; "
                "build the sampler over len(dataset)"
            )
        self._windows = WindowTracker(sampler, check_int("ahead", ahead, minimum=0))
        return self

    def _touch(self, index: int) -> None:
        assert self._windows is not None
        plan, _ = self._windows.plan()
        for blocks in self._windows.due(index):
            spans = [(b * plan.block_size, min(plan.n, (b + 1) * plan.block_size)) for b in blocks]
            self._prefetch(spans)

    def _prefetch(self, spans: list[tuple[int, int]]) -> None:
        """Start reading the units of the index ranges ``spans`` (``[start, stop)``)."""
        index = self.index
        per_shard: dict[int, list[tuple[int, int]]] = {}
        for start, stop in spans:
            first = int(np.searchsorted(index.unit_first, start, side="right")) - 1
            last = int(np.searchsorted(index.unit_first, stop - 1, side="right")) - 1
            for u in range(first, last + 1):
                shard = int(index.unit_shard[u])
                per_shard.setdefault(shard, []).append(
                    (int(index.unit_start[u]), int(index.unit_stop[u]))
                )
        for shard, ranges in per_shard.items():
            merged: list[tuple[int, int]] = []
            for start, stop in sorted(ranges):
                if merged and start <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(stop, merged[-1][1]))
                else:
                    merged.append((start, stop))
            self.store.prefetch(
                index.shards[shard], merged, size=index.sizes[shard], stamp=index.stamps[shard]
            )
