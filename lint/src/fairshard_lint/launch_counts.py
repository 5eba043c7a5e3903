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

__all__ = ["read_launch_counts", "read_node_counts"]

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


#: A launch line: a launcher that starts the processes of a distributed run.
_LAUNCH = re.compile(
    r"(?:\btorchrun\b|torch\.distributed\.(?:launch|run)\b|\baccelerate\s+launch\b"
    r"|\bdeepspeed\b(?!\.)|\bsrun\b|\bmpirun\b|\bmpiexec\b|\bhorovodrun\b)"
)
#: Launchers whose hosts come from a host list the text does not show.
_HOST_LISTS = re.compile(r"\bmpirun\b|\bmpiexec\b|\bhorovodrun\b|--hostfile|--master[_-]addr")
_NODES = re.compile(
    r"--(?:nnodes|num[_-]machines|num[_-]nodes)(?:[ \t]*=[ \t]*|[ \t]+)(?P<value>\S+)"
)
_SBATCH_NODES = re.compile(r"^#SBATCH[ \t]+(?:--nodes[ \t]*=?[ \t]*|-N[ \t]*)(?P<value>\S+)", re.M)


#: Prose that names a run over several machines (a README's "need to run on 4 nodes").
_SEVERAL_NODES = re.compile(
    r"\b(?:[2-9]|[1-9]\d+)\s+(?:nodes|machines|hosts)\b|multi[- ]?node|multiple\s+nodes"
    r"|several\s+nodes|across\s+nodes",
    re.I,
)


def _node_value(text: str) -> int | None:
    """``2``, ``1:4`` (elastic, its maximum): a node count; ``$NNODES``: ``None``."""
    value = text.strip("\"'`;,").rpartition(":")[2]
    return int(value) if value.isdigit() else None


def read_node_counts(folder: Path) -> list[int] | None:
    """The node count of every launch line of the tree's scripts and READMEs (FS111).

    A rank passed as the node-local one is wrong only across several nodes.
    ``torchrun --nproc_per_node=4 train_ddp.py`` with no ``--nnodes`` runs one
    node, and so does a Slurm script without ``#SBATCH --nodes`` above 1;
    a count given by a variable, a host list (``mpirun``, ``--hostfile``,
    ``--master_addr``), a node flag documented anywhere (doctr's ``--nnodes=<M>``)
    or prose naming several nodes (ml-tarflow's "need to run on 4 nodes") says
    nothing (``None``), as does a tree with too many launch files. An empty
    list: no launch line.
    """
    counts: list[int] = []
    try:
        for text in tree_texts(folder, _LAUNCHERS):
            if _SEVERAL_NODES.search(text) or any(
                _node_value(m.group("value")) != 1 for m in _NODES.finditer(text)
            ):
                return None  # several nodes named in prose, or a node flag documented
            batch = [_node_value(m.group("value")) for m in _SBATCH_NODES.finditer(text)]
            if None in batch:
                return None
            file_nodes = max((n for n in batch if n is not None), default=1)
            for line in text.replace("\\\n", " ").splitlines():  # continued lines joined
                if line.lstrip().startswith("#SBATCH") or not _LAUNCH.search(line):
                    continue
                if _HOST_LISTS.search(line):
                    return None
                given = [_node_value(m.group("value")) for m in _NODES.finditer(line)]
                if None in given:
                    return None
                counts.append(max((n for n in given if n is not None), default=file_nodes))
    except TooManyFiles:
        return None
    return counts
