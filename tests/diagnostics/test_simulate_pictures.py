"""The four reviewed simulator pictures of docs/simulate.md, and what each one draws.

``docs/simulate_pictures.py`` draws them (1003 samples on 4 ranks: padding,
``drop_last=True``, a forgotten ``set_epoch``, per-rank seeds) into
``docs/img/``; this test draws the same figures and checks their titles and
legends name the cause and tell declared padding and drops apart from real
overlaps and gaps.
"""

from __future__ import annotations

import runpy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import fairshard
from fairshard._diagnostics.plot import import_pyplot

pytest.importorskip("matplotlib")

DOCS = Path(__file__).resolve().parents[2] / "docs"
SCRIPT = runpy.run_path(str(DOCS / "simulate_pictures.py"))
REPORTS = SCRIPT["reports"]()


@pytest.fixture
def figure() -> Iterator[Any]:
    figures: list[Any] = []

    def draw(name: str) -> Any:
        fig = fairshard.plot_simulation(REPORTS[name])
        figures.append(fig)
        return fig

    yield draw
    for fig in figures:
        import_pyplot().close(fig)


def _title(fig: Any) -> str:
    return fig._suptitle.get_text()


def _legend(ax: Any) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_the_reviewed_pictures_are_in_the_docs(tmp_path: Path) -> None:
    for name in REPORTS:
        assert (DOCS / "img" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"img/{name}.png" in (DOCS / "simulate.md").read_text()
    written = SCRIPT["main"](tmp_path)
    assert [p.name for p in written] == [f"{name}.png" for name in REPORTS]


def test_padding_is_drawn_as_declared_not_as_overlap(figure: Any) -> None:
    fig = figure("simulate-padding")
    title = _title(fig)
    assert "on 4 ranks: no problem found" in title
    assert "0 missing" in title and "1 repeated as declared padding" in title
    legend = _legend(fig.axes[0])
    assert "declared padding (tail='pad')" in legend and "several ranks" not in legend
    bars = fig.axes[3]  # two epochs: one comparison, one bar per rank
    assert len(bars.patches) == 4
    assert [t.get_text() for t in bars.get_xticklabels()] == [f"rank {r}" for r in range(4)]
    assert bars.get_title().startswith("order change, epoch 1 vs 0")


def test_drop_last_says_the_missing_samples_are_the_declared_drop(figure: Any) -> None:
    fig = figure("simulate-drop-last")
    title = _title(fig)
    assert "no problem found" in title
    assert "3 missing (the declared drop, tail='drop')" in title
    assert "declared drop (tail='drop')" in _legend(fig.axes[0])
    assert "no rank (missing)" not in _legend(fig.axes[0])
    assert "3 of 1003 samples, the declared drop" in fig.axes[1].get_title()


def test_a_forgotten_set_epoch_is_named(figure: Any) -> None:
    fig = figure("simulate-no-set-epoch")
    assert "on 4 ranks: set_epoch not called" in _title(fig)
    change = fig.axes[3]
    assert len(change.get_lines()) == 4  # two comparisons: one line per rank
    assert all(max(line.get_ydata()) == 0 for line in change.get_lines())


def test_per_rank_seeds_are_named_and_drawn_as_real_overlap_and_gaps(figure: Any) -> None:
    report = REPORTS["simulate-seed-per-rank"]
    fig = figure("simulate-seed-per-rank")
    title = _title(fig)
    assert "on 4 ranks: seeds differ across ranks" in title
    assert f"{report.epochs[0].missing} missing," in title
    legend = _legend(fig.axes[0])
    assert "no rank (missing)" in legend and "several ranks" in legend
    assert not any(text.startswith("declared") for text in legend)
    assert "(pink: no rank yielded it)" in fig.axes[1].get_title()
    assert len(fig.axes) == 3  # one epoch: no order-change panel
