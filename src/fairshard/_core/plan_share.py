"""Materialized plans built once per node and mapped by its ranks; optionally cached on disk.

A family whose plan is materialized (a permutation, batches in CSR arrays)
opts in with ``PlannedSampler._shares_plan()``; its plan then goes through
:func:`shared_plan`, which publishes it with
:func:`fairshard._distributed.node_arrays.share_arrays` under a key naming
everything the plan depends on: the family, its config (which digests the
weights, lengths or labels), the seed, the epoch and the library's version.
The tables a family derives from its inputs at construction (a copy of the
weights, an alias table, items grouped by class, narrowed lengths) go the
same way through :func:`shared_tables`, keyed by a digest of those inputs.

Two environment variables steer it (every rank of a launch sees the same):

* ``FAIRSHARD_SHARE_PLANS``: ``auto`` (the default) shares when the node runs
  more than one local rank (``LOCAL_WORLD_SIZE > 1``, as torchrun sets it);
  ``1`` always goes through the shared folder, ``0`` never does.
* ``FAIRSHARD_SHARE_DIR``: the node-local folder for shared plans (default
  ``/dev/shm/fairshard-<uid>``; point it elsewhere where ``/dev/shm`` is small,
  as in a container's default 64 MB).
* ``FAIRSHARD_PLAN_CACHE``: a folder. Plans are published there and kept, so
  a restart maps the epoch's plan instead of building it again. Files are
  owner-only and checked (owner, mode, key, SHA-256) before use; a file that
  fails a check is removed and rebuilt, never read as this job's plan.

NOTE (fallback): sharing never changes what a rank yields, only where the
plan's memory lives. When the folder cannot be used (no ``/dev/shm``, no
space, a folder of another user) every rank builds its own plan, as without
sharing, and one warning says why.

NOTE (what cannot be shared): a plan whose inputs the config does not name
cannot be keyed, so it is never shared: ``ShardedSampler`` (its plan is what
the wrapped sampler yields) and ``BatchShardSampler`` (what the wrapped batch
sampler yields) keep one plan per rank.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

from numpy.typing import NDArray

from .._distributed.digest import digest
from .._distributed.node_arrays import NodeArrays, SharingUnavailable, share_arrays
from .._errors import ConfigError, warn
from .._version import __version__
from .heap import release_freed_memory
from .plans import PLAN_TYPES, Plan, SharedPlan

__all__ = ["ENV_CACHE", "ENV_DIR", "ENV_SHARE", "plan_sharing", "shared_plan", "shared_tables"]

ENV_SHARE = "FAIRSHARD_SHARE_PLANS"
ENV_CACHE = "FAIRSHARD_PLAN_CACHE"
ENV_DIR = "FAIRSHARD_SHARE_DIR"
_MODES = {"auto": "auto", "1": "on", "on": "on", "0": "off", "off": "off"}
_warned: set[str] = set()
P = TypeVar("P", bound=Plan)
T = TypeVar("T")


def _local_ranks() -> int:
    raw = os.environ.get("LOCAL_WORLD_SIZE", "1")
    try:
        return max(1, int(raw))
    except ValueError:
        return 1


def plan_sharing(cached: bool = True) -> tuple[Path, int, bool] | None:
    """``(folder, local_ranks, persist)`` when plans go through a shared folder, else ``None``.

    Args:
        cached: Whether the plan cache (``FAIRSHARD_PLAN_CACHE``) may hold
            them; ``False`` (tables) shares through the node folder only.

    Raises:
        ConfigError: ``FAIRSHARD_SHARE_PLANS`` holds an unknown value.
    """
    raw = os.environ.get(ENV_SHARE, "auto")
    mode = _MODES.get(raw.strip().lower())
    if mode is None:
        raise ConfigError(
            f"{ENV_SHARE}={raw!r} is not a sharing mode; use auto (share when "
            "LOCAL_WORLD_SIZE > 1), 1 (always) or 0 (never)"
        )
    cache = os.environ.get(ENV_CACHE, "") if cached else ""
    local = _local_ranks()
    if mode == "off":
        return None
    if cache:
        return Path(cache).expanduser(), local, True
    if mode == "auto" and local <= 1:
        return None
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR]).expanduser(), local, False
    base = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())
    return base / f"fairshard-{os.geteuid()}", local, False


def _node_arrays(
    key_material: Mapping[str, Any],
    build: Callable[[], tuple[Mapping[str, NDArray[Any]], Mapping[str, Any]]],
    cached: bool,
) -> NodeArrays | None:
    """``build()``'s arrays published once per node, or ``None`` where sharing is off or fails."""
    settings = plan_sharing(cached)
    if settings is None:
        return None
    folder, local_ranks, persist = settings
    key = digest({**key_material, "fairshard": __version__})
    try:
        shared = share_arrays(key, build, folder=folder, local_ranks=local_ranks, persist=persist)
    except SharingUnavailable as exc:
        reason = str(exc)
        if reason not in _warned:
            _warned.add(reason)
            warn(
                f"plans are not shared across this node's ranks ({reason}); each rank "
                f"builds its own. Set {ENV_SHARE}=0 to build per rank without this warning"
            )
        return None
    # What the build (or, on a rank that maps, the inputs' checks and digest)
    # freed goes back to the OS (``_core/heap.py``).
    release_freed_memory()
    return shared


def _built_here(build: Callable[[], T]) -> T:
    """``build()`` in this process, and its freed temporaries returned to the OS."""
    result = build()
    release_freed_memory()
    return result


def shared_plan(key_material: Mapping[str, Any], build: Callable[[], P]) -> P:
    """``build()``'s plan, built once per node and mapped read-only where sharing is on.

    Args:
        key_material: Plain values that name the plan completely.
        build: Builds the plan (on one rank of the node).
    """

    def arrays() -> tuple[dict[str, Any], dict[str, Any]]:
        plan = build()
        # The nearest registered type rebuilds it (TorchPermutationPlan -> ArrayPlan).
        name = next(
            (c.__qualname__ for c in type(plan).__mro__ if c.__qualname__ in PLAN_TYPES), ""
        )
        if not name or not isinstance(plan, SharedPlan):
            raise TypeError(f"{type(plan).__qualname__} is not a shareable plan type")
        values, meta = plan.plan_arrays()
        return values, {**meta, "type": name}

    shared = _node_arrays(key_material, arrays, cached=True)
    if shared is None:
        return _built_here(build)
    # The nearest registered type of what ``build`` returns: the same class, or the
    # base a subclass publishes as (TorchPermutationPlan -> ArrayPlan, an IndexPlan).
    return cast(P, PLAN_TYPES[str(shared.meta["type"])](shared.arrays, shared.meta))


def shared_tables(
    key_material: Mapping[str, Any],
    build: Callable[..., Mapping[str, NDArray[Any]]],
    *inputs: Any,
) -> dict[str, NDArray[Any]]:
    """``build()``'s per-item tables, built once per node and mapped read-only where plans are.

    What a sampler derives from its inputs at construction (a copy of the
    weights, an alias table, each item's class, the items grouped by class,
    narrow sort keys) is the same on every rank of a node, like its plans;
    holding it once per rank would keep the node at ``local ranks x`` one
    rank's memory even with shared plans. The tables go through the same
    folder, checks and fallback as plans (where sharing is off or fails,
    ``build()`` runs in this process and its arrays stay private and writable).

    NOTE (never in the plan cache): tables are shared through the node folder
    only, never kept in ``FAIRSHARD_PLAN_CACHE``. They cost one pass over the
    inputs to rebuild, and some change every epoch (a hard-example sampler's
    alias table follows its scores): a cache would gain a file of 8 bytes per
    item per epoch for a restart that saves a fraction of a second.

    Args:
        key_material: Plain values that name the tables completely: the family,
            which tables, a digest of the inputs and every parameter they
            depend on.
        build: Builds them from ``inputs`` (on one rank of the node).
        inputs: Passed to ``build`` (not held after the call: a caller can
            ``del`` a large input right after).
    """
    shared = _node_arrays(key_material, lambda: (build(*inputs), {}), cached=False)
    if shared is None:
        return dict(_built_here(lambda: build(*inputs)))
    return dict(shared.arrays)
