"""``ChunkCache``: chunks fetched once, evicted least recently used first, never served short."""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path
from typing import Any

import fsspec
import pytest

from fairshard import ConfigError, ShardError
from fairshard._formats.cache import Fetch
from fairshard.formats import ChunkCache

DATA = bytes(range(256)) * 160  # 40 KiB


class Counting:
    """An fsspec memory filesystem that counts range reads."""

    def __init__(self, name: str) -> None:
        self.fs = fsspec.filesystem("memory")
        self.fs.pipe(f"/{name}", DATA)
        self.path = f"/{name}"
        self.reads = 0
        self.protocol = self.fs.protocol

    def cat_file(self, path: str, start: int, end: int) -> Any:
        self.reads += 1
        return self.fs.cat_file(path, start=start, end=end)


def _fetch(fs: Counting, size: int = len(DATA), stamp: str = "v1") -> Fetch:
    return Fetch(fs, fs.path, size, stamp)


def test_ranges_read_back_exactly_and_each_chunk_once(tmp_path: Path) -> None:
    fs = Counting("a")
    cache = ChunkCache(tmp_path, max_bytes=1 << 20, chunk_bytes=4096)
    for start, stop in ((0, 10), (4090, 4100), (100, 20000), (40000, len(DATA)), (0, len(DATA))):
        assert cache.read(_fetch(fs), start, stop) == DATA[start:stop]
    assert fs.reads == 10  # 40 KiB in chunks of 4 KiB, each fetched once


def test_least_recently_used_chunks_go_first(tmp_path: Path) -> None:
    fs = Counting("b")
    cache = ChunkCache(tmp_path, max_bytes=16384, chunk_bytes=4096)
    fetch = _fetch(fs)
    for c in range(4):
        cache.chunk(fetch, c)
        time.sleep(0.01)
    os.utime(tmp_path / fetch.key / "0")  # chunk 0 used again: newest
    cache.chunk(fetch, 4)  # over the limit: the oldest (1, 2) go
    assert cache.evict(wait=True) <= 16384 * 9 // 10
    left = sorted(
        int(p.name) for p in (tmp_path / fetch.key).iterdir() if not p.name.startswith(".")
    )
    assert 0 in left and 4 in left and 1 not in left


def test_a_new_stamp_never_serves_old_bytes(tmp_path: Path) -> None:
    fs = Counting("c")
    cache = ChunkCache(tmp_path, max_bytes=1 << 20, chunk_bytes=4096)
    cache.read(_fetch(fs, stamp="v1"), 0, 100)
    fs.fs.pipe(fs.path, DATA[::-1])
    assert cache.read(_fetch(fs, stamp="v2"), 0, 100) == DATA[::-1][:100]


def test_a_short_object_fails_naming_it(tmp_path: Path) -> None:
    fs = Counting("d")
    cache = ChunkCache(tmp_path, max_bytes=1 << 20, chunk_bytes=4096)
    fs.fs.pipe(fs.path, DATA[:5000])  # truncated in the store after it was indexed
    with pytest.raises(ShardError, match=r"memory:///d: the store returned 904 bytes"):
        cache.read(_fetch(fs), 4096, 8000)


def test_a_damaged_chunk_file_is_fetched_again(tmp_path: Path) -> None:
    fs = Counting("e")
    cache = ChunkCache(tmp_path, max_bytes=1 << 20, chunk_bytes=4096)
    fetch = _fetch(fs)
    cache.read(fetch, 0, 10)
    (tmp_path / fetch.key / "0").write_bytes(b"short")
    assert cache.read(fetch, 0, 4096) == DATA[:4096] and fs.reads == 2


def test_settings_are_checked_and_the_cache_pickles(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="max_bytes must hold one chunk"):
        ChunkCache(tmp_path, max_bytes=100, chunk_bytes=4096)
    with pytest.raises(ConfigError, match="chunk_bytes"):
        ChunkCache(tmp_path, max_bytes=100, chunk_bytes=0)
    cache = ChunkCache(tmp_path, max_bytes=1 << 24)
    cache.read(_fetch(Counting("f")), 0, 10)
    twin = pickle.loads(pickle.dumps(cache))
    assert twin.folder == cache.folder and twin._pool is None
