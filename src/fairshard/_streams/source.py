"""Checks and normalizes what ``ShardedIterable`` is given: the source, its length, its shards.

Kept apart from the class so the class reads as the split itself: every
rule about which sources, totals and shard sizes are accepted (and the
message that names the fix when one is not) lives here, and runs once,
at construction.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

import numpy as np
import torch.utils.data as tud
from numpy.typing import NDArray

from .._core.partition import Tail
from .._errors import (
    ConfigError,
    ConfigTypeError,
    DegenerateConfigWarning,
    check_int,
    warn,
)

__all__ = ["check_length", "check_source", "item_total", "random_access", "shard_sizes_array"]


def random_access(obj: object) -> bool:
    """True for lists, tuples, arrays and map-style datasets: indexable and sized."""
    if isinstance(obj, tud.IterableDataset | str | bytes | dict):
        return False
    return hasattr(obj, "__getitem__") and hasattr(obj, "__len__")


def check_source(source: object) -> None:
    """Reject a source that cannot be read again by every worker and epoch.

    Raises:
        ConfigTypeError: ``source`` is not iterable, is a one-shot iterator, or is
            unordered (a ``set``: each process would iterate it in its own order).
    """
    if not hasattr(source, "__iter__") and not random_access(source):
        raise ConfigTypeError(
            f"source must be iterable, got {type(source).__name__}; pass a list, an "
            "IterableDataset or an object whose __iter__ opens the stream"
        )
    if isinstance(source, AbstractSet) and not isinstance(source, KeysView | ItemsView):
        raise ConfigTypeError(
            f"source is a {type(source).__name__}, whose iteration order differs between "
            "processes (string hashes are salted per process), so ranks would read "
            "overlapping items and miss others; pass an ordered sequence, e.g. "
            "sorted(source)"
        )
    if isinstance(source, Iterator):
        raise ConfigTypeError(
            f"source is a one-shot iterator ({type(source).__name__}): every worker and "
            "every epoch must start the stream again; pass a re-iterable (a list, an "
            "IterableDataset, or an object whose __iter__ opens the stream)"
        )


def item_total(
    source: object, total: Any, shard_sizes: Any, open_shard: Any, policy: Tail, num_replicas: int
) -> int | None:
    """Item mode: the stream's length (``len(source)`` or ``total``), ``None`` when unknown.

    Raises:
        ConfigError: shard-mode arguments, a ``total`` that contradicts
            ``len(source)``, or a length that leaves nothing to read.
    """
    if shard_sizes is not None or open_shard is not None:
        raise ConfigError(
            "shard_sizes and open_shard apply to mode='shard' only; pass mode='shard' "
            "with a list of shards, or total= for the length of an item stream"
        )
    if random_access(source):
        n = len(source)  # type: ignore[arg-type]
        if total is not None and check_int("total", total, minimum=0) != n:
            raise ConfigError(
                f"total={total} but the source has len()={n}; omit total for a sized source"
            )
        total = n
    if total is None:
        return None
    checked = check_int("total", total, minimum=0, fix="count the stream's items")
    check_length(checked, "item", policy, num_replicas)
    return checked


def shard_sizes_array(
    source: object, total: Any, sizes_arg: Any, policy: Tail, num_replicas: int
) -> NDArray[np.int64] | None:
    """Shard mode: the items per shard as an array, ``None`` when not given.

    Raises:
        ConfigTypeError: ``source`` is not a sequence of shards.
        ConfigError: ``total`` given, no shards, sizes that do not match the
            shards, or a ``policy`` the given sizes cannot honour.
    """
    if total is not None:
        raise ConfigError(
            "total applies to mode='item'; in shard mode pass shard_sizes (items per shard)"
        )
    if not isinstance(source, Sequence) or isinstance(source, str | bytes):
        raise ConfigTypeError(
            f"in shard mode source must be a sequence of shards (a list of shards or of "
            f"file paths), got {type(source).__name__}"
        )
    if len(source) == 0:
        raise ConfigError("source has no shards; pass at least one shard")
    sizes: NDArray[np.int64] | None = None
    if sizes_arg is not None:
        checked = [check_int(f"shard_sizes[{j}]", s, minimum=0) for j, s in enumerate(sizes_arg)]
        if len(checked) != len(source):
            raise ConfigError(
                f"shard_sizes has {len(checked)} entries for {len(source)} shards; "
                "give one size per shard, in the same order"
            )
        sizes = np.asarray(checked, dtype=np.int64)
        check_length(int(sizes.sum()), "shard", policy, num_replicas)
        if policy == "pad" and len(source) < num_replicas:
            raise ConfigError(
                f"tail='pad' needs at least one shard per rank, got {len(source)} "
                f"shards for num_replicas={num_replicas}; split the data into more "
                "shards or use mode='item'"
            )
    elif policy != "uneven":
        raise ConfigError(
            f"policy={policy!r} in shard mode needs shard_sizes (items per shard) to "
            "give every rank the same count; pass shard_sizes, or tail='uneven' and wrap "
            "the training loop's DataLoader in fairshard.stop_together(loader)"
        )
    if len(source) < num_replicas:
        warn(
            f"ShardedIterable: {len(source)} shards for num_replicas="
            f"{num_replicas}: some ranks get no shard; use more, smaller shards",
            DegenerateConfigWarning,
        )
    return sizes


def check_length(total: int, mode: str, policy: Tail, num_replicas: int) -> None:
    """Reject a known length that leaves every rank without items.

    Raises:
        ConfigError: no items at all, or (item mode, ``drop``) fewer items
            than ranks.
    """
    if total == 0:
        raise ConfigError(
            "the source has no items (total=0); check the data path or filter, a "
            "distributed job cannot train on an empty stream"
        )
    if mode == "item" and policy == "drop" and total < num_replicas:
        raise ConfigError(
            f"tail='drop' leaves every rank empty: {total} items for num_replicas="
            f"{num_replicas}; use tail='pad' or 'uneven'"
        )
