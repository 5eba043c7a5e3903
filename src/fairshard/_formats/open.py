"""The public constructors: ``open_webdataset``, ``open_mds``, ``open_parquet``, ``open_arrow``.

Each names its shards, opens (or builds, in one pass) the set's index and
returns a :class:`~fairshard._formats.dataset.ShardDataset`. The shared
keywords: ``decode`` (applied to each sample), ``cache`` (a ``ChunkCache``
for remote shards), ``storage_options`` (the fsspec filesystem's keywords),
``index_dir`` (where indexes are kept, default ``~/.cache/fairshard/index``
or ``$FAIRSHARD_INDEX_DIR``) and ``rebuild`` (index again even where a saved
index matches).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from typing import Any

from .._errors import ShardError, check_bool
from .cache import ChunkCache
from .columnar import ArrowScanner, ParquetScanner
from .dataset import ShardDataset
from .index import open_index
from .mds import MDSScanner, read_mds_index
from .readers import ArrowReader, MDSReader, ParquetReader, TarReader
from .store import Store
from .webdataset import SUFFIXES as TAR_SUFFIXES
from .webdataset import TarScanner

__all__ = ["open_arrow", "open_mds", "open_parquet", "open_webdataset"]

Urls = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]


def _store(urls: Urls, storage_options: dict[str, Any] | None, cache: ChunkCache | None) -> Store:
    first = urls if isinstance(urls, (str, os.PathLike)) else next(iter(urls), "")
    return Store(os.fspath(first), storage_options=storage_options, cache=cache)


def _join(store: Store, folder: str, name: str) -> str:
    return os.path.join(folder, name) if store.local else folder.rstrip("/") + "/" + name


def _columns(columns: Sequence[str] | None) -> list[str] | None:
    return None if columns is None else [str(c) for c in columns]


def open_webdataset(
    urls: Urls,
    *,
    decode: Callable[[Any], Any] | None = None,
    cache: ChunkCache | None = None,
    storage_options: dict[str, Any] | None = None,
    index_dir: str | os.PathLike[str] | None = None,
    rebuild: bool = False,
) -> ShardDataset:
    """WebDataset tar shards as one random-access dataset.

    Args:
        urls: A folder (its ``.tar`` files, sorted), a glob, a brace pattern
            (``"s3://bucket/train-{000000..000099}.tar"``) or a list of shards.
        decode: Applied to each sample, a dict ``{"__key__", "__url__",
            <extension>: bytes}`` as WebDataset yields it.
        cache: The node's chunk cache for remote shards.
        storage_options: fsspec keywords (``{"endpoint_url": ...}``).
        index_dir: Where the index is kept.
        rebuild: Index again even where a saved index matches.

    Raises:
        ShardError: A shard is missing, truncated or not a tar file (named).

    Example:
        >>> import io, tarfile, tempfile
        >>> folder = tempfile.mkdtemp()
        >>> with tarfile.open(f"{folder}/shard-0.tar", "w") as tar:
        ...     for i in range(3):
        ...         info = tarfile.TarInfo(f"{i:04d}.cls"); info.size = 1
        ...         tar.addfile(info, io.BytesIO(str(i).encode()))
        >>> ds = open_webdataset(folder, index_dir=folder + "/index")
        >>> len(ds), ds[2]["__key__"], ds[2]["cls"]
        (3, '0002', b'2')
    """
    rebuild = check_bool("rebuild", rebuild)
    store = _store(urls, storage_options, cache)
    paths = store.resolve(urls, TAR_SUFFIXES)
    index = open_index(store, TarScanner(), paths, index_dir=index_dir, rebuild=rebuild)
    return ShardDataset(index, store, TarReader(), decode=decode)


def open_mds(
    url: str | os.PathLike[str],
    *,
    raw: bool = False,
    decode: Callable[[Any], Any] | None = None,
    cache: ChunkCache | None = None,
    storage_options: dict[str, Any] | None = None,
    index_dir: str | os.PathLike[str] | None = None,
    rebuild: bool = False,
) -> ShardDataset:
    """An MDS folder (mosaicml streaming's ``MDSWriter`` output) as one random-access dataset.

    Args:
        url: The folder holding ``index.json`` and the shards.
        raw: Return the bytes of columns whose encoding is not decoded here
            (images, ``ndarray``) instead of refusing them.
        decode: Applied to each sample, a dict column -> value.
        cache: The node's chunk cache for remote shards.
        storage_options: fsspec keywords.
        index_dir: Where the index is kept.
        rebuild: Index again even where a saved index matches.

    Raises:
        ShardError: ``index.json`` is missing or a shard disagrees with it (named).
        ConfigError: A column's encoding is not decoded and ``raw`` is false.
    """
    rebuild = check_bool("rebuild", rebuild)
    store = _store(url, storage_options, cache)
    folder = store.strip(os.fspath(url))
    if folder.endswith("index.json"):
        folder = folder[: -len("index.json")].rstrip("/") or "/"
    where = _join(store, folder, "index.json")
    if not store.exists(where):
        raise ShardError(
            f"{store.url(folder)} has no index.json: an MDS set is read from the index its "
            "writer saved beside the shards (MDSWriter writes it when closed); point url at "
            "that folder or write the set again"
        )
    text = store.read_all(where)
    shards = read_mds_index(text, store.url(where), raw=check_bool("raw", raw))
    paths = [_join(store, folder, s["basename"]) for s in shards]
    expected = {store.url(p): s["samples"] for p, s in zip(paths, shards, strict=True)}
    key = {"index.json": hashlib.sha256(text).hexdigest()}
    meta = {"columns": [s["columns"] for s in shards]}
    index = open_index(
        store, MDSScanner(expected), paths, index_dir=index_dir, rebuild=rebuild, key=key, meta=meta
    )
    return ShardDataset(index, store, MDSReader(), decode=decode)


def open_parquet(
    urls: Urls,
    *,
    columns: Sequence[str] | None = None,
    decode: Callable[[Any], Any] | None = None,
    cache: ChunkCache | None = None,
    storage_options: dict[str, Any] | None = None,
    index_dir: str | os.PathLike[str] | None = None,
    rebuild: bool = False,
) -> ShardDataset:
    """Parquet files as one random-access dataset of their rows (units: row groups).

    Args:
        urls: A folder (its ``.parquet`` files, sorted), a glob, a brace
            pattern or a list of files.
        columns: The columns a sample holds (default: all); only those are read.
        decode: Applied to each sample, a dict column -> value.
        cache: The node's chunk cache for remote files.
        storage_options: fsspec keywords.
        index_dir: Where the index is kept.
        rebuild: Index again even where a saved index matches.

    Raises:
        ShardError: A file is missing, not Parquet, or its rows changed (named).
    """
    rebuild = check_bool("rebuild", rebuild)
    store = _store(urls, storage_options, cache)
    paths = store.resolve(urls, (".parquet",))
    index = open_index(store, ParquetScanner(), paths, index_dir=index_dir, rebuild=rebuild)
    return ShardDataset(index, store, ParquetReader(_columns(columns)), decode=decode)


def open_arrow(
    urls: Urls,
    *,
    columns: Sequence[str] | None = None,
    decode: Callable[[Any], Any] | None = None,
    cache: ChunkCache | None = None,
    storage_options: dict[str, Any] | None = None,
    index_dir: str | os.PathLike[str] | None = None,
    rebuild: bool = False,
) -> ShardDataset:
    """Arrow IPC files as one random-access dataset (HF ``datasets`` ``save_to_disk`` too).

    Args:
        urls: A folder written by ``datasets.Dataset.save_to_disk`` (its
            ``state.json`` names the files, in order), a folder of ``.arrow``
            files (sorted), a glob or a list of files.
        columns: The columns a sample holds (default: all).
        decode: Applied to each sample, a dict column -> value.
        cache: The node's chunk cache for remote files.
        storage_options: fsspec keywords.
        index_dir: Where the index is kept.
        rebuild: Index again even where a saved index matches.

    Raises:
        ShardError: A file is missing or not Arrow IPC (named).
    """
    rebuild = check_bool("rebuild", rebuild)
    store = _store(urls, storage_options, cache)
    spec: Any = os.fspath(urls) if isinstance(urls, os.PathLike) else urls
    if isinstance(spec, str) and not any(c in spec for c in "*?[{") and store.fs.isdir(spec):
        folder = store.strip(spec)
        state = _join(store, folder, "state.json")
        if store.exists(state):
            try:
                files = [f["filename"] for f in json.loads(store.read_all(state))["_data_files"]]
            except (ValueError, KeyError, TypeError) as err:
                raise ShardError(
                    f"{store.url(state)} is not a datasets state.json ({err})"
                ) from err
            spec = [_join(store, folder, f) for f in files]
    paths = store.resolve(spec, (".arrow",))
    index = open_index(store, ArrowScanner(), paths, index_dir=index_dir, rebuild=rebuild)
    return ShardDataset(index, store, ArrowReader(_columns(columns)), decode=decode)
