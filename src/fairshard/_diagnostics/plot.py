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
   order). With one comparison (two epochs) it is one bar per rank; with
   more, ranks get their own marker and a small horizontal offset, so equal
   values never hide each other.

Declared deviations are drawn apart from real ones: the repeats a sampler
declares as padding (grey) and the samples it declares it drops (orange,
``drop_last=True``) have their own colours and legend entries, while real
overlaps stay black and real gaps pink. The title names the cause of each
problem in words ("seeds differ across ranks", "set_epoch not called",
"ranks take unequal steps"; "no problem found" when there is none), then
epoch 0's counts: missing (saying when that is the declared drop),
overlapping (shared by two or more ranks) and repeated items. Rendering uses the non-interactive Agg
backend, so it works on servers.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .report import SimulationReport

__all__ = [
    "MAX_CELLS",
    "causes",
    "declared_drop",
    "declared_padding",
    "import_pyplot",
    "ownership",
    "plot_simulation",
]

#: Most dataset indices drawn in the grid panels (the first ones).
MAX_CELLS = 250_000
#: Ranks named one by one in the legend; more are summarized.
_LEGEND_RANKS = 16
_MARKERS = "osD^v<>pPXh*"
_NONE, _SEVERAL, _MISSING = "#ffffff", "#000000", "#ff1493"
#: Declared deviations, drawn apart from real overlaps and gaps.
_PADDED, _DROPPED = "#9e9e9e", "#ffa500"

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
    padded, dropped = declared_padding(report), declared_drop(report)
    several = _PADDED if padded else _SEVERAL
    gap = _DROPPED if dropped else _MISSING
    cmap = ListedColormap([gap, *ranks, several]).with_extremes(bad=_NONE)
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
    source = _short_source(report)
    handles += [
        Patch(color=_MISSING, label="no rank (missing)"),
        Patch(color=_SEVERAL, label="several ranks"),
    ]
    if dropped:
        handles[-2] = Patch(color=_DROPPED, label=f"declared drop ({source})")
    if padded:
        handles[-1] = Patch(color=_PADDED, label=f"declared padding ({source})")
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
    dropped = declared_drop(report)
    ax.imshow(
        np.ma.masked_invalid(_grid(missing)),
        cmap=ListedColormap(["#e8e8e8", _DROPPED if dropped else _MISSING]).with_extremes(
            bad=_NONE
        ),
        vmin=0,
        vmax=1,
        interpolation="nearest",
        aspect="auto",
    )
    ax.set_xticks([])
    ax.set_yticks([])
    if count and dropped:
        source = _short_source(report)
        ax.set_title(
            f"missing in epoch 0: {count} of {size} samples, the declared drop\n"
            f"(orange: {source} leaves them out on purpose)"
        )
    elif count:
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
    if epochs.size == 1:  # one comparison: one bar per rank, not points that look like epochs
        values = [r.order_change or 0.0 for r in report.epochs[1].ranks]
        ax.bar(np.arange(world), values, color=colors)
        ax.set_xticks(np.arange(world), [f"rank {r}" for r in range(world)])
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("positions changed vs epoch 0")
        ax.set_title(
            f"order change, epoch {report.epochs[1].epoch} vs {report.epochs[0].epoch}\n"
            "(0 = identical order: set_epoch forgotten?)"
        )
        return
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


def _short_source(report: SimulationReport) -> str:
    """What declares the deviation, briefly: ``tail='drop'``, ``drop_last=True``."""
    source = report.epochs[0].declared.source
    if source.endswith(")") and "(" in source:
        source = source[source.rindex("(") + 1 : -1]
    return source if len(source) <= 32 else source[:31] + "…"


def _allowed_repeats(report: SimulationReport) -> int | None:
    declared = report.epochs[0].declared
    if declared.padding is None or declared.replacement is None:
        return None
    return declared.padding + declared.replacement


def declared_padding(report: SimulationReport) -> bool:
    """Epoch 0 repeats items, and no more than the sampler declares as padding."""
    first, allowed = report.epochs[0], _allowed_repeats(report)
    return first.duplicates > 0 and (allowed is None or first.duplicates <= allowed)


def declared_drop(report: SimulationReport) -> bool:
    """Epoch 0 misses items, and no more than the sampler declares it drops."""
    first = report.epochs[0]
    dropped = first.declared.dropped
    return bool(first.missing) and dropped is not None and (first.missing or 0) <= dropped


def causes(report: SimulationReport) -> list[str]:
    """The problems of the report, in a few words each (what the title says)."""
    found = [
        "seeds differ across ranks" if key == "seed" else f"{key} differs across ranks"
        for key in report.per_rank
    ]
    problems = report.problems
    if any("identical order" in p for p in problems):
        found.append("set_epoch not called" if not report.set_epoch else "order repeats")
    if any("different numbers of steps" in p for p in problems):
        found.append("ranks take unequal steps")
    if any(" len()=" in p for p in problems):
        found.append("len() does not match what is yielded")
    if not report.per_rank:
        if any("declared as padding" in p for p in problems):
            found.append("repeats beyond the declared padding")
        if any("declared as dropped" in p for p in problems):
            found.append("samples missing beyond the declared drop")
    if problems and not found:
        found.append(f"{len(problems)} problem(s)")
    return found


def _headline(report: SimulationReport) -> str:
    first = report.epochs[0]
    named = causes(report)
    verdict = "; ".join(named) if named else "no problem found"
    missing = "?" if first.missing is None else str(first.missing)
    if declared_drop(report):
        missing += f" missing (the declared drop, {_short_source(report)})"
    else:
        missing += " missing"
    overlap = f"{first.overlap} overlapping (in 2+ ranks)"
    if declared_padding(report):
        overlap += f", {first.duplicates} repeated as declared padding"
    else:
        overlap += f", {first.duplicates} duplicate items"
    return (
        f"{report.sampler} on {report.world_size} ranks: {verdict}\nepoch 0: {missing}, {overlap}"
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
