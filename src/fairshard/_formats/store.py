"""Where shards live: local files read directly, any fsspec filesystem through a chunk cache.

A :class:`Store` names the shards (a folder, a glob, a brace pattern such as
``train-{000000..000099}.tar`` or a list), says what each is (its size and a
stamp: modification time or ETag, what the index's digest covers), and reads
byte ranges of them: with ``os.pread`` for local files (one descriptor per
file and process), else through a :class:`~fairshard._formats.cache.ChunkCache`
when one is given, else with one range request per read.
"""

from __future__ import annotations

import io
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any, BinaryIO

from .._errors import ConfigError, ConfigTypeError, ShardError
from .cache import ChunkCache, Fetch

__all__ = ["RangeFile", "Store", "expand_braces"]

#: Local descriptors kept open per process.
MAX_OPEN = 128
_BRACE = re.compile(r"\{([^{}]*)\}")


def expand_braces(pattern: str) -> list[str]:
    """Expand ``{a..b}`` (zero-padded as written) and ``{x,y}`` groups, left to right.

    Example:
        >>> expand_braces("s-{00..02}.tar")
        ['s-00.tar', 's-01.tar', 's-02.tar']
    """
    match = _BRACE.search(pattern)
    if match is None:
        return [pattern]
    body = match.group(1)
    if ".." in body:
        first, last = body.split("..", 1)
        if not (first.isdigit() and last.isdigit()):
            raise ConfigError(f"a brace range must be numeric, got {{{body}}} in {pattern!r}")
        width = len(first) if first.startswith("0") else 0
        options = [str(i).zfill(width) for i in range(int(first), int(last) + 1)]
    else:
        options = body.split(",")
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [x for option in options for x in expand_braces(head + option + tail)]


class Store:
    """The filesystem the shards of one dataset live on.

    Args:
        url: A path or URL the shards are under (``/data/train``,
            ``s3://bucket/train``); it picks the filesystem.
        storage_options: Keywords for the fsspec filesystem
            (``{"endpoint_url": ...}`` for an S3-compatible server).
        cache: Where remote bytes are cached on this node (``None``: no
            cache, one range request per read). Local files are never cached.
    """

    def __init__(
        self,
        url: str,
        *,
        storage_options: dict[str, Any] | None = None,
        cache: ChunkCache | None = None,
    ) -> None:
        if cache is not None and not isinstance(cache, ChunkCache):
            raise ConfigTypeError(
                f"cache must be a fairshard.ChunkCache or None, got {type(cache).__name__}"
            )
        import fsspec.core

        self.storage_options = dict(storage_options or {})
        fs, _ = fsspec.core.url_to_fs(url, **self.storage_options)
        protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        self.local = protocol in ("file", "local")
        self.protocol = protocol
        self._fs = fs
        self.cache = cache
        self._reset()

    @property
    def fs(self) -> Any:
        """The fsspec filesystem, made again in a forked process (s3fs is not fork-safe)."""
        if self._pid != os.getpid():
            self._reset()
        return self._fs

    def _reset(self) -> None:
        if getattr(self, "_pid", os.getpid()) != os.getpid() and not self.local:
            fs = self._fs  # its event loop and connections belong to the parent
            options = {**fs.storage_options, "skip_instance_cache": True}
            self._fs = type(fs)(*fs.storage_args, **options)
        self._pid = os.getpid()
        self._fds: OrderedDict[str, int] = OrderedDict()
        self._verified: set[str] = set()  # remote shards checked against the index here
        self._verifying: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        keep = ("storage_options", "local", "protocol", "_fs", "cache")
        return {k: self.__dict__[k] for k in keep}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reset()

    # --------------------------------------------------------------- naming
    def url(self, path: str) -> str:
        """The shard's name in messages: a local path, else ``protocol://path``."""
        return path if self.local else f"{self.protocol}://{path}"

    def strip(self, url: str) -> str:
        """A URL or path as this filesystem's path."""
        path: str = self.fs._strip_protocol(url)
        return os.path.abspath(path) if self.local else path

    def resolve(
        self,
        spec: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        suffixes: tuple[str, ...],
    ) -> list[str]:
        """The shard paths ``spec`` names, in order.

        A folder gives its files ending in one of ``suffixes``, sorted; a glob
        its matches, sorted; a brace pattern its expansion, in order; a list
        its items, in order.

        Raises:
            ShardError: Nothing matched, or a named shard does not exist.
        """
        if isinstance(spec, (str, os.PathLike)):
            text = os.fspath(spec)
            if "{" in text:
                paths = [self.strip(p) for p in expand_braces(text)]
            elif any(c in text for c in "*?["):
                paths = sorted(self.strip(p) for p in self.fs.glob(text))
            elif self.fs.isdir(text):
                paths = sorted(
                    self.strip(p) for p in self.fs.ls(text, detail=False) if p.endswith(suffixes)
                )
            else:
                paths = [self.strip(text)]
        else:
            paths = [self.strip(os.fspath(p)) for p in spec]
        if not paths:
            raise ShardError(
                f"no shards found at {spec!r} (files ending in {', '.join(suffixes)}); "
                "check the path, or pass the list of shard files"
            )
        return paths

    def stat(self, paths: Sequence[str]) -> list[tuple[int, str]]:
        """``(size in bytes, stamp)`` of each path, listing each folder once where remote.

        Raises:
            ShardError: A shard does not exist.
        """
        if self.local:
            out = []
            for path in paths:
                try:
                    st = os.stat(path)
                except FileNotFoundError:
                    raise ShardError(f"shard {path} does not exist") from None
                out.append((st.st_size, str(st.st_mtime_ns)))
            return out
        infos: dict[str, dict[str, Any]] = {}
        for parent in dict.fromkeys(p.rsplit("/", 1)[0] for p in paths):
            try:
                for info in self.fs.ls(parent, detail=True):
                    infos[self.strip(info["name"])] = info
            except FileNotFoundError:
                pass
        out = []
        for path in paths:
            info = infos.get(path)
            if info is None:
                try:
                    info = self.fs.info(path)
                except FileNotFoundError:
                    raise ShardError(f"shard {self.url(path)} does not exist") from None
            out.append((int(info["size"]), _stamp(info)))
        return out

    # ---------------------------------------------------------------- reads
    def read(self, path: str, start: int, stop: int, *, size: int, stamp: str) -> bytes:
        """Bytes ``[start, stop)`` of a shard.

        Raises:
            ShardError: The shard is gone or shorter than its index says.
        """
        if self.local:
            data = os.pread(self._fd(path, size), stop - start, start)
        else:
            fetch = self.fetch(path, size, stamp)
            data = (
                fetch.read(start, stop)
                if self.cache is None
                else self.cache.read(fetch, start, stop)
            )
        if len(data) != stop - start:
            raise ShardError(
                f"shard {self.url(path)} is shorter than its index says: {len(data)} bytes at "
                f"offset {start}, expected {stop - start} (truncated or rewritten since it "
                "was indexed); rebuild the index (rebuild=True) or restore the shard"
            )
        return data

    def read_all(self, path: str) -> bytes:
        """A whole small file (a format's own index, ``state.json``).

        Raises:
            ShardError: It does not exist.
        """
        try:
            with self.fs.open(path, "rb") as f:
                data: bytes = f.read()
        except FileNotFoundError:
            raise ShardError(f"{self.url(path)} does not exist") from None
        return data

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists on the store."""
        return bool(self.fs.exists(path))

    def scan(self, path: str) -> BinaryIO:
        """A seekable file to build a shard's index from (read once, not cached)."""
        if self.local:
            return open(path, "rb")
        f: BinaryIO = self.fs.open(path, "rb", block_size=4 << 20, cache_type="readahead")
        return f

    def file(self, path: str, *, size: int, stamp: str) -> RangeFile:
        """A seekable read-only file over the shard whose reads go through :meth:`read`."""
        return RangeFile(self, path, size, stamp)

    def prefetch(
        self, path: str, ranges: Iterable[tuple[int, int]], *, size: int, stamp: str
    ) -> None:
        """Start reading ``ranges`` of a shard: a kernel hint locally, a cache fetch remotely."""
        if self.local:
            advise = getattr(os, "posix_fadvise", None)
            if advise is not None:
                fd = self._fd(path, size)
                for start, stop in ranges:
                    advise(fd, start, stop - start, os.POSIX_FADV_WILLNEED)
        elif self.cache is not None:
            self.cache.prefetch(self.fetch(path, size, stamp), ranges)

    def fetch(self, path: str, size: int, stamp: str) -> Fetch:
        """A remote shard as the cache reads it, checked once per process before its first fetch."""
        return Fetch(self.fs, path, size, stamp, check=lambda: self._verify(path, size, stamp))

    def _verify(self, path: str, size: int, stamp: str) -> None:
        """Raise unless the object in the store is still the one the index was built from.

        Raises:
            ShardError: Its size or stamp (ETag) changed, or it is gone.
        """
        if self._pid != os.getpid():
            self._reset()
        if path in self._verified:
            return
        with self._lock:
            lock = self._verifying.setdefault(path, threading.Lock())
        with lock:  # one check per shard and process, however many threads wait on it
            if path not in self._verified:
                self._check_object(path, size, stamp)
                self._verified.add(path)

    def _check_object(self, path: str, size: int, stamp: str) -> None:
        self.fs.invalidate_cache(path)  # a listing inherited from the parent may be stale
        try:
            info = self.fs.info(path)
        except FileNotFoundError:
            raise ShardError(f"shard {self.url(path)} is gone from the store") from None
        now = (int(info["size"]), _stamp(info))
        if now != (size, stamp):
            raise ShardError(
                f"shard {self.url(path)} changed in the store since it was indexed (size, stamp "
                f"{now} instead of {(size, stamp)}); rebuild the index (rebuild=True) or "
                "restore the object"
            )

    def _fd(self, path: str, size: int) -> int:
        """This process's descriptor of a local shard; opening it checks its size."""
        if self._pid != os.getpid():  # a forked worker opens its own descriptors (and lock)
            self._reset()
        with self._lock:
            fd = self._fds.get(path)
            if fd is not None:
                self._fds.move_to_end(path)
                return fd
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                raise ShardError(
                    f"shard {path} does not exist (removed since it was indexed)"
                ) from None
            now = os.fstat(fd).st_size
            if now != size:
                os.close(fd)
                raise ShardError(
                    f"shard {path} changed since it was indexed: {now} bytes, the index says "
                    f"{size}; rebuild the index (rebuild=True) or restore the shard"
                )
            self._fds[path] = fd
            if len(self._fds) > MAX_OPEN:
                _, old = self._fds.popitem(last=False)
                os.close(old)
            return fd


def _stamp(info: dict[str, Any]) -> str:
    """What identifies one version of a remote object: its ETag, else its modification time."""
    for key in ("ETag", "etag", "mtime", "LastModified", "last_modified", "updated"):
        if info.get(key) is not None:
            return str(info[key]).strip('"')
    return ""


class RangeFile(io.RawIOBase):
    """A read-only, seekable file over one shard of a :class:`Store` (for pyarrow, tarfile)."""

    def __init__(self, store: Store, path: str, size: int, stamp: str) -> None:
        super().__init__()
        self.store, self.path, self.size, self.stamp = store, path, size, stamp
        self.pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.pos, io.SEEK_END: self.size}[whence]
        self.pos = max(0, base + offset)
        return self.pos

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        stop = min(self.size, self.pos + len(view))
        if stop <= self.pos:
            return 0
        data = self.store.read(self.path, self.pos, stop, size=self.size, stamp=self.stamp)
        view[: len(data)] = data
        self.pos += len(data)
        return len(data)

    def read(self, size: int = -1) -> bytes:
        stop = self.size if size is None or size < 0 else min(self.size, self.pos + size)
        if stop <= self.pos:
            return b""
        data = self.store.read(self.path, self.pos, stop, size=self.size, stamp=self.stamp)
        self.pos = stop
        return data
