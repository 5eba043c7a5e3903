"""How many processes a tree's shipped launch lines start (FS109).

Padding repeats samples only where the world size does not divide the
evaluated set. A tree whose every launch line names its process count
(``torchrun --nproc_per_node=4``, ``python -m torch.distributed.launch
--nproc_per_node 2``, ``accelerate launch --num_processes 8``) and that
evaluates a set of a known size (CIFAR-10's 10,000 test images) that each
of those counts divides runs no padded evaluation on any shipped path
(Nova's adversarial-training scripts on 1, 2, 4 and 8 processes). The shell
scripts and the READMEs are read as text; a count given by a variable
(``--nproc_per_node=$NGPUS``), or a tree with no launch line, says nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from .tree_texts import TooManyFiles, tree_texts

__all__ = ["read_launch_counts"]

_LAUNCHERS = ("*.sh", "*.bash", "README*.md", "*.slurm")
_COUNT = re.compile(
    r"--(?:nproc[_-]per[_-]node|num[_-]processes|nproc|ngpus)(?:[ \t]*=[ \t]*|[ \t]+)(?P<value>\S+)"
)


def read_launch_counts(folder: Path) -> list[int] | None:
    """Every process count the tree's launch lines name; ``None`` if any is not a number.

    An empty list: no launch line names a count. Too many launch files to read
    them all: ``None`` too.
    """
    counts: list[int] = []
    try:
        for text in tree_texts(folder, _LAUNCHERS):
            for match in _COUNT.finditer(text):
                value = match.group("value").strip("\"'`;,")
                if not value.isdigit():
                    return None  # $NGPUS, ${N}, <num_gpus>: unknown
                counts.append(int(value))
    except TooManyFiles:
        return None
    return counts
