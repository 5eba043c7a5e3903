"""Every cell of the seam matrix, under each driver's real launcher (tests/seams/cells.py).

`make test` runs one cell per driver (``IN_MAKE_TEST``, a launch each); the
whole matrix, one launch per driver and ``num_workers`` running its 18
cells, carries the ``matrix`` marker and runs in `make faults`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.seams.cells import CELLS, DRIVERS, IN_MAKE_TEST, PAGE, WORKERS, by_driver, render
from tests.seams.launch import run

pytest.importorskip("lightning")
pytest.importorskip("torchdata.stateful_dataloader")

ONE_PER_DRIVER = [c for c in CELLS if c.key in IN_MAKE_TEST]


def _check(verdicts: dict[str, list[str]]) -> None:
    bad = {cell: problems for cell, problems in verdicts.items() if problems}
    assert not bad, "\n\n".join(f"{cell}:\n" + "\n".join(p) for cell, p in bad.items())


def test_make_test_runs_one_cell_of_every_driver() -> None:
    assert sorted(c.driver for c in ONE_PER_DRIVER) == sorted(DRIVERS)


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("cell", ONE_PER_DRIVER, ids=lambda c: c.id)
def test_one_cell_per_driver_is_exact(cell, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip(
        {"accelerate": "accelerate", "trainer": "transformers", "ray": "ray.train"}.get(
            cell.driver, "torch"
        )
    )
    _check(run(cell.driver, cell.workers, [cell], tmp_path, timeout=540))


@pytest.mark.matrix
@pytest.mark.timeout(1800)
@pytest.mark.parametrize(
    ("driver", "workers"), [(d, w) for d in DRIVERS for w in WORKERS], ids=lambda v: str(v)
)
def test_every_cell_of_a_driver_is_exact_or_refused(
    driver: str, workers: int, tmp_path: Path
) -> None:
    cells = by_driver(CELLS)[(driver, workers)]
    _check(run(driver, workers, cells, tmp_path, timeout=1700))


def test_the_table_in_the_docs_is_the_matrix() -> None:
    text = PAGE.read_text()
    assert render(text) == text, "run: python -m tests.seams.cells --write"
