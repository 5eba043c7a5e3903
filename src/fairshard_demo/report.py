"""Turn the ranks' results into ``summary.json``, a text table and PNG plots.

The summary is plain JSON: per method the final per-class recall, balanced
accuracy and the coverage verdict of every epoch; per resumed method the
verdict of the checkpointed-and-resumed epoch and whether it covered the same
samples as the uninterrupted epoch. ``ok`` is true when every check passed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .data import NUM_CLASSES
from .methods import DESCRIPTIONS

__all__ = ["build_summary", "plot", "table"]


def _strip(verdict: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in verdict.items() if k != "index_counts"}


def build_summary(
    train: dict[str, Any], resume: dict[str, Any] | None, config: dict[str, Any]
) -> dict[str, Any]:
    """The summary written to ``summary.json`` (see the module docstring)."""
    methods: dict[str, Any] = {}
    for name, result in train["methods"].items():
        epochs = result["epochs"]
        methods[name] = {
            "description": DESCRIPTIONS[name],
            "balanced_accuracy": result["final"]["balanced_accuracy"],
            "accuracy": result["final"]["accuracy"],
            "per_class_recall": result["final"]["per_class_recall"],
            "samples_per_epoch": result["samples_per_epoch"],
            "coverage_ok_every_epoch": all(e["coverage"]["ok"] for e in epochs),
            "exactly_once_every_epoch": all(e["coverage"]["exactly_once"] for e in epochs),
            "class_mix": result["class_mix"],
            "epochs": [{**e, "coverage": _strip(e["coverage"])} for e in epochs],
        }
    resumed: dict[str, Any] = {}
    for name, result in (resume or {}).get("methods", {}).items():
        full = train["methods"][name]["epochs"][result["epoch"]]["coverage"]
        mine = result["coverage"]
        same = [c > 0 for c in mine["index_counts"]] == [c > 0 for c in full["index_counts"]]
        resumed[name] = {
            "epoch": result["epoch"],
            "saved_world_size": result["saved_world_size"],
            "world_size": result["world_size"],
            "steps_before": result["steps_before"],
            "steps_after": result["steps_after"],
            "coverage": _strip(mine),
            "same_samples_as_uninterrupted": same,
            "balanced_accuracy": result["final"]["balanced_accuracy"],
            "ok": bool(mine["ok"] and full["ok"] and same),
        }
    ok = all(m["coverage_ok_every_epoch"] for m in methods.values()) and all(
        r["ok"] for r in resumed.values()
    )
    return {
        "ok": ok,
        "config": {**config, "backend": train["backend"]},
        "methods": methods,
        "resume": resumed,
    }


def table(summary: dict[str, Any]) -> str:
    """A plain-text report of the summary."""
    cfg = summary["config"]
    lines = [
        f"fairshard demo: {cfg['ranks']} ranks ({cfg['backend']}), {cfg['epochs']} epochs, "
        f"seed {cfg['seed']}; training classes {cfg['train_class_counts']} (long tail), "
        f"test {cfg['test_per_class']} per class (balanced)",
        "",
        f"{'method':<10}{'bal.acc':>8}{'acc':>7}  "
        + "".join(f"{c:>5}" for c in range(NUM_CLASSES))
        + "   coverage every epoch",
    ]
    for name, m in summary["methods"].items():
        recall = "".join(f"{r:5.2f}" for r in m["per_class_recall"])
        if m["exactly_once_every_epoch"]:
            cover = "each sample exactly once (+ declared padding)"
        elif m["coverage_ok_every_epoch"]:
            cover = f"disjoint shares of the {m['samples_per_epoch']}-draw plan"
        else:
            cover = "FAILED"
        lines.append(
            f"{name:<10}{m['balanced_accuracy']:8.3f}{m['accuracy']:7.3f}  {recall}   {cover}"
        )
    lines.append(f"{'':<27}(per-class recall, classes 0..9, head to tail)")
    for name, r in summary["resume"].items():
        verdict = "same samples as the uninterrupted epoch" if r["ok"] else "FAILED"
        lines.append(
            f"resume {name}: epoch {r['epoch']} checkpointed after {r['steps_before']} "
            f"samples/rank on {r['saved_world_size']} ranks, finished on {r['world_size']} "
            f"ranks: {verdict}"
        )
    lines.append("")
    lines.append("all checks passed" if summary["ok"] else "SOME CHECKS FAILED")
    return "\n".join(lines)


def plot(summary: dict[str, Any], folder: Path) -> list[Path]:
    """Write ``recall.png``, ``class_mix.png`` and ``accuracy.png``; return their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = summary["methods"]
    written: list[Path] = []

    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / max(len(methods), 1)
    for i, (name, m) in enumerate(methods.items()):
        xs = [c + (i - (len(methods) - 1) / 2) * width for c in range(NUM_CLASSES)]
        ax.bar(
            xs,
            m["per_class_recall"],
            width,
            label=f"{name} (balanced acc {m['balanced_accuracy']:.2f})",
        )
    ax.set_xticks(range(NUM_CLASSES))
    ax.set_xlabel("class (training images decrease left to right)")
    ax.set_ylabel("recall on the balanced test split")
    ax.set_ylim(0, 1.05)
    ax.legend(bbox_to_anchor=(1.02, 1), loc="upper left", fontsize=8)  # beside, not over, bars
    ax.set_title("Per-class recall per sampling method")
    written.append(_save(fig, folder / "recall.png"))

    fig, axes = plt.subplots(1, len(methods), figsize=(4 * len(methods), 3.5), squeeze=False)
    cmap = plt.get_cmap("tab10")
    for ax, (name, m) in zip(axes[0], methods.items(), strict=True):
        mix = m["class_mix"]["last"]
        bottoms = [0] * len(mix)
        for c in range(NUM_CLASSES):
            heights = [counts[c] for counts in mix]
            ax.bar(range(len(mix)), heights, bottom=bottoms, color=cmap(c), label=str(c))
            bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
        ax.set_xticks(range(len(mix)))
        ax.set_xlabel("rank")
        ax.set_title(f"{name}: last epoch")
    axes[0][0].set_ylabel("samples seen, by class")
    axes[0][-1].legend(title="class", fontsize=7, bbox_to_anchor=(1.02, 1), loc="upper left")
    fig.suptitle("Per-rank class mix")
    written.append(_save(fig, folder / "class_mix.png"))

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for name, m in methods.items():
        ax.plot(
            [e["epoch"] for e in m["epochs"]],
            [e["balanced_accuracy"] for e in m["epochs"]],
            marker=".",
            label=name,
        )
    ax.set_xlabel("epoch")
    ax.set_ylabel("balanced accuracy")
    ax.legend()
    written.append(_save(fig, folder / "accuracy.png"))
    return written


def _save(fig: Any, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
