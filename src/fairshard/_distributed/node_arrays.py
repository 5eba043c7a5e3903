"""Arrays built once per node and mapped read-only by every process that needs them.

A materialized plan (a permutation, a CSR table of batches) is the same on
every rank of a job: it is a pure function of (config, seed, epoch). Holding
one copy per rank costs ``ranks_per_node`` times the memory of one, and
building it costs as many builds. :func:`share_arrays` builds it once per node
instead: the first process to ask builds the arrays and publishes them as one
file in a node-local folder (``/dev/shm`` by default, so the file is memory);
every process, the builder included, maps that file read-only.

NOTE (publication and crashes): a folder lock (``flock``, released by the
kernel when its holder dies, even by SIGKILL) makes exactly one process build
while the others wait; if the builder dies, the next waiter finds no file and
builds. The builder writes under a temporary name and renames the file only
once it is complete, so nobody ever maps half a plan. The temporary name
(``.<key>@<host>.<pid>.tmp``) names its writer: the next build in the folder
(the node folder and a plan cache alike, :func:`sweep`) removes it once that
process of this host is gone, SIGKILL between write and rename included, and
never while it lives (a cache on a shared file system may hold another
host's writer, whose file is that host's to remove). (An unnamed
``O_TMPFILE`` linked in at the end would leave nothing at all, but linking
it needs ``/proc`` semantics that sandboxed kernels do not all give.) Each process that
maps the file counts itself in the file's header; the one that brings the
count to the number of local ranks (``LOCAL_WORLD_SIZE``) removes the name.
From then on the memory lives only in the mappings, and the kernel frees it
when the last process exits, however it exits. A name left behind (a rank
died before mapping, or ranks disagree on the count) is removed by the next
process that takes the folder lock: a file no process holds a shared
``flock`` on is in nobody's use.

NOTE (trust): files and the folder are created owner-only (``0o600`` and
``0o700``). Before a file is mapped its owner must be this user, its mode
owner-only, its header must name the requested key and its contents must
match the header's SHA-256. A file that fails any check is never read as
data: it is removed when it is this user's, and the arrays are built again.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import mmap
import os
import stat
import struct
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["NodeArrays", "SharingUnavailable", "share_arrays", "sweep"]

MAGIC = b"FSNODE01"
#: Bytes before the JSON header: magic, header length, attach count.
_PREFIX = struct.Struct("<8sQQ")
_ALIGN = 64
SUFFIX = ".plan"
TMP_SUFFIX = ".tmp"
#: This host's name in temporary names: a shared cache folder may hold other hosts' writers.
_HOST = os.uname().nodename.replace("/", "_").replace("@", "_") or "host"


class SharingUnavailable(OSError):
    """Arrays cannot be shared here (no writable owner-only folder, no space, ...)."""


@dataclass(frozen=True)
class NodeArrays:
    """The arrays of one key, read-only, and how this process got them.

    Attributes:
        arrays: name -> read-only array, views into the mapped file.
        meta: the plain values published with them.
        built: whether this process built them (``False``: it mapped another's).
        path: the file they were mapped from.
    """

    arrays: Mapping[str, NDArray[Any]]
    meta: Mapping[str, Any]
    built: bool
    path: Path


def _check_folder(folder: Path) -> None:
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode):
        raise SharingUnavailable(f"{folder} is not a folder")
    if info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise SharingUnavailable(
            f"{folder} is owned by uid {info.st_uid} with mode {oct(info.st_mode & 0o777)}; "
            "shared plans need a folder owned by this user with mode 0o700"
        )


def _ensure_folder(folder: Path) -> None:
    try:
        folder.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    except OSError as exc:
        raise SharingUnavailable(f"cannot create {folder}: {exc}") from exc
    _check_folder(folder)


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _in_use(fd: int) -> bool:
    """Whether another open file description holds a shared lock on ``fd``'s file."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


def _writer_alive(pid: int) -> bool:
    """Whether process ``pid`` of this host may still be writing (a zombie has stopped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    try:
        # /proc/<pid>/stat: "pid (comm) state ..."; comm may hold spaces and parentheses.
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


def _tmp_name(key: str) -> str:
    """The temporary name this process writes ``key`` under: ``.<key>@<host>.<pid>.tmp``."""
    return f".{key}@{_HOST}.{os.getpid()}{TMP_SUFFIX}"


def _dead_writers_file(name: str) -> bool:
    """Whether ``name`` is an unfinished file whose writer, on this host, has died.

    A file of another host (a cache on a shared file system) or of a name
    this module does not write is never judged here: its writer may be alive.
    """
    stem = name[1 : -len(TMP_SUFFIX)]
    _key, at, writer = stem.rpartition("@")  # a host name holds no "@"
    host, _, pid = writer.rpartition(".")
    if not at or host != _HOST or not pid.isdigit():
        return False
    return not _writer_alive(int(pid))


def sweep(folder: Path, *, keep_published: bool = False) -> list[str]:
    """Remove what no process will use in ``folder``; returns the names removed.

    Two kinds of leftovers: an unfinished file (``.<key>@<host>.<pid>.tmp``)
    whose writer has died, killed between its write and its rename (a live
    writer's file is kept, whatever holds the lock); and, unless
    ``keep_published`` (a plan cache, whose files are kept across restarts),
    a published file that no process maps. The caller holds the folder lock.
    """
    removed = []
    for path in folder.glob(f".*{TMP_SUFFIX}"):
        if _dead_writers_file(path.name):
            path.unlink(missing_ok=True)
            removed.append(path.name)
    if keep_published:
        return removed
    for path in folder.glob(f"*{SUFFIX}"):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            if not _in_use(fd):
                path.unlink(missing_ok=True)
                removed.append(path.name)
        finally:
            os.close(fd)
    return removed


def _layout(
    arrays: Mapping[str, NDArray[Any]], key: str, meta: Mapping[str, Any]
) -> tuple[bytes, list[Any], int]:
    entries = []
    offset = 0
    for name, array in arrays.items():
        offset = -(-offset // _ALIGN) * _ALIGN
        entries.append([name, array.dtype.str, list(array.shape), offset, int(array.nbytes)])
        offset += int(array.nbytes)
    header = json.dumps({"key": key, "meta": dict(meta), "arrays": entries}).encode()
    return header, entries, offset


def _data_digest(view: memoryview) -> str:
    return hashlib.sha256(view).hexdigest()


def _publish(
    folder: Path,
    path: Path,
    key: str,
    arrays: Mapping[str, NDArray[Any]],
    meta: Mapping[str, Any],
) -> None:
    """Write ``arrays`` under a temporary name in ``folder``; rename it ``path`` when complete."""
    body, entries, data_size = _layout(arrays, key, meta)

    def with_digest(digest: str) -> bytes:  # the same length for every 64-digit digest
        return body[:-1] + b', "sha256": "' + digest.encode() + b'"}'

    header = with_digest("0" * 64)
    start = -(-(_PREFIX.size + len(header)) // _ALIGN) * _ALIGN
    size = start + max(data_size, 1)
    tmp = folder / _tmp_name(key)
    fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_RDWR | os.O_NOFOLLOW, 0o600)
    try:
        os.posix_fallocate(fd, 0, size)  # ENOSPC here, not SIGBUS on a full tmpfs later
        with mmap.mmap(fd, size) as out:
            for (_name, _dtype, _shape, offset, nbytes), array in zip(
                entries, arrays.values(), strict=True
            ):
                flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
                out[start + offset : start + offset + nbytes] = flat.data
            # Over the arrays' bytes only: the file has one byte more when they are empty.
            digest = _data_digest(memoryview(out)[start : start + data_size])
            header = with_digest(digest)
            out[: _PREFIX.size] = _PREFIX.pack(MAGIC, len(header), 0)
            out[_PREFIX.size : _PREFIX.size + len(header)] = header
        os.rename(tmp, path)  # the name appears only when the contents are complete
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)


def _attach(
    path: Path, key: str
) -> tuple[int, mmap.mmap, dict[str, NDArray[Any]], dict[str, Any]] | None:
    """Map ``path`` read-only after checking it; ``None`` when absent or refused (and removed)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    try:
        info = os.fstat(fd)
        if not (stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid()):
            raise SharingUnavailable(
                f"{path} is not an owner-only file of this user (uid {info.st_uid}, mode "
                f"{oct(info.st_mode & 0o777)}); remove it or use another folder"
            )
        if info.st_mode & 0o077:
            # This user's file, readable or writable by others: never trusted,
            # not even after a chmod (another may hold it open for writing).
            os.close(fd)
            _unlink_same(path, info)
            return None
        fcntl.flock(fd, fcntl.LOCK_SH)  # held while mapped: marks the file as in use
        view = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        found = _read(view, key)
        if found is None:
            view.close()
            os.close(fd)
            path.unlink(missing_ok=True)
            return None
        return fd, view, *found
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise


def _unlink_same(path: Path, info: os.stat_result) -> None:
    """Remove ``path`` if it still names the file ``info`` describes (nothing else)."""
    with contextlib.suppress(FileNotFoundError):
        now = path.lstat()
        if (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino):
            path.unlink()


def _read(view: mmap.mmap, key: str) -> tuple[dict[str, NDArray[Any]], dict[str, Any]] | None:
    """The arrays in ``view`` when its header names ``key`` and its digest holds, else ``None``."""
    if len(view) < _PREFIX.size:
        return None
    magic, length, _count = _PREFIX.unpack_from(view, 0)
    if magic != MAGIC or _PREFIX.size + length > len(view):
        return None
    try:
        header = json.loads(bytes(view[_PREFIX.size : _PREFIX.size + length]))
        start = -(-(_PREFIX.size + length) // _ALIGN) * _ALIGN
        if header["key"] != key:
            return None
        end = start
        arrays: dict[str, NDArray[Any]] = {}
        for name, dtype, shape, offset, nbytes in header["arrays"]:
            end = max(end, start + offset + nbytes)
            count = int(np.prod(shape, dtype=np.int64))
            array = np.frombuffer(view, dtype=np.dtype(dtype), count=count, offset=start + offset)
            arrays[name] = array.reshape(shape)
        if end > len(view) or header["sha256"] != _data_digest(memoryview(view)[start:end]):
            return None
        meta = dict(header["meta"])
    except (KeyError, TypeError, ValueError):
        return None
    return arrays, meta


def _count_attach(fd: int) -> int:
    raw = os.pread(fd, 8, 16)
    count = struct.unpack("<Q", raw)[0] + 1
    os.pwrite(fd, struct.pack("<Q", count), 16)
    return int(count)


def share_arrays(
    key: str,
    build: Callable[[], tuple[Mapping[str, NDArray[Any]], Mapping[str, Any]]],
    *,
    folder: Path,
    local_ranks: int,
    persist: bool = False,
) -> NodeArrays:
    """The arrays of ``key``: mapped from ``folder`` if published, else built and published.

    Args:
        key: Names the arrays completely (a digest of everything they depend on);
            also the file's name, so it must be a plain token.
        build: Builds them, with plain JSON values to publish beside them (called
            by one process of the node, under the folder lock).
        folder: Node-local folder for the files (created owner-only).
        local_ranks: How many processes of this node will ask for ``key``;
            the last of them to map the file removes its name.
        persist: Keep the name (a plan cache across restarts) instead.

    Returns:
        The mapped, read-only arrays. The file stays marked in use (a shared
        ``flock``) until the mapping is garbage-collected.

    Raises:
        SharingUnavailable: the folder cannot be used; build per process instead.
    """
    _ensure_folder(folder)
    path = folder / f"{key}{SUFFIX}"
    try:
        with _folder_lock(folder):
            built = False
            attached = _attach(path, key)
            if attached is None:
                sweep(folder, keep_published=persist)
                arrays, meta = build()
                _publish(folder, path, key, arrays, meta)
                del arrays
                attached = _attach(path, key)
                if attached is None:  # pragma: no cover - the file vanished under the lock
                    raise SharingUnavailable(f"{path} disappeared after it was published")
                built = True
            fd, view, mapped, published = attached
            if not persist and _count_attach(fd) >= local_ranks:
                path.unlink(missing_ok=True)
    except SharingUnavailable:
        raise
    except OSError as exc:
        raise SharingUnavailable(f"cannot share through {folder}: {exc}") from exc
    # The lock-holding descriptor lives exactly as long as the mapping.
    weakref.finalize(view, os.close, fd)
    return NodeArrays(mapped, published, built, path)
