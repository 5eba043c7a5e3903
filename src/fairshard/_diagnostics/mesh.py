"""The simulator on a device mesh: each (dp, tp) rank's share, replicas and disjointness.

A mesh ``dp=2,tp=2`` has 4 global ranks, numbered row-major as
``init_device_mesh`` numbers them. The sampler's world is the group it was
built for: by default the data-parallel dims (every dim not named like a
model-parallel one, ``tp``/``cp``/``pp``...), or any dims given, or the
whole job (``"world"``, the classic mistake). The simulator runs one virtual
sampler per rank of that world (``simulate``) and maps every global rank to
the share its group rank takes. Two invariants, checked here:

* **replicas**: global ranks with the same data-parallel coordinates (the
  ranks of one tp/cp/pp group) hold the identical share;
* **disjoint across dp**: different data-parallel coordinates hold
  different ranks' shares of the plan, and together all of them
  (``simulate`` then checks those shares as usual).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._distributed.groups import is_model_parallel_dim
from .._errors import ConfigError

__all__ = ["MeshRank", "MeshReport", "check_mesh", "parse_mesh", "sampler_world"]


def parse_mesh(text: str) -> dict[str, int]:
    """``"dp=2,tp=2"`` -> ``{"dp": 2, "tp": 2}`` (ordered, sizes >= 1).

    Raises:
        ConfigError: a malformed entry, a repeated dim or a size below 1.
    """
    dims: dict[str, int] = {}
    for part in text.split(","):
        name, eq, size = part.strip().partition("=")
        if not eq or not name.strip() or not size.strip().isdigit() or int(size) < 1:
            raise ConfigError(
                f"--mesh {text!r}: each dim is NAME=SIZE with SIZE >= 1, got {part.strip()!r}; "
                "e.g. --mesh dp=2,tp=2 or --mesh dp_replicate=2,dp_shard=2,tp=2"
            )
        if name.strip() in dims:
            raise ConfigError(f"--mesh {text!r}: dim {name.strip()!r} is given twice")
        dims[name.strip()] = int(size)
    return dims


def data_dims(mesh: dict[str, int]) -> list[str]:
    """The data-parallel dims: every dim not named like a model-parallel one."""
    return [d for d in mesh if not is_model_parallel_dim(d)]


def sampler_world(mesh: dict[str, int], group: str | None) -> list[str]:
    """The dims the sampler's world spans: ``group`` ("a,b" or "world"), default the data dims.

    Raises:
        ConfigError: an unknown dim.
    """
    if group is None:
        return data_dims(mesh)
    if group.strip() == "world":
        return list(mesh)
    dims = [d.strip() for d in group.split(",") if d.strip()]
    unknown = [d for d in dims if d not in mesh]
    if unknown or not dims:
        raise ConfigError(
            f"--group {group!r}: {unknown or 'no dims'} not among the mesh dims {list(mesh)}; "
            "give mesh dims (e.g. --group dp) or 'world' for the whole job"
        )
    return [d for d in mesh if d in dims]  # mesh order, as a flattened sub-mesh has


@dataclass
class MeshRank:
    """One global rank of the mesh and the share it takes."""

    rank: int
    coords: dict[str, int]
    sampler_rank: int  # its rank in the sampler's world
    first: list[int]
    items: int


@dataclass
class MeshReport:
    """Each global rank's share on the mesh, and what broke."""

    mesh: dict[str, int]
    data_dims: list[str]
    group_dims: list[str]
    sampler_world: int
    ranks: list[MeshRank] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain values (the ``mesh`` section of ``fairshard simulate --json``)."""
        return {
            "dims": dict(self.mesh),
            "data_dims": list(self.data_dims),
            "group_dims": list(self.group_dims),
            "sampler_world": self.sampler_world,
            "ranks": [
                {
                    "rank": r.rank,
                    "coords": r.coords,
                    "sampler_rank": r.sampler_rank,
                    "items": r.items,
                    "first": r.first,
                }
                for r in self.ranks
            ],
            "problems": list(self.problems),
        }

    def to_text(self) -> str:
        """A table: global rank, mesh coordinates, sampler rank, first items."""
        dims = list(self.mesh)
        group = ", ".join(self.group_dims)
        lines = [
            f"mesh {' x '.join(f'{d}={n}' for d, n in self.mesh.items())}: the sampler's "
            f"world is ({group}), {self.sampler_world} ranks; data-parallel dims: "
            f"({', '.join(self.data_dims)})",
            f"{'rank':>4}  "
            + "  ".join(f"{d:>{max(len(d), 2)}}" for d in dims)
            + "  sampler rank  items  first",
        ]
        for r in self.ranks:
            coords = "  ".join(f"{r.coords[d]:>{max(len(d), 2)}}" for d in dims)
            lines.append(f"{r.rank:>4}  {coords}  {r.sampler_rank:>12}  {r.items:>5}  {r.first}")
        if self.problems:
            lines.append("mesh problems:")
            lines.extend(f"  - {p}" for p in self.problems)
        else:
            lines.append(
                "identical within each model-parallel group; each data-parallel rank takes its "
                "own sampler rank's share (their disjointness is checked above)"
            )
        return "\n".join(lines)


def _coords(rank: int, mesh: dict[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for dim in reversed(mesh):
        rank, out[dim] = divmod(rank, mesh[dim])
    return {d: out[d] for d in mesh}


def _linear(coords: dict[str, int], mesh: dict[str, int], dims: list[str]) -> int:
    index = 0
    for d in dims:
        index = index * mesh[d] + coords[d]
    return index


def check_mesh(
    mesh: dict[str, int], group_dims: list[str], shares: list[NDArray[np.int64]], first: int
) -> MeshReport:
    """Map every global rank to its share and check replicas and disjointness.

    Args:
        mesh: Dim name -> size, in mesh order.
        group_dims: The dims the sampler's world spans.
        shares: The sampler's world's shares, one per sampler rank (one epoch).
        first: First items shown per rank.
    """
    dp = data_dims(mesh)
    report = MeshReport(dict(mesh), dp, list(group_dims), len(shares))
    by_dp: dict[tuple[int, ...], list[MeshRank]] = {}
    for rank in range(math.prod(mesh.values())):
        coords = _coords(rank, mesh)
        sampler_rank = _linear(coords, mesh, group_dims)
        share = shares[sampler_rank]
        entry = MeshRank(rank, coords, sampler_rank, share[:first].tolist(), int(share.size))
        report.ranks.append(entry)
        by_dp.setdefault(tuple(coords[d] for d in dp), []).append(entry)
    for key, members in by_dp.items():
        distinct = {m.sampler_rank for m in members}
        if len(distinct) > 1 and len({shares[s].tobytes() for s in distinct}) > 1:
            where = ", ".join(f"{d}={c}" for d, c in zip(dp, key, strict=True)) or "the job"
            ranks = [m.rank for m in members]
            report.problems.append(
                f"replicas differ: global ranks {ranks} ({where}) are one model-parallel group "
                f"and must read identical data, but take the shares of sampler ranks "
                f"{sorted(distinct)}: the sampler's world spans model-parallel dims "
                f"({', '.join(d for d in group_dims if d not in dp)}); build it with "
                f"group= the data-parallel dims ({', '.join(dp)})"
            )
    owners: dict[int, list[tuple[int, ...]]] = {}
    for key, members in by_dp.items():
        owners.setdefault(members[0].sampler_rank, []).append(key)
    for sampler_rank, keys in owners.items():
        if len(keys) > 1:
            missing = [d for d in dp if d not in group_dims]
            report.problems.append(
                f"data-parallel ranks {keys} (coordinates over {', '.join(dp)}) all take the "
                f"share of sampler rank {sampler_rank}, so they train on the same data: the "
                f"sampler's world misses data-parallel dims ({', '.join(missing)}); build it "
                f"with group= all of ({', '.join(dp)})"
            )
    return report
