"""Parquet row groups and Arrow IPC record batches: the columnar formats' units.

* **Parquet**: a unit is a row group; the index pass reads each file's footer
  (its row groups' row counts and byte spans). Reading a row asks pyarrow for
  its row group (only the chosen columns' chunks are read), once per process
  while it stays in the dataset's decoded-unit cache. A file whose footer no
  longer says what the index says (row counts) fails naming it.
* **Arrow IPC** (both the stream format, which HF ``datasets`` writes with
  ``save_to_disk``, and the file format): a unit is a record batch; the index
  pass walks the messages once, noting where each batch starts and ends and
  the bytes before the first one (the schema and dictionaries), so a batch is
  read as those head bytes plus its own: no footer needed, and a stream
  file becomes random access.

pyarrow is imported when a dataset of these formats is opened, not before.
"""

from __future__ import annotations

from typing import Any, BinaryIO

import numpy as np

from .._errors import ShardError
from .index import Units

__all__ = ["ArrowScanner", "ParquetScanner", "arrow_batch", "check_parquet", "rows_of"]

_MAGIC = b"ARROW1"


class ParquetScanner:
    """The index pass over one Parquet file: its footer's row groups."""

    name = "parquet"

    def scan(self, f: BinaryIO, size: int, url: str) -> Units:
        """Row counts and byte spans of every row group, from the footer."""
        import pyarrow.parquet as pq

        meta = pq.ParquetFile(f).metadata
        counts, starts, stops = [], [], []
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            first, last = size, 0
            for c in range(group.num_columns):
                col = group.column(c)
                start = col.data_page_offset
                if col.has_dictionary_page and col.dictionary_page_offset:
                    start = min(start, col.dictionary_page_offset)
                first = min(first, start)
                last = max(last, start + col.total_compressed_size)
            counts.append(group.num_rows)
            starts.append(min(first, last))
            stops.append(last)
        return Units(
            np.asarray(counts, dtype=np.int64),
            np.asarray(starts, dtype=np.int64),
            np.asarray(stops, dtype=np.int64),
            {"rows": int(meta.num_rows)},
        )


def check_parquet(meta: Any, counts: list[int], url: str) -> None:
    """Raise unless a Parquet footer's row groups still hold ``counts`` rows.

    Raises:
        ShardError: The file was rewritten since it was indexed.
    """
    now = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
    if now != counts:
        raise ShardError(
            f"shard {url} changed since it was indexed: it holds {sum(now)} rows in "
            f"{len(now)} row groups, the index says {sum(counts)} in {len(counts)}; "
            "rebuild the index (rebuild=True) or restore the shard"
        )


class ArrowScanner:
    """The index pass over one Arrow IPC file (stream or file format): its record batches."""

    name = "arrow"

    def scan(self, f: BinaryIO, size: int, url: str) -> Units:
        """Walk the messages once: each batch's byte range and rows, and the head's end."""
        import pyarrow as pa

        base = 8 if f.read(6) == _MAGIC else 0  # the file format: magic, padding, a stream
        f.seek(base)
        reader = pa.ipc.MessageReader.open_stream(f)
        schema = None
        head_end = None
        counts: list[int] = []
        starts: list[int] = []
        stops: list[int] = []
        position = f.tell()
        while True:
            try:
                message = reader.read_next_message()
            except StopIteration:
                break
            if message is None:
                break
            end = f.tell()
            if message.type == "schema":
                schema = pa.ipc.read_schema(message)
            elif message.type == "dictionary":
                if counts:
                    raise ShardError(
                        f"shard {url}: a dictionary batch after the first record batch (a "
                        "dictionary delta); such a file cannot be read at random"
                    )
            elif message.type == "record batch":
                if schema is None:
                    raise ShardError(f"shard {url}: a record batch before the schema")
                if head_end is None:
                    head_end = position
                batch = pa.ipc.read_record_batch(message, schema)
                counts.append(batch.num_rows)
                starts.append(position)
                stops.append(end)
            position = end
        if schema is None:
            raise ShardError(f"shard {url} is not an Arrow IPC file (no schema message)")
        return Units(
            np.asarray(counts, dtype=np.int64),
            np.asarray(starts, dtype=np.int64),
            np.asarray(stops, dtype=np.int64),
            {"head": [base, head_end if head_end is not None else position]},
        )


def arrow_batch(head: bytes, body: bytes) -> Any:
    """The record batch whose message is ``body``, after the stream head ``head``."""
    import pyarrow as pa

    return pa.ipc.open_stream(pa.py_buffer(head + body)).read_next_batch()


def rows_of(table: Any, rows: list[int]) -> list[dict[str, Any]]:
    """Rows ``rows`` of a pyarrow Table or RecordBatch as dicts (column -> Python value)."""
    if len(rows) == 1:
        return list(table.slice(rows[0], 1).to_pylist())
    return list(table.take(rows).to_pylist())
