"""Draw the four reviewed simulator pictures of docs/simulate.md into docs/img/.

``python docs/simulate_pictures.py [FOLDER]``. Each is ``fairshard.plot_simulation``
of one ``fairshard.simulate`` run: 1003 samples on 4 ranks with padding
(``drop_last=False``) and with ``drop_last=True``, a forgotten ``set_epoch``,
and seeds that differ across ranks.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import fairshard

SIZE, WORLD = 1003, 4


def reports() -> dict[str, Any]:
    """The four simulations, by picture name."""
    return {
        "simulate-padding": fairshard.simulate(
            "DistributedSampler", WORLD, dataset_size=SIZE, epochs=2, kwargs={"seed": 0}
        ),
        "simulate-drop-last": fairshard.simulate(
            "DistributedSampler",
            WORLD,
            dataset_size=SIZE,
            epochs=2,
            kwargs={"seed": 0, "drop_last": True},
        ),
        "simulate-no-set-epoch": fairshard.simulate(
            "DistributedSampler",
            WORLD,
            dataset_size=SIZE,
            epochs=3,
            kwargs={"seed": 0},
            set_epoch=False,
        ),
        "simulate-seed-per-rank": fairshard.simulate(
            lambda rank, world: fairshard.DistributedSampler(SIZE, world, rank, seed=rank),
            WORLD,
            dataset_size=SIZE,
        ),
    }


def main(folder: Path) -> list[Path]:
    """Write the four PNGs into ``folder``; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, report in reports().items():
        path = folder / f"{name}.png"
        fairshard.plot_simulation(report, path, dpi=80)
        written.append(path)
    return written


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "img")
