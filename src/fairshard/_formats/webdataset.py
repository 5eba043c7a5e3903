"""WebDataset tar shards: a sample is a run of consecutive members with one key.

As WebDataset groups them: a member ``dir/abc.jpg`` has the key ``dir/abc``
(its path up to the first dot of its file name) and the extension ``jpg``;
consecutive members with the same key are one sample,
``{"__key__": "dir/abc", "__url__": shard, "jpg": b"...", "cls": b"3"}``.
Members without an extension and entries that are not regular files are not
part of any sample, as in WebDataset. A sample's unit is the byte range from
its first member's header to the end of its last member's data, so reading
it is one range read.
"""

from __future__ import annotations

import io
import re
import tarfile
from typing import Any, BinaryIO

import numpy as np

from .._errors import ShardError
from .index import Units

__all__ = ["TarScanner", "decode_sample", "split_name"]

SUFFIXES = (".tar",)
_NAME = re.compile(r"^((?:.*/|)[^.]+)[.]([^/]*)$")  # WebDataset's own
_BLOCK = 512


def split_name(name: str) -> tuple[str, str] | None:
    """``(key, extension)`` of a member name, as WebDataset splits it; ``None`` without one.

    Example:
        >>> split_name("a/b/000123.seg.png"), split_name("README")
        (('a/b/000123', 'seg.png'), None)
    """
    match = _NAME.match(name)
    return None if match is None else (match.group(1), match.group(2))


class TarScanner:
    """The index pass over one tar shard: one unit per sample."""

    name = "webdataset"

    def scan(self, f: BinaryIO, size: int, url: str) -> Units:
        """Read the member headers (the data is seeked over) and group them by key."""
        starts: list[int] = []
        stops: list[int] = []
        key: str | None = None
        exts: set[str] = set()
        try:
            with tarfile.open(fileobj=f, mode="r:") as tar:
                for member in tar:
                    if not member.isreg():
                        continue
                    split = split_name(member.name)
                    if split is None:
                        continue
                    end = member.offset_data + member.size
                    if end > size:
                        raise ShardError(
                            f"shard {url} is truncated: member {member.name!r} ends at byte "
                            f"{end}, the file has {size}; write the shard again"
                        )
                    stop = member.offset_data + -(-member.size // _BLOCK) * _BLOCK
                    if split[0] == key:
                        if split[1] in exts:
                            raise ShardError(
                                f"shard {url}: sample {key!r} has two members with the "
                                f"extension {split[1]!r}; keys must be unique within a run"
                            )
                        exts.add(split[1])
                        stops[-1] = stop
                    else:
                        key, exts = split[0], {split[1]}
                        starts.append(member.offset)
                        stops.append(stop)
        except tarfile.TarError as err:
            raise ShardError(
                f"shard {url} is not a readable tar file ({err}); write it again"
            ) from err
        counts = np.ones(len(starts), dtype=np.int64)
        return Units(counts, np.asarray(starts, dtype=np.int64), np.asarray(stops, dtype=np.int64))


def _plain_members(data: bytes) -> list[tuple[str, int, int]] | None:
    """``(name, data offset, size)`` of plain ustar/GNU members; ``None`` for anything else.

    The fast path of :func:`decode_sample`: regular files with names in the
    header itself. Extended headers (pax, GNU long names), links and sizes
    in base-256 go through :mod:`tarfile` instead.
    """
    out: list[tuple[str, int, int]] = []
    at, end = 0, len(data)
    while at + _BLOCK <= end:
        header = data[at : at + _BLOCK]
        if header[0] == 0:
            break
        kind = header[156:157]
        field = header[124:136]
        if kind not in (b"0", b"\0") or field[0] & 0x80:
            return None
        size = int(field.strip(b"\0 ") or b"0", 8)
        name = header[0:100].split(b"\0", 1)[0]
        if header[257:263] == b"ustar\0" and header[345] != 0:  # POSIX name prefix
            name = header[345:500].split(b"\0", 1)[0] + b"/" + name
        out.append((name.decode("utf-8"), at + _BLOCK, size))
        at += _BLOCK + -(-size // _BLOCK) * _BLOCK
    return out


def decode_sample(data: bytes, url: str) -> dict[str, Any]:
    """The sample whose members are the tar bytes ``data`` (one unit)."""
    sample: dict[str, Any] = {"__url__": url}
    plain = _plain_members(data)
    if plain is not None:
        for name, start, size in plain:
            split = split_name(name)
            if split is not None:
                sample["__key__"] = split[0]
                sample[split[1]] = data[start : start + size]
        if "__key__" not in sample:
            raise ShardError(
                f"shard {url}: no member where the index has a sample; rebuild the index"
            )
        return sample
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
            for member in tar:
                split = split_name(member.name) if member.isreg() else None
                if split is None:
                    continue
                sample["__key__"] = split[0]
                handle = tar.extractfile(member)
                sample[split[1]] = handle.read() if handle is not None else b""
    except tarfile.TarError as err:
        raise ShardError(
            f"shard {url}: a sample's bytes are not tar members ({err}); the shard changed "
            "since it was indexed: rebuild the index (rebuild=True)"
        ) from err
    if "__key__" not in sample:
        raise ShardError(f"shard {url}: no member where the index has a sample; rebuild the index")
    return sample
