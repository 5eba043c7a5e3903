"""``ChunkCache``: a bounded local cache of remote shard bytes, shared by a node's processes.

Remote shards (S3, HTTP, any fsspec filesystem) are read in fixed-size
*chunks*: byte ``b`` of a file lives in chunk ``b // chunk_bytes``. A chunk
is fetched once per node into a local folder and read from there by every
rank and DataLoader worker of the node.

NOTE (several processes, one folder): a chunk is one file,
``<folder>/<key>/<chunk>``, where ``key`` hashes the file's URL and stamp (its
ETag or modification time), so a rewritten object never serves old bytes. A
process that misses takes an exclusive ``flock`` on the chunk's lock file,
looks again (another process may have fetched it meanwhile), fetches it and
writes it under a temporary name renamed into place: a reader sees a whole
chunk or none, and a chunk is fetched once however many processes want it.
Eviction unlinks files; a process that has a chunk open keeps reading it
(POSIX), one that misses fetches it again.

NOTE (the size limit): after writing, a process that has written
``max_bytes // 16`` bytes since its last look (or every second) takes the
folder's eviction lock without waiting (one process evicts at a time; the
others go on) and removes the least recently used chunks (by modification
time; a hit refreshes it, at most once per chunk, process and second) until
the folder holds at most 90% of ``max_bytes``. Between two looks the folder
can exceed the limit by what the node's processes wrote meanwhile: about
``max_bytes // 16`` per process plus one chunk per fetch in flight.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .._errors import ConfigError, ShardError, check_int

__all__ = ["ChunkCache", "Fetch"]

#: Bytes per chunk when not given: large enough that request latency is paid rarely.
DEFAULT_CHUNK_BYTES = 8 << 20


class Fetch:
    """One remote file as the cache sees it: how to read a range of it, and its identity.

    Args:
        fs: The fsspec filesystem (``cat_file(path, start, end)`` reads bytes).
        path: The file's path on ``fs``.
        size: Its size in bytes (from the shard index).
        stamp: What identifies this version of it (ETag, modification time).
        check: Called before bytes are read from the store (the store checks
            once per process that the object is still this version).
    """

    def __init__(
        self, fs: Any, path: str, size: int, stamp: str, check: Callable[[], None] | None = None
    ) -> None:
        self.fs, self.path, self.size, self.stamp, self.check = fs, path, size, stamp, check
        protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        self.url = f"{protocol}://{path}"
        self.key = hashlib.sha256(f"{self.url}\0{size}\0{stamp}".encode()).hexdigest()[:32]

    def read(self, start: int, stop: int) -> bytes:
        """Bytes ``[start, stop)`` of the file, from the store."""
        if self.check is not None:
            self.check()
        data: bytes = self.fs.cat_file(self.path, start=start, end=stop)
        return data


class ChunkCache:
    r"""A bounded, node-shared local cache of fixed-size chunks of remote files.

    Args:
        folder: The local folder (created; give every process of a node the
            same one, and a different one to each node that does not share a
            disk).
        max_bytes: The size limit of the folder's chunks (``>= chunk_bytes``).
        chunk_bytes: Bytes per chunk.
        threads: Threads per process fetching chunks of one read in parallel
            and prefetching.

    Example:
        >>> import fsspec, tempfile
        >>> from fairshard._formats.cache import Fetch  # what a ShardDataset builds per read
        >>> fs = fsspec.filesystem("memory")
        >>> fs.pipe("/bucket/shard.bin", bytes(range(256)) * 64)
        >>> cache = ChunkCache(tempfile.mkdtemp(), max_bytes=1 << 20, chunk_bytes=4096)
        >>> cache.read(Fetch(fs, "/bucket/shard.bin", 16384, "v1"), 250, 260)
        b'\xfa\xfb\xfc\xfd\xfe\xff\x00\x01\x02\x03'
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        max_bytes: int,
        *,
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
        threads: int = 8,
    ) -> None:
        self.chunk_bytes = check_int("chunk_bytes", chunk_bytes, minimum=1)
        self.max_bytes = check_int("max_bytes", max_bytes, minimum=1)
        if self.max_bytes < self.chunk_bytes:
            raise ConfigError(
                f"max_bytes must hold one chunk at least, got max_bytes={max_bytes} below "
                f"chunk_bytes={chunk_bytes}; raise max_bytes or lower chunk_bytes"
            )
        self.threads = check_int("threads", threads, minimum=1)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._reset()

    def _reset(self) -> None:
        self._pid = os.getpid()
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._since_look, self._last_look = 0, 0.0
        self._touched: dict[str, float] = {}
        self._pending: dict[str, Future[bytes]] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {k: self.__dict__[k] for k in ("chunk_bytes", "max_bytes", "threads", "folder")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reset()

    def _executor(self) -> ThreadPoolExecutor:
        if self._pid != os.getpid():  # a forked worker: no threads came along
            self._reset()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="fairshard-cache")
        return self._pool

    # ------------------------------------------------------------------ reads
    def chunks(self, fetch: Fetch, start: int, stop: int) -> range:
        """The chunk numbers that hold bytes ``[start, stop)`` of ``fetch``'s file."""
        if stop <= start:
            return range(0)
        return range(start // self.chunk_bytes, (stop - 1) // self.chunk_bytes + 1)

    def read(self, fetch: Fetch, start: int, stop: int) -> bytes:
        """Bytes ``[start, stop)`` of a remote file, through the cache.

        Raises:
            ShardError: The store returned fewer bytes than the index
                promised (the object was truncated or replaced).
        """
        stop = min(stop, fetch.size)
        chunks = self.chunks(fetch, start, stop)
        cb = self.chunk_bytes

        def part(c: int) -> bytes:  # the bytes of [start, stop) that chunk c holds
            lo, hi = max(start, c * cb) - c * cb, min(stop, (c + 1) * cb) - c * cb
            return self.chunk(fetch, c, lo, hi)

        if len(chunks) == 1:
            return part(chunks[0])
        if not chunks:
            return b""
        return b"".join(self._executor().map(part, chunks))

    def prefetch(self, fetch: Fetch, ranges: Iterable[tuple[int, int]]) -> None:
        """Fetch the chunks of ``ranges`` (``(start, stop)`` byte ranges) in the background."""
        pool = self._executor()
        for start, stop in ranges:
            for c in self.chunks(fetch, start, min(stop, fetch.size)):
                name = f"{fetch.key}/{c}"
                with self._lock:
                    if name in self._pending or (self.folder / name).exists():
                        continue
                    future = pool.submit(self.chunk, fetch, c, 0, 0)
                    self._pending[name] = future
                future.add_done_callback(functools.partial(self._fetched, name))

    def _fetched(self, name: str, _: Future[bytes]) -> None:
        self._pending.pop(name, None)

    def chunk(self, fetch: Fetch, number: int, lo: int = 0, hi: int | None = None) -> bytes:
        """Bytes ``[lo, hi)`` of chunk ``number`` of a file: from the folder, else the store.

        Only those bytes are read from a cached chunk file, so a small record
        costs a small read however large the chunk.
        """
        folder = self.folder / fetch.key
        path = folder / str(number)
        want = min(self.chunk_bytes, fetch.size - number * self.chunk_bytes)
        hi = want if hi is None else hi
        data = self._load(path, want, lo, hi)
        if data is not None:
            return data
        folder.mkdir(parents=True, exist_ok=True)
        with _flock(folder / f".{number}.lock", exclusive=True):
            data = self._load(path, want, lo, hi)
            if data is not None:
                return data
            start = number * self.chunk_bytes
            whole = fetch.read(start, start + want)
            if len(whole) != want:
                raise ShardError(
                    f"shard {fetch.url}: the store returned {len(whole)} bytes at offset {start}, "
                    f"the index promised {want} (the object changed or was truncated since it "
                    "was indexed); rebuild the index (rebuild=True) or restore the shard"
                )
            temp = folder / f".tmp-{os.getpid()}-{threading.get_ident()}-{number}"
            temp.write_bytes(whole)
            os.replace(temp, path)
        self._wrote(len(whole))
        return whole[lo:hi]

    def _load(self, path: Path, want: int, lo: int, hi: int) -> bytes | None:
        """Bytes ``[lo, hi)`` of a cached chunk file; ``None`` when it is missing or not ours."""
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            if os.fstat(fd).st_size != want:  # a chunk of another length: fetch it again
                return None
            data = os.pread(fd, hi - lo, lo)
        finally:
            os.close(fd)
        now = time.monotonic()
        key = str(path)
        if now - self._touched.get(key, 0.0) > 1.0:
            self._touched[key] = now
            with contextlib.suppress(FileNotFoundError):
                os.utime(path)  # least recently used goes first
        return data

    # --------------------------------------------------------------- the limit
    def _wrote(self, nbytes: int) -> None:
        with self._lock:
            self._since_look += nbytes
            due = self._since_look >= self.max_bytes // 16 or (
                time.monotonic() - self._last_look > 1.0
            )
            if not due:
                return
            self._since_look, self._last_look = 0, time.monotonic()
        self.evict()

    def evict(self, *, wait: bool = False) -> int:
        """Remove least recently used chunks until the folder holds at most 90% of the limit.

        Args:
            wait: Wait for another process's eviction instead of leaving it to them.

        Returns:
            The bytes the folder's chunks hold afterwards (``-1`` when another
            process was evicting and ``wait`` is false).
        """
        try:
            with _flock(self.folder / ".evict.lock", exclusive=True, wait=wait):
                files = list(self._files())
                total = sum(size for _, size, _ in files)
                if total <= self.max_bytes:
                    return total
                low = self.max_bytes * 9 // 10
                for path, size, _ in sorted(files, key=lambda f: f[2]):
                    if total <= low:
                        break
                    try:
                        os.unlink(path)
                        total -= size
                    except FileNotFoundError:
                        pass
                return total
        except BlockingIOError:
            return -1

    def size(self) -> int:
        """The bytes the folder's chunks hold now."""
        return sum(size for _, size, _ in self._files())

    def _files(self) -> Iterator[tuple[str, int, float]]:
        """``(path, size, mtime)`` of every chunk file (lock and temporary files left out)."""
        with os.scandir(self.folder) as entries:
            folders = [e.path for e in entries if e.is_dir() and not e.name.startswith(".")]
        for folder in folders:
            try:
                with os.scandir(folder) as entries:
                    for e in entries:
                        if e.name.startswith("."):
                            continue
                        try:
                            st = e.stat()
                        except FileNotFoundError:
                            continue
                        yield e.path, st.st_size, st.st_mtime
            except FileNotFoundError:
                continue


@contextmanager
def _flock(path: Path, *, exclusive: bool, wait: bool = True) -> Iterator[None]:
    """Hold an ``flock`` on ``path`` (created) for the block; per open file, so per thread."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        fcntl.flock(fd, mode if wait else mode | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)
