"""PNG plots of a simulation report (matplotlib, under the ``[plot]`` extra).

One figure, one row of panels, only those that have something to show:

1. **Ownership**: which rank owns each dataset index in epoch 0, drawn as a
   grid read row by row, with a rank legend (pink: no rank, black: several);
2. **Missing** (when the dataset size is known): the same grid with only the
   indices no rank yielded, in pink, and their count;
3. **Class mix**: each rank's share of every class (given labels), else
   each rank's unique and repeated items;
4. **Per-epoch change** (two or more epochs): the fraction of each rank's
   positions whose index changed since the previous epoch (0 means identical
   order). Ranks get their own marker and a small horizontal offset, so equal
   values never hide each other.

The title carries epoch 0's counts: missing, overlapping (shared by two or
more ranks) and duplicate items. Rendering uses the non-interactive Agg
backend, so it works on servers.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .report import SimulationReport

__all__ = ["MAX_CELLS", "import_pyplot", "ownership", "plot_simulation"]

#: Most dataset indices drawn in the grid panels (the first ones).
MAX_CELLS = 250_000
#: Ranks named one by one in the legend; more are summarized.
_LEGEND_RANKS = 16
_MARKERS = "osD^v<>pPXh*"
_NONE, _SEVERAL, _MISSING = "#ffffff", "#000000", "#ff1493"

_INSTALL = "pip install 'fairshard[plot]'"


def import_pyplot() -> Any:
    """Import ``matplotlib.pyplot`` on the Agg backend, or explain how to install it.

    Raises:
        ImportError: matplotlib is missing; the message names the install command.
    """
    try:
        import matplotlib
    except ImportError:
        raise ImportError(f"plotting needs matplotlib; install it with: {_INSTALL}") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def ownership(shares: list[NDArray[np.int64]], size: int) -> NDArray[np.int64]:
    """(size,) owner of each index: the rank, -1 for none, ``len(shares)`` for several.

    Example:
        >>> ownership([np.array([0, 2]), np.array([1, 2])], 4).tolist()
        [0, 1, 2, -1]
    """
    world = len(shares)
    owner = np.full(size, -1, dtype=np.int64)
    for rank, share in enumerate(shares):
        idx = np.unique(share[(share >= 0) & (share < size)])
        taken = owner[idx]
        owner[idx] = np.where((taken == -1) | (taken == rank), rank, world)
    return owner


def _rank_colors(world: int, plt: Any) -> list[Any]:
    base = plt.get_cmap("tab10" if world <= 10 else "tab20")
    return [base(r % base.N) for r in range(world)]


def _grid(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """(rows, width) near-square grid read row by row; NaN past the end."""
    shown = values.size
    width = max(1, math.ceil(math.sqrt(shown)))
    cells = np.full(width * max(1, math.ceil(shown / width)), np.nan)
    cells[:shown] = values
    return cells.reshape(-1, width)


def _size(report: SimulationReport) -> int:
    if report.dataset_size is not None:
        return report.dataset_size
    return int(max((int(s.max()) + 1 for s in report.shares[0] if s.size), default=0))


def _ownership_panel(ax: Any, report: SimulationReport, plt: Any) -> None:
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    world = report.world_size
    size = _size(report)
    shown = min(size, MAX_CELLS)
    owner = ownership(report.shares[0], shown).astype(np.float64)
    ranks = _rank_colors(world, plt)
    cmap = ListedColormap([_MISSING, *ranks, _SEVERAL]).with_extremes(bad=_NONE)
    ax.imshow(
        np.ma.masked_invalid(_grid(owner + 1)),
        cmap=cmap,
        vmin=-0.5,
        vmax=world + 1.5,
        interpolation="nearest",
        aspect="auto",
    )
    note = "" if shown == size else f" (first {shown} of {size})"
    ax.set_title(f"owner of each index, epoch 0{note}\nread row by row (white: past the end)")
    ax.set_xticks([])
    ax.set_yticks([])
    handles = [Patch(color=ranks[r], label=f"rank {r}") for r in range(min(world, _LEGEND_RANKS))]
    if world > _LEGEND_RANKS:
        handles.append(Patch(color="#888888", label=f"... ranks {_LEGEND_RANKS}-{world - 1}"))
    handles += [
        Patch(color=_MISSING, label="no rank (missing)"),
        Patch(color=_SEVERAL, label="several ranks"),
    ]
    ax.legend(
        handles=handles,
        title="owner",
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
    )


def _missing_panel(ax: Any, report: SimulationReport) -> None:
    from matplotlib.colors import ListedColormap

    size = _size(report)
    shown = min(size, MAX_CELLS)
    owner = ownership(report.shares[0], shown)
    missing = (owner == -1).astype(np.float64)
    count = report.epochs[0].missing or 0
    ax.imshow(
        np.ma.masked_invalid(_grid(missing)),
        cmap=ListedColormap(["#e8e8e8", _MISSING]).with_extremes(bad=_NONE),
        vmin=0,
        vmax=1,
        interpolation="nearest",
        aspect="auto",
    )
    ax.set_xticks([])
    ax.set_yticks([])
    if count:
        ax.set_title(f"missing in epoch 0: {count} of {size} samples\n(pink: no rank yielded it)")
    else:
        ax.set_title(f"missing in epoch 0: none of {size}\n(every index yielded at least once)")


def _mix_panel(ax: Any, report: SimulationReport) -> None:
    ranks = report.epochs[0].ranks
    positions = np.arange(len(ranks))
    if ranks and ranks[0].class_counts is not None:
        counts = np.asarray([r.class_counts for r in ranks], dtype=np.float64)  # (W, C)
        fractions = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        left = np.zeros(len(ranks))
        palette = import_pyplot().get_cmap("viridis")
        classes = fractions.shape[1]
        for c in range(classes):
            color = palette(c / max(classes - 1, 1))
            ax.barh(positions, fractions[:, c], left=left, label=str(c), color=color)
            left += fractions[:, c]
        ax.set_xlabel("share of the rank's items")
        ax.set_title("class mix per rank, epoch 0")
        if classes <= 20:
            ax.legend(
                title="class",
                fontsize="small",
                ncol=2,
                loc="center left",
                bbox_to_anchor=(1.0, 0.5),
            )
    else:
        unique = [r.unique for r in ranks]
        repeated = [r.duplicates for r in ranks]
        ax.barh(positions, unique, label="unique", color="#4c72b0")
        ax.barh(positions, repeated, left=unique, label="repeated", color="#dd8452")
        ax.set_xlabel("items")
        ax.set_title("items per rank, epoch 0 (no labels given)")
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_yticks(positions, [f"rank {r.rank}" for r in ranks])
    ax.invert_yaxis()


def _change_panel(ax: Any, report: SimulationReport, plt: Any) -> None:
    epochs = np.asarray([e.epoch for e in report.epochs[1:]], dtype=np.float64)
    world = report.world_size
    colors = _rank_colors(world, plt)
    spread = 0.3 if world > 1 else 0.0
    for rank in range(world):
        values = [e.ranks[rank].order_change or 0.0 for e in report.epochs[1:]]
        offset = (rank / max(world - 1, 1) - 0.5) * spread
        ax.plot(
            epochs + offset,
            values,
            marker=_MARKERS[rank % len(_MARKERS)],
            linestyle="-",
            linewidth=1,
            alpha=0.85,
            color=colors[rank],
            label=f"rank {rank}" if rank < _LEGEND_RANKS else None,
        )
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("epoch (ranks offset sideways so none hides another)")
    ax.set_ylabel("positions changed vs previous epoch")
    ax.set_xticks(epochs)
    ax.set_title("order change per epoch\n(0 = identical order: set_epoch forgotten?)")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))


def _headline(report: SimulationReport) -> str:
    first = report.epochs[0]
    missing = "?" if first.missing is None else str(first.missing)
    return (
        f"{report.sampler} on {report.world_size} ranks\n"
        f"epoch 0: {missing} missing, {first.overlap} overlapping (in 2+ ranks), "
        f"{first.duplicates} duplicate items"
        + ("" if report.ok else f"; {len(report.problems)} problem(s)")
    )


def plot_simulation(
    report: SimulationReport,
    path: str | os.PathLike[str] | None = None,
    *,
    dpi: int = 100,
) -> Any:
    """Draw ``report`` (see the module docstring); write a PNG to ``path`` if given.

    Args:
        report: A :func:`fairshard.simulate` result.
        path: Where to write the PNG; ``None`` returns the open figure instead
            (close it with ``matplotlib.pyplot.close(fig)``).
        dpi: Resolution of the PNG.

    Returns:
        ``None`` when written to ``path``, else the matplotlib ``Figure``.

    Raises:
        ImportError: matplotlib is not installed (names the install command).
        OSError: ``path`` cannot be written.

    Example:
        >>> import fairshard
        >>> report = fairshard.simulate("DistributedSampler", 4, dataset_size=103, epochs=2)
        >>> fig = fairshard.plot_simulation(report)
        >>> [ax.get_title().splitlines()[0] for ax in fig.axes[:2]]
        ['owner of each index, epoch 0', 'missing in epoch 0: none of 103']
        >>> import matplotlib.pyplot as plt
        >>> plt.close(fig)
    """
    plt = import_pyplot()
    panels: list[Any] = [lambda ax: _ownership_panel(ax, report, plt)]
    if report.dataset_size is not None:
        panels.append(lambda ax: _missing_panel(ax, report))
    panels.append(lambda ax: _mix_panel(ax, report))
    if len(report.epochs) > 1:
        panels.append(lambda ax: _change_panel(ax, report, plt))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 5.5), dpi=dpi)
    try:
        for draw, ax in zip(panels, np.atleast_1d(axes), strict=True):
            draw(ax)
        fig.suptitle(_headline(report))
        fig.tight_layout()
        if path is None:
            return fig
        fig.savefig(os.fspath(path), format="png")
    except BaseException:
        plt.close(fig)
        raise
    plt.close(fig)
    return None
