"""Draw docs/img/anneal-curves.png: class shares per epoch under the two annealing curves.

``python docs/anneal_curves.py [OUT.png]``. Every number comes from
``ClassBalancedSampler.class_proportions`` (the probabilities the sampler
draws with), so the figure shows what the sampler does, not a re-derivation.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from fairshard import ClassBalancedSampler, LinearAnneal, LinearWeightAnneal

EPOCHS = 10
THREE = np.repeat([0, 1, 2], [1000, 100, 10])  # 1000 / 100 / 10 samples
TAIL = np.repeat(np.arange(10), [144, 93, 60, 39, 25, 16, 11, 7, 4, 3])  # the demo's counts


def shares(labels: np.ndarray, schedule: object) -> np.ndarray:
    """(epochs + 3, C) class shares per epoch."""
    s = ClassBalancedSampler(labels, schedule, num_replicas=1, rank=0)
    return np.array([list(s.class_proportions(e).values()) for e in range(EPOCHS + 3)])


def main(out: Path) -> None:
    """Write the two-panel figure to ``out``."""
    epochs = np.arange(EPOCHS + 3)
    curves = {
        f"LinearAnneal(epochs={EPOCHS}) (alpha 1 -> 0)": LinearAnneal(epochs=EPOCHS),
        f"LinearWeightAnneal(epochs={EPOCHS}) (weights 1/count -> 1)": LinearWeightAnneal(EPOCHS),
    }
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.0), constrained_layout=True)
    colors = ["#1b6ca8", "#d1495b", "#edae49"]
    ax = axes[0]
    for schedule, style in zip(curves.values(), ["-", "--"], strict=True):
        values = shares(THREE, schedule)
        for c, label in enumerate(["1000 samples", "100 samples", "10 samples"]):
            ax.plot(
                epochs,
                values[:, c],
                style,
                color=colors[c],
                marker="o",
                markersize=3,
                label=f"class of {label}" if style == "-" else None,
            )
    ax.plot([], [], "k-", label="LinearAnneal (alpha)")
    ax.plot([], [], "k--", label="LinearWeightAnneal (weights)")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("share of draws (log scale)")
    ax.set_title("3 classes: 1000 / 100 / 10 samples")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    ax = axes[1]
    for (name, schedule), style in zip(curves.items(), ["-", "--"], strict=True):
        ax.plot(
            epochs,
            shares(TAIL, schedule)[:, -1],
            style,
            color="#333333",
            marker="o",
            markersize=3,
            label=name,
        )
    ax.axhline(3 / TAIL.size, color="#999999", linewidth=0.8, label="natural share")
    ax.axhline(1 / 10, color="#999999", linewidth=0.8, linestyle=":", label="balanced share")
    ax.set_xlabel("epoch")
    ax.set_ylabel("share of draws")
    ax.set_title("rarest of 10 classes (144 ... 3 samples)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    fig.suptitle(f"Balanced at epoch 0, natural from epoch {EPOCHS}: two ways to get there")
    fig.savefig(out, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main(
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else Path(__file__).parent / "img" / "anneal-curves.png"
    )
