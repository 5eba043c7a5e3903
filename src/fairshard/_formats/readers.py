"""Each format's reading of one unit and of one column (the datasets' format half)."""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._errors import ConfigError
from . import columnar, mds, webdataset

if TYPE_CHECKING:
    from .dataset import ShardDataset

__all__ = ["ArrowReader", "MDSReader", "ParquetReader", "TarReader"]

#: Units read at once by a column pass over a one-sample-per-unit format.
_COLUMN_CHUNK = 512


def _number(value: Any, name: str) -> Any:
    """A column value as a number: bytes or text parsed, numbers kept."""
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            try:
                return float(text)
            except ValueError:
                raise ConfigError(
                    f"column {name!r} holds {value[:20]!r}, not a number; name a numeric column"
                ) from None
    return value


def _cached_column(ds: ShardDataset, name: str, compute: Any) -> NDArray[Any]:
    """Column ``name``, saved beside the index after its first pass (it is a pure function)."""
    path = Path(ds.index.folder) / f"column-{name.encode().hex()}.npy"
    try:
        saved: NDArray[Any] = np.load(path, allow_pickle=False)
        return saved
    except (OSError, ValueError):
        pass
    values = np.asarray(compute())
    if values.dtype == object:
        raise ConfigError(
            f"column {name!r} is not numeric ({values[:3]!r}...); name a number column"
        )
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".column-", suffix=".npy")
    with os.fdopen(fd, "wb") as f:
        np.save(f, values, allow_pickle=False)
    os.replace(temp, path)
    return values


class _OneSample:
    """Shared by the formats whose unit is one sample."""

    granular = True

    def rows(self, decoded: Any, rows: list[int]) -> list[Any]:
        return [decoded] * len(rows)

    def column(self, ds: ShardDataset, name: str) -> NDArray[Any]:
        def compute() -> list[Any]:
            out = []
            for start in range(0, ds.index.num_units, _COLUMN_CHUNK):
                units = list(range(start, min(start + _COLUMN_CHUNK, ds.index.num_units)))
                for sample in ds._load(units):
                    if name not in sample:
                        raise ConfigError(
                            f"column {name!r} is not in sample {sample.get('__key__', '?')} of "
                            f"{ds.format} shards (it has {sorted(sample)})"
                        )
                    out.append(_number(sample[name], name))
            return out

        return _cached_column(ds, name, compute)


class TarReader(_OneSample):
    """WebDataset tar: a unit's bytes are its members."""

    name = "webdataset"

    def unit(self, ds: ShardDataset, unit: int) -> Any:
        url = ds.store.url(ds.index.shards[int(ds.index.unit_shard[unit])])
        return webdataset.decode_sample(ds.unit_bytes(unit), url)


class MDSReader(_OneSample):
    """MDS: a unit's bytes are one sample's columns."""

    name = "mds"

    def unit(self, ds: ShardDataset, unit: int) -> Any:
        shard = int(ds.index.unit_shard[unit])
        columns = ds.index.meta["columns"][shard]
        return mds.decode_sample(ds.unit_bytes(unit), columns, ds.store.url(ds.index.shards[shard]))


class _Rows:
    """Shared by the formats whose unit is a batch of rows."""

    granular = False

    def __init__(self, columns: list[str] | None) -> None:
        self.columns = columns

    def rows(self, decoded: Any, rows: list[int]) -> list[Any]:
        return columnar.rows_of(decoded, rows)


class ParquetReader(_Rows):
    """Parquet: a unit is a row group, read by pyarrow from the shard's footer."""

    name = "parquet"

    def _file(self, ds: ShardDataset, shard: int) -> Any:
        key = (shard, threading.get_ident())  # one file position per thread
        handle = ds.handles.get(key)
        if handle is None:
            import pyarrow.parquet as pq

            handle = pq.ParquetFile(ds.shard_file(shard))
            first, last = ds.index.shard_units[shard], ds.index.shard_units[shard + 1]
            counts = np.diff(ds.index.unit_first[first : last + 1]).tolist()
            columnar.check_parquet(handle.metadata, counts, ds.shards[shard])
            ds.handles[key] = handle
        return handle

    def unit(self, ds: ShardDataset, unit: int) -> Any:
        shard = int(ds.index.unit_shard[unit])
        group = unit - int(ds.index.shard_units[shard])
        return self._file(ds, shard).read_row_group(group, columns=self.columns, use_threads=False)

    def column(self, ds: ShardDataset, name: str) -> NDArray[Any]:
        def compute() -> NDArray[Any]:
            parts = []
            for shard in range(len(ds.index.shards)):
                table = self._file(ds, shard).read(columns=[name], use_threads=False)
                parts.append(table.column(0).to_numpy())
            return np.concatenate(parts)

        return _cached_column(ds, name, compute)


class ArrowReader(_Rows):
    """Arrow IPC: a unit is a record batch, read after its file's head (schema)."""

    name = "arrow"

    def unit(self, ds: ShardDataset, unit: int) -> Any:
        shard = int(ds.index.unit_shard[unit])
        key = ("head", shard)
        head = ds.handles.get(key)
        if head is None:
            start, stop = ds.index.shard_meta[shard]["head"]
            index = ds.index
            head = ds.store.read(
                index.shards[shard], start, stop, size=index.sizes[shard], stamp=index.stamps[shard]
            )
            ds.handles[key] = head
        return columnar.arrow_batch(head, ds.unit_bytes(unit))

    def rows(self, decoded: Any, rows: list[int]) -> list[Any]:
        chosen = decoded if self.columns is None else decoded.select(self.columns)
        return columnar.rows_of(chosen, rows)

    def column(self, ds: ShardDataset, name: str) -> NDArray[Any]:
        def compute() -> NDArray[Any]:
            parts = []
            for start in range(0, ds.index.num_units, _COLUMN_CHUNK):
                units = list(range(start, min(start + _COLUMN_CHUNK, ds.index.num_units)))
                for batch in ds._load(units):
                    parts.append(batch.column(name).to_numpy(zero_copy_only=False))
            return np.concatenate(parts)

        return _cached_column(ds, name, compute)
