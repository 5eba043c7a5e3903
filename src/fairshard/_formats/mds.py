"""MDS shards (mosaicml streaming): its ``index.json``, each shard's sample offsets.

An MDS folder holds ``index.json`` (per shard: its file, sample count and
columns) and the shards. A shard starts with its sample count (uint32) and
``count + 1`` uint32 offsets; sample ``k`` is bytes ``[offsets[k],
offsets[k + 1])``: the uint32 sizes of its variable-size columns, then every
column's bytes in ``column_names`` order. The index pass reads only each
shard's offsets, and checks them against ``index.json`` and the file size.

Decoded encodings: ``bytes``, ``str``, ``int``, the numpy scalars
(``uint8`` ... ``float64``), ``str_int``, ``str_float``, ``str_decimal``,
``json`` and ``pkl`` (pickle: read only shards you trust, as with
streaming). Other encodings (images, ``ndarray``) come back as their raw
bytes only where ``raw=True``; otherwise opening the set names them.
"""

from __future__ import annotations

import decimal
import json
import pickle
from typing import Any, BinaryIO

import numpy as np

from .._errors import ConfigError, ShardError
from .index import Units

__all__ = ["MDSScanner", "decode_sample", "read_mds_index"]

_SCALARS = {
    name: np.dtype(name)
    for name in (
        "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
        "float16", "float32", "float64",
    )
}  # fmt: skip
_DECODERS: dict[str, Any] = {
    "bytes": bytes,
    "str": lambda b: b.decode("utf-8"),
    "int": lambda b: int(np.frombuffer(b, np.int64)[0]),
    "str_int": lambda b: int(b.decode("utf-8")),
    "str_float": lambda b: float(b.decode("utf-8")),
    "str_decimal": lambda b: decimal.Decimal(b.decode("utf-8")),
    "json": lambda b: json.loads(b.decode("utf-8")),
    "pkl": pickle.loads,
    **{name: (lambda b, d=dtype: np.frombuffer(b, d)[0]) for name, dtype in _SCALARS.items()},
}


def read_mds_index(text: bytes, url: str, *, raw: bool) -> list[dict[str, Any]]:
    """The shards of an MDS ``index.json``: ``basename``, ``samples``, ``columns``.

    Raises:
        ShardError: The file is not an MDS index, or a shard is compressed only.
        ConfigError: A column's encoding is not decoded here and ``raw`` is false.
    """
    try:
        shards = json.loads(text)["shards"]
    except (ValueError, KeyError, TypeError) as err:
        raise ShardError(f"{url} is not an MDS index.json ({err})") from err
    out = []
    for shard in shards:
        if shard.get("format") != "mds":
            raise ShardError(f"{url}: shard format {shard.get('format')!r}, expected 'mds'")
        if shard.get("raw_data") is None:
            raise ShardError(
                f"{url}: shard {shard.get('zip_data', {}).get('basename')} is stored compressed "
                f"({shard.get('compression')}) only; write the set with compression=None"
            )
        names, encodings = shard["column_names"], shard["column_encodings"]
        for name, encoding in zip(names, encodings, strict=True):
            if encoding not in _DECODERS and not raw:
                raise ConfigError(
                    f"MDS column {name!r} has the encoding {encoding!r}, which fairshard does not "
                    "decode; pass raw=True for its bytes (and decode them in decode=)"
                )
        out.append(
            {
                "basename": shard["raw_data"]["basename"],
                "bytes": int(shard["raw_data"]["bytes"]),
                "samples": int(shard["samples"]),
                "columns": [
                    [n, e, s]
                    for n, e, s in zip(names, encodings, shard["column_sizes"], strict=True)
                ],
            }
        )
    return out


class MDSScanner:
    """The index pass over one MDS shard: one unit per sample, from its offsets."""

    name = "mds"

    def __init__(self, expected: dict[str, int]) -> None:
        self.expected = expected  # url -> samples index.json promises

    def scan(self, f: BinaryIO, size: int, url: str) -> Units:
        """Read the shard's sample count and offsets; check them against the file and index."""
        head = f.read(4)
        if len(head) < 4:
            raise ShardError(f"shard {url} is truncated: {size} bytes, no MDS header")
        count = int(np.frombuffer(head, np.uint32)[0])
        want = self.expected.get(url)
        if want is not None and want != count:
            raise ShardError(
                f"shard {url} holds {count} samples, its index.json says {want}; the shard or "
                "index.json was replaced: write the set again"
            )
        raw = f.read(4 * (count + 1))
        if len(raw) < 4 * (count + 1):
            raise ShardError(f"shard {url} is truncated inside its offsets ({size} bytes)")
        offsets = np.frombuffer(raw, np.uint32).astype(np.int64)
        if offsets[-1] != size:
            raise ShardError(
                f"shard {url} is truncated or padded: its last sample ends at byte "
                f"{int(offsets[-1])}, the file has {size}; write the shard again"
            )
        return Units(np.ones(count, dtype=np.int64), offsets[:-1].copy(), offsets[1:].copy())


def decode_sample(data: bytes, columns: list[list[Any]], url: str) -> dict[str, Any]:
    """One MDS sample's columns from its bytes (``columns``: ``[name, encoding, size]``)."""
    sizes, at = [], 0
    for _, _, size in columns:
        if size:
            sizes.append(int(size))
        else:
            sizes.append(int(np.frombuffer(data[at : at + 4], np.uint32)[0]))
            at += 4
    sample: dict[str, Any] = {}
    for (name, encoding, _), size in zip(columns, sizes, strict=True):
        chunk = data[at : at + size]
        at += size
        decoder = _DECODERS.get(encoding, bytes)
        sample[name] = decoder(chunk)
    if at != len(data):
        raise ShardError(
            f"shard {url}: a sample's columns take {at} bytes, its offsets {len(data)}; the "
            "shard changed since it was indexed or is not MDS"
        )
    return sample
