"""Hugging Face ``datasets``: Arrow columns as lengths, ``IterableDataset`` shards as a stream.

* Lengths: ``LengthBucketBatchSampler``, ``TokenBudgetBatchSampler`` and
  ``PackingBatchSampler`` (and every other input read by fairshard) accept a
  ``datasets.Dataset`` column (``ds["length"]``), its numpy view
  (``ds.with_format("numpy")["length"]``) or a pyarrow array; the column is
  converted by Arrow, with no Python loop over its rows.
* Streams: ``sharded_iterable(ids)`` turns a ``datasets.IterableDataset``
  with ``n_shards`` shards into a ``ShardedIterable`` in shard mode: whole
  shards go to ranks and DataLoader workers, and with ``shard_sizes`` (or
  the one counting pass it does without them) every rank yields the same
  number of items (``tail="drop"``: the surplus of the last shards is left
  out; ``"pad"``: repeated). ``datasets.distributed.split_dataset_by_node``
  gives ranks unequal counts when the shards are unequal, and DDP then
  hangs at the end of the epoch.

Nothing here imports ``datasets``: the objects are used through their own
methods (``n_shards``, ``shard``, ``iter``).

NOTE (workers): iterated inside a DataLoader worker, a
``datasets.IterableDataset`` splits its shards among the workers itself
(one shard: all but one worker read nothing). fairshard already gave this
worker its shards, so each is read through ``IterableDataset.iter``,
which does not split, and unbatched into rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._errors import ConfigTypeError
from .._streams.sharded_iterable import ShardedIterable

__all__ = ["iterable_shards", "read_rows", "sharded_iterable"]


def iterable_shards(dataset: Any) -> list[Any]:
    """The shards of a ``datasets.IterableDataset``, each an ``IterableDataset`` of its own.

    Raises:
        ConfigTypeError: ``dataset`` has no ``n_shards`` and ``shard``.
    """
    count = getattr(dataset, "n_shards", None)
    if not isinstance(count, int) or not callable(getattr(dataset, "shard", None)):
        raise ConfigTypeError(
            f"iterable_shards needs a datasets.IterableDataset (with n_shards and shard()), "
            f"got {type(dataset).__name__}"
        )
    return [dataset.shard(num_shards=count, index=k, contiguous=True) for k in range(count)]


_CHUNK = 256


def read_rows(shard: Any) -> Iterator[Any]:
    """The rows of one ``IterableDataset`` shard, as ``iter(shard)`` yields them outside workers."""
    for batch in shard.iter(batch_size=_CHUNK):
        columns = list(batch)
        if not columns:
            continue
        for k in range(len(batch[columns[0]])):
            yield {name: batch[name][k] for name in columns}


def sharded_iterable(
    dataset: Any, *, shard_sizes: list[int] | None = None, **kwargs: Any
) -> ShardedIterable[Any]:
    """A ``ShardedIterable`` (shard mode) over the shards of a ``datasets.IterableDataset``.

    Args:
        dataset: a ``datasets.IterableDataset`` (``n_shards`` shards).
        shard_sizes: items in each shard, when known (from the files' metadata,
            say). Without them every shard is read once here to count its
            items: pass them for large data.
        **kwargs: ``ShardedIterable``'s other arguments (``tail``, ``seed``,
            ``shuffle_shards``, ``num_replicas``, ``rank``).

    Returns:
        ``ShardedIterable(shards, mode="shard", shard_sizes=..., open_shard=read_rows)``.
    """
    shards = iterable_shards(dataset)
    if shard_sizes is None:
        shard_sizes = [sum(1 for _ in read_rows(shard)) for shard in shards]
    return ShardedIterable(
        shards, mode="shard", shard_sizes=shard_sizes, open_shard=read_rows, **kwargs
    )
