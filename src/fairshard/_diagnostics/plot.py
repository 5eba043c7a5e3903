"""PNG plots of a simulation report (matplotlib, under the ``[plot]`` extra).

One figure, three panels:

1. **Ownership**: which rank owns each dataset index in epoch 0, drawn as a
   grid read row by row (grey: no rank, black: several ranks);
2. **Class mix**: each rank's share of every class (given labels), else
   each rank's unique and repeated items;
3. **Per-epoch change**: the fraction of each rank's positions whose index
   changed since the previous epoch (0 means identical order).

Rendering uses the non-interactive Agg backend, so it works on servers.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .report import SimulationReport

__all__ = ["MAX_CELLS", "import_pyplot", "ownership", "plot_report"]

#: Most dataset indices drawn in the ownership panel (the first ones).
MAX_CELLS = 250_000

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


def _ownership_panel(ax: Any, report: SimulationReport, plt: Any) -> None:
    from matplotlib.colors import ListedColormap

    world = report.world_size
    shares = report.shares[0]
    size = report.dataset_size
    if size is None:
        size = int(max((int(s.max()) + 1 for s in shares if s.size), default=0))
    shown = min(size, MAX_CELLS)
    owner = ownership(shares, shown)
    width = max(1, math.ceil(math.sqrt(shown)))
    cells = np.full(width * math.ceil(shown / width) if shown else 1, np.nan)
    cells[:shown] = owner
    grid = cells.reshape(-1, width)  # (rows, width), read row by row
    base = plt.get_cmap("tab20" if world > 10 else "tab10")
    colors = ["#bbbbbb"] + [base(r % base.N) for r in range(world)] + ["#000000"]
    cmap = ListedColormap(colors).with_extremes(bad="white")
    ax.imshow(
        np.ma.masked_invalid(grid + 1),
        cmap=cmap,
        vmin=-0.5,
        vmax=world + 1.5,
        interpolation="nearest",
        aspect="auto",
    )
    note = "" if shown == size else f" (first {shown} of {size})"
    ax.set_title(f"owner of each index, epoch 0{note}\ngrey: none, black: several ranks")
    ax.set_xticks([])
    ax.set_yticks([])


def _mix_panel(ax: Any, report: SimulationReport, labels: NDArray[np.int64] | None) -> None:
    ranks = report.epochs[0].ranks
    positions = np.arange(len(ranks))
    if ranks and ranks[0].class_counts is not None:
        counts = np.asarray([r.class_counts for r in ranks], dtype=np.float64)  # (W, C)
        totals = np.maximum(counts.sum(axis=1, keepdims=True), 1)
        fractions = counts / totals
        left = np.zeros(len(ranks))
        for c in range(fractions.shape[1]):
            ax.barh(positions, fractions[:, c], left=left, label=str(c))
            left += fractions[:, c]
        ax.set_xlabel("share of the rank's items")
        ax.set_title("class mix per rank, epoch 0")
        if fractions.shape[1] <= 20:
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
        ax.barh(positions, unique, label="unique")
        ax.barh(positions, repeated, left=unique, label="repeated")
        ax.set_xlabel("items")
        ax.set_title("items per rank, epoch 0 (no labels given)")
        ax.legend(fontsize="small")
    ax.set_yticks(positions, [f"rank {r.rank}" for r in ranks])


def _change_panel(ax: Any, report: SimulationReport) -> None:
    if len(report.epochs) < 2:
        ax.text(
            0.5,
            0.5,
            "one epoch only:\nrun two or more to see order change",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
        ax.set_axis_off()
        return
    epochs = [e.epoch for e in report.epochs[1:]]
    for rank in range(report.world_size):
        values = [e.ranks[rank].order_change or 0.0 for e in report.epochs[1:]]
        ax.plot(epochs, values, marker="o", label=f"rank {rank}")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("epoch")
    ax.set_ylabel("positions changed vs previous epoch")
    ax.set_xticks(epochs)
    ax.set_title("order change per epoch\n(0 = identical order: set_epoch forgotten?)")
    if report.world_size <= 10:
        ax.legend(fontsize="small")


def plot_report(
    report: SimulationReport,
    path: str | os.PathLike[str],
    labels: NDArray[np.int64] | None = None,
    *,
    dpi: int = 100,
) -> None:
    """Write the three-panel PNG of ``report`` to ``path``.

    Raises:
        ImportError: matplotlib is not installed (names the install command).
    """
    plt = import_pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(17, 5), dpi=dpi)
    try:
        _ownership_panel(axes[0], report, plt)
        _mix_panel(axes[1], report, labels)
        _change_panel(axes[2], report)
        fig.suptitle(f"{report.sampler} on {report.world_size} ranks")
        fig.tight_layout()
        fig.savefig(os.fspath(path), format="png")
    finally:
        plt.close(fig)
