"""How many processes a tree's shipped launch lines start (FS109).

Padding repeats samples only where the world size does not divide the
evaluated set. A tree whose every launch line names its process count
(``torchrun --nproc_per_node=4``, ``python -m torch.distributed.launch
--nproc_per_node 2``, ``accelerate launch --num_processes 8``) and that
evaluates a set of a known size (CIFAR-10's 10,000 test images) that each
of those counts divides runs no padded evaluation on any shipped path
(Nova's adversarial-training scripts on 1, 2, 4 and 8 processes). The shell
scripts and the Markdown files (READMEs, walkthroughs) are read as text; a count given by a variable
(``--nproc_per_node=$NGPUS``), or a tree with no launch line, says nothing.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import NamedTuple

from .tree_texts import MAX_FILES, TooManyFiles, tree_files, tree_texts

__all__ = [
    "launch_flag_values",
    "launch_texts_name",
    "launch_texts_pass",
    "names_fabric_cli",
    "read_launch_counts",
    "Runs",
    "one_process_files",
    "plain_python_files",
    "Run",
    "several_process_files",
    "read_launched_scripts",
    "read_node_counts",
    "read_one_process_scripts",
    "read_run_scripts",
    "read_runs",
]

_LAUNCHERS = ("*.sh", "*.bash", "*.md", "*.slurm")
#: A process count on a launch line; ``--world_size 4`` is the count a script that
#: spawns its own ranks (``mp.spawn(..., nprocs=args.world_size)``) is given.
_COUNT = re.compile(
    r"--(?:nproc[_-]per[_-]node|num[_-]processes|nproc|ngpus|world[_-]size)"
    r"(?:[ \t]*=[ \t]*|[ \t]+)(?P<value>\S+)"
)


def logical_lines(text: str) -> list[str]:
    r"""The lines of a shell text with continued lines (``\`` at the end) joined.

    A comment ends at its line even when it ends in a backslash: HCT's
    ``# python -m torch.distributed.launch --nproc_per_node 8 run_glue_hct.py \``
    above ``CUDA_VISIBLE_DEVICES=5 python run_glue_hct.py \`` comments out the
    old launch line alone, and the pinned line is the one that runs.
    """
    out: list[str] = []
    pending = ""
    for raw in text.splitlines():
        if not pending and raw.lstrip().startswith("#"):
            out.append(raw)
            continue
        if raw.endswith("\\"):
            pending += raw[:-1] + " "
            continue
        out.append(pending + raw)
        pending = ""
    if pending:
        out.append(pending)
    return out


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
#: The MPI launchers of HPC schedulers start their processes as ``mpirun`` does: IBM
#: LSF's ``jsrun`` (3DFNO_GCS's ``jsrun -r 4 -g 1 ... python main.py`` on 20 nodes),
#: Cray's ``aprun``, TACC's ``ibrun``, LLNL's ``lrun``.
_MPI_LAUNCHERS = r"\bmpirun\b|\bmpiexec\b|\bhorovodrun\b|\bjsrun\b|\baprun\b|\bibrun\b|\blrun\b"
_LAUNCH = re.compile(
    r"(?:\btorchrun(?:_\w+)?\b|torch[./]distributed[./](?:launch|run)\b|\baccelerate\s+launch\b"
    r"|\bdeepspeed\b(?!\.)|\bsrun\b|" + _MPI_LAUNCHERS + ")"
)
#: Launchers whose hosts come from a host list the text does not show.
_HOST_LISTS = re.compile(_MPI_LAUNCHERS + r"|--hostfile|--master[_-]addr")
_NODES = re.compile(
    r"--(?:nnodes?|num[_-]machines|num[_-]nodes)(?:[ \t]*=[ \t]*|[ \t]+)(?P<value>\S+)"
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
    """The node count of every launch line of the tree's scripts and Markdown files (FS111).

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
        for path, text in tree_files(folder, _LAUNCHERS):
            if _SEVERAL_NODES.search(text) or any(
                _node_value(m.group("value")) != 1 for m in _NODES.finditer(text)
            ):
                return None  # several nodes named in prose, or a node flag documented
            batch = [_node_value(m.group("value")) for m in _SBATCH_NODES.finditer(text)]
            if None in batch:
                return None
            file_nodes = max((n for n in batch if n is not None), default=1)
            for line in logical_lines(text):
                if line.lstrip().startswith("#SBATCH") or not _LAUNCH.search(line):
                    continue
                if _HOST_LISTS.search(line) and _hostfile_hosts(line, path.parent, folder) != 1:
                    return None
                given = [_node_value(m.group("value")) for m in _NODES.finditer(line)]
                if None in given:
                    return None
                counts.append(max((n for n in given if n is not None), default=file_nodes))
    except TooManyFiles:
        return None
    return counts


_HOSTFILE = re.compile(r"--hostfile(?:[ \t]*=[ \t]*|[ \t]+)(?P<value>[^\s;]+)")
#: Host lists whose hosts are not in a file the line names.
_OTHER_HOSTS = re.compile(_MPI_LAUNCHERS + r"|--master[_-]addr")


def _hostfile_hosts(line: str, here: Path, folder: Path) -> int | None:
    """How many hosts the tree's hostfile that ``line`` names lists (``None``: unknown).

    LOT-LongLM's ``deepspeed --hostfile=./hostfile`` whose ``hostfile`` holds
    ``gpu-zeus slots=8``: one host, one node. Only deepspeed's ``--hostfile``
    is read, from beside the launch file or the tree's root.
    """
    match = _HOSTFILE.search(line)
    if match is None or _OTHER_HOSTS.search(line):
        return None
    text = _named_file_text(match.group("value"), here, folder)
    if text is None:
        return None
    hosts = {
        entry.split()[0]
        for entry in text.splitlines()
        if entry.strip() and not entry.lstrip().startswith("#")
    }
    return len(hosts)


def _named_file_text(name: str, here: Path, folder: Path) -> str | None:
    """The text of the tree's file a launch line names, beside the launch file or at the root.

    ``None`` where the tree has no such regular file (or a file too large for a config).
    """
    name = name.strip("\"'")
    for base in (here, folder):
        candidate = base / name
        if candidate.is_file() and candidate.stat().st_size < 100_000:
            return candidate.read_text(encoding="utf-8", errors="replace")
    return None


#: A line that runs Python: a launcher, ``python``/``python3.10`` itself, or ``uv run``
#: (LANoire's job files: ``uv run train_clap_ee.py``).
_RUNS = re.compile(_LAUNCH.pattern + r"|\bpython(?:\d+(?:\.\d+)?)?\b|\buv[ \t]+run\b")
#: A line that asks a script for its options (``python train.py --help``): no run.
_HELP = re.compile(r"(?<![\w-])(?:--help|-h)(?![\w-])")
#: A script a line names (``train.py``, ``./tools/train.py``, ``$ROOT/train.py``), with
#: the shell's escaped characters in it (``FSC_test\\(few-shot\\).py``).
_SCRIPT = re.compile(r"(?:^|[\s=\"'])(?P<path>(?:[\w./${}:-]|\\.)*?(?:[\w-]|\\[^\n])+\.py)\b")
#: A character the shell takes as it is after a backslash.
_ESCAPED = re.compile(r"\\(.)")
#: A module a line runs (``python -m tools.train``).
_MODULE = re.compile(r"\s-m\s+(?P<name>[A-Za-z_][\w.]*)")
_PIN = re.compile(r"\bCUDA_VISIBLE_DEVICES=(?P<value>\S*)")
_ASSIGN = re.compile(r"^\s*(?:export\s+)?(?P<name>[A-Za-z_]\w*)=(?P<value>\S*)", re.M)
_GPU_COUNT = re.compile(
    r"--(?:nproc[_-]per[_-]node|num[_-]processes|nproc|ngpus|num[_-]gpus)"
    r"(?:[ \t]*=[ \t]*|[ \t]+)(?P<value>\S+)"
)
#: One element of a shell array (``${GPUS[0]}``, ``${GPUS[$i]}``).
_ELEMENT = re.compile(r"^\$\{[A-Za-z_]\w*\[[^\]]+\]\}$")
_POSITIONAL = re.compile(r"^\$\{?(?:\d+|@|\*)\}?$")
_VARIABLE = re.compile(r"^\$\{?(?P<name>[A-Za-z_]\w*)(?::-(?P<default>[^}]*))?\}?$")
#: Variables whose name says one device (``GPU=$4  # Specify GPU index``); ``GPUS``,
#: ``gpu_list`` or ``devices`` may hold several and say nothing.
_ONE_DEVICE_NAMES = frozenset(
    {"gpu", "gpu_id", "gpuid", "gpu_idx", "gpu_index", "device_id", "cuda_id", "gpu_num"}
)


def _one_device(value: str, assigned: dict[str, str]) -> bool:
    """A ``CUDA_VISIBLE_DEVICES`` value names one device (``0``, ``$GPU`` with ``GPU=0``).

    A variable set from outside (``GPU=$4``, or never set in the file) counts
    by its name (``_ONE_DEVICE_NAMES``).
    """
    name = ""
    for _ in range(4):  # GPU=$DEVICE_ID, DEVICE_ID=0: a few hops at most
        value = value.strip("\"';")
        if value.isdigit():
            return True
        if _POSITIONAL.match(value):
            break  # set by the caller: the variable's name says what it holds
        if _ELEMENT.match(value):
            return True  # ${GPUS[0]}: one element of a list of devices
        match = _VARIABLE.match(value)
        if match is None:
            return False  # 0,1 / a list / $(seq ...)
        name = match.group("name")
        if name in assigned:
            value = assigned[name]
        elif match.group("default") is not None:
            value = match.group("default")
        else:
            break
    return name.lower() in _ONE_DEVICE_NAMES


#: The node of a several-node launch (``--node_rank=$NODE_RANK``).
_NODE_RANK = re.compile(r"--node[_-]rank(?:[ \t]*=[ \t]*|[ \t]+)(?P<value>\S+)")


def _several_nodes(line: str) -> bool:
    """The launch line names a node count above 1, or one it does not show.

    A count of processes per node (``--nproc_per_node=1``) and a pinned GPU
    hold for each node: Aura's ``torchrun --nnodes=5 --nproc_per_node=1
    --node_rank=$NODE_RANK`` starts five processes, one on each machine. A
    node rank other than 0 (or given by a variable) names a node beside the
    first.
    """
    if any(_node_value(m.group("value")) != 1 for m in _NODES.finditer(line)):
        return True
    return any(m.group("value").strip("\"';,") != "0" for m in _NODE_RANK.finditer(line))


def _one_process(line: str, pinned: str | None, assigned: dict[str, str]) -> bool:
    """The launch line starts one process: one visible GPU, or a count of 1, on one node."""
    if _several_nodes(line):
        return False
    counts = [m.group("value").strip("\"';,") for m in _GPU_COUNT.finditer(line)]
    if any(not c.isdigit() or int(c) > 1 for c in counts):
        return False
    run = _RUNS.search(line)
    here = _PIN.search(line, 0, run.start() if run else len(line))
    value = here.group("value") if here else pinned
    if value is not None:
        return _one_device(value, assigned)
    return bool(counts)  # --nproc_per_node=1 with no pin


#: A batch scheduler's request for GPUs: LSF's ``#BSUB -gpu "num=1:..."``, Slurm's
#: ``#SBATCH --gres=gpu:1`` (``gpu:a100:1``), ``--gpus=1``, ``--gpus-per-node=1``,
#: ``-G 1``, PBS's ``#PBS -l select=1:ncpus=4:ngpus=1``.
_GPU_REQUESTS = re.compile(
    r"^#(?:BSUB[ \t]+-gpu[ \t]+[\"']?num=(?P<lsf>\d+)"
    r"|SBATCH[ \t]+(?:--gres[ \t]*=?[ \t]*gpu(?::[\w.-]+)?:(?P<gres>\d+)"
    r"|--gpus(?:-per-node|-per-task)?[ \t]*=?[ \t]*(?:[\w.-]+:)?(?P<gpus>\d+)"
    r"|-G[ \t]*(?P<short>\d+))"
    r"|PBS[ \t]+-l[ \t]+\S*?\bn?gpus=(?P<pbs>\d+))",
    re.M,
)


def _one_gpu_job(text: str) -> bool:
    """A batch job file whose scheduler gives it one GPU, on one node.

    LANoire's ``js_clap.sh`` asks LSF for ``#BSUB -gpu "num=1:mode=exclusive_process"``
    and runs ``uv run train_clap_ee.py``: a Lightning ``Trainer`` that names no
    devices takes the visible ones, one. Every GPU request of the file must be
    1 and no ``#SBATCH --nodes`` above 1; a launcher on a line of it (``srun``,
    ``torchrun``) may still start several processes and is read as it is.
    """
    counts = [
        int(next(g for g in m.groups() if g is not None)) for m in _GPU_REQUESTS.finditer(text)
    ]
    if not counts or any(c != 1 for c in counts):
        return False
    return all(_node_value(m.group("value")) == 1 for m in _SBATCH_NODES.finditer(text))


_SBATCH_TASKS = re.compile(
    r"^#SBATCH[ \t]+(?:--ntasks(?:-per-node)?[ \t]*=?[ \t]*|-n[ \t]*)(?P<value>\S+)", re.M
)
_SRUN = re.compile(r"\bsrun\b")
_SBATCH_NODES = re.compile(r"^#SBATCH[ \t]+(?:--nodes[ \t]*=?[ \t]*|-N[ \t]*)(?P<value>\S+)", re.M)
_SRUN_NODES = re.compile(r"(?:--nodes|-N)(?:[ \t]*=[ \t]*|[ \t]+)(?P<value>\S+)")
_SRUN_TASKS = re.compile(r"(?:--ntasks(?:-per-node)?|-n)(?:[ \t]*=[ \t]*|[ \t]+)(?P<value>\S+)")


def _one_slurm_task(line: str, text: str) -> bool:
    """``srun python train.py`` in a batch script of one task: one process.

    AVSE4-modulation's ``#SBATCH --nodes=1`` and ``--ntasks=1`` with
    ``srun python train.py trainer.gpus=3``: ``srun`` starts the job's one
    task, and Lightning, which reads its world from ``SLURM_NTASKS``, runs one
    process. Every task count the script or the line names must be 1, and
    there must be one; a count per node holds for one node only
    (RiverMamba's ``--nodes=4`` and ``--ntasks-per-node=1`` start four), and
    a launcher that ``srun`` starts (``srun torchrun --nproc_per_node=...``)
    starts the processes itself.
    """
    srun = _SRUN.search(line)
    if srun is None:
        return False
    head = line[srun.end() :]
    script = _RUNS.search(head)
    if script is not None and _LAUNCH.match(head, script.start()):
        return False  # srun starts a launcher (torchrun): it starts the processes, per task
    options = head[: script.start() if script else 0]
    own = list(_SRUN_TASKS.finditer(options))
    found = own or list(_SBATCH_TASKS.finditer(text))
    if any("--ntasks-per-node" in m.group(0) for m in found):
        # one task on each node: as many as the job's nodes (RiverMamba's --nodes=4)
        nodes = [m.group("value") for m in _SRUN_NODES.finditer(options)] or [
            m.group("value") for m in _SBATCH_NODES.finditer(text)
        ]
        if any(n.strip("\"'") != "1" for n in nodes):
            return False
    counts = [m.group("value") for m in found]
    if not counts:
        return _slurm_default_of_one(options, text)
    return all(c.strip("\"'") == "1" for c in counts)


#: Options that make Slurm derive the task count from other resources.
_DERIVED_TASKS = re.compile(
    r"--(?:cpus-per-task|ntasks-per-(?:gpu|core|socket)|gpus-per-task)\b|(?:^|\s)-c\b"
)


def _slurm_default_of_one(options: str, text: str) -> bool:
    """``srun`` with no task count anywhere in a batch job of one node: one task.

    mHubert-basque-ASR's jobs ask ``#SBATCH --gres=gpu:1`` and run ``srun
    python -u ./finetune_hubert.py``: with no ``--ntasks`` on the line or in
    the job's ``#SBATCH`` lines, Slurm starts one task per node, and the job
    has one node. Only in a job file, which holds the allocation's options: a
    bare ``srun`` line in a README runs in whatever allocation the user made.
    Options from which Slurm derives the count (``--cpus-per-task``,
    ``--ntasks-per-gpu``, ``--gpus-per-task``...) leave it unread.
    """
    if (
        "#SBATCH" not in text
        or _DERIVED_TASKS.search(options)
        or any(
            _DERIVED_TASKS.search(line) for line in text.splitlines() if line.startswith("#SBATCH")
        )
    ):
        return False
    nodes = [m.group("value") for m in _SRUN_NODES.finditer(options)] or [
        m.group("value") for m in _SBATCH_NODES.finditer(text)
    ]
    return all(n.strip("\"'") == "1" for n in nodes)


_ACCELERATE = re.compile(r"\baccelerate\s+launch\b")
_CONFIG_FILE = re.compile(r"--config[_-]file(?:[ \t]*=[ \t]*|[ \t]+)(?P<value>[^\s;]+)")
_CONFIG_PROCESSES = re.compile(r"^num_processes\s*:\s*(?P<value>\S+)", re.M)


def _accelerate_config_of_one(line: str, here: Path, folder: Path) -> bool:
    """``accelerate launch --config_file cfg.yaml`` where the tree's ``cfg.yaml`` says one process.

    Optimal_Transport_Aggregation's ``run.sh`` launches ``train.py`` with an
    ``accelerate_config.yaml`` of ``num_processes: 1`` (one GPU id): one
    process. A count on the line itself is read by :func:`_one_process`.
    """
    if not _ACCELERATE.search(line) or _GPU_COUNT.search(line):
        return False
    match = _CONFIG_FILE.search(line)
    if match is None:
        return False
    text = _named_file_text(match.group("value"), here, folder)
    if text is None:
        return False
    counts = [m.group("value").strip("\"'") for m in _CONFIG_PROCESSES.finditer(text)]
    return counts == ["1"]


#: A shell variable read on a line: ``$SCRIPT``, ``${SCRIPT}``.
_READ = re.compile(r"\$\{(?P<braced>[A-Za-z_]\w*)\}|\$(?P<plain>[A-Za-z_]\w*)")


def _expanded(line: str, assigned: dict[str, str]) -> str:
    """``line`` with the file's own variables that name a Python file written out.

    medical-BERT-project's ``SCRIPT=fine_tuning.py`` then ``python "${SCRIPT}"``:
    the line runs ``fine_tuning.py``. Other variables stay as written.
    """

    def value(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("plain")
        text = assigned.get(name, "").strip("\"'")
        return text if text.endswith(".py") and "$" not in text else match.group(0)

    return _READ.sub(value, line)


def _named(line: str) -> list[str]:
    """The Python files a line runs or hands on, as written (``-m a.b``: ``a/b.py``)."""
    names = [_ESCAPED.sub(r"\1", m.group("path")) for m in _SCRIPT.finditer(line)]
    names += [m.group("name").replace(".", "/") + ".py" for m in _MODULE.finditer(line)]
    out = []
    for name in names:
        if "$" in name:  # $ROOT/tools/train.py: the part after the variable
            name = name.rpartition("}")[2] if "}" in name else name.partition("/")[2]
        out.append(name.removeprefix("./"))
    return [n for n in out if n.endswith(".py") and "$" not in n]


def _files_of(name: str, here: Path, folder: Path, python: list[str]) -> list[str]:
    """The tree's files a script name can be: beside the launch file, at the root, else by tail.

    An absolute path of the machine the lines were written on (EAR's
    ``python3 /apdcephfs/.../EAR/run_classify.py``) is read by its longest
    tail that names files of the tree (``run_classify.py``).
    """
    absolute = name.startswith("/")
    name = name.lstrip("/")
    for base in (here, folder):
        direct = base / name
        if direct.is_file():
            try:
                return [direct.resolve().relative_to(folder.resolve()).as_posix()]
            except ValueError:
                return []
    parts = name.split("/")
    for start in range(len(parts) if absolute else 1):
        tail_name = "/".join(parts[start:])
        found = [p for p in python if p == tail_name or p.endswith("/" + tail_name)]
        if found:
            return found
    return []


def read_one_process_scripts(folder: Path) -> frozenset[str]:
    """The tree's Python files that every shipped line running them runs as one process.

    ``CUDA_VISIBLE_DEVICES=$GPU accelerate launch finetune_accelerate.py`` with
    ``GPU=0`` set above it (SDoRA's experiment scripts, whose comment says
    "single-GPU setup"), ``CUDA_VISIBLE_DEVICES=0 python train.py``,
    ``torchrun --nproc_per_node=1 train.py``: one process, so nothing a second
    one could repeat, overlap or miss. A variable's value is read from its
    assignment in the same file; one never assigned there counts by its name
    (``GPU``, ``gpu_id``: one device; ``GPUS``, ``devices``: unknown). A file
    that any line runs otherwise (no pin, several GPUs, a count above 1 or a
    variable's), or that no line names, is not in the set; paths are relative
    to ``folder`` (posix). Too many launch files: the empty set.
    """
    return one_process_files(read_runs(folder))


def one_process_files(runs: Runs | None) -> frozenset[str]:
    """The files of ``runs`` (see :func:`read_runs`) that every line runs as one process."""
    return frozenset(file for file, lines in (runs or {}).items() if all(r.one for r in lines))


def plain_python_files(runs: Runs | None) -> frozenset[str]:
    """The files of ``runs`` that every line runs as one process or by plain ``python``.

    ``python train.py --epochs 10`` starts one process; only the script itself
    can start more (``mp.spawn``, Lightning's own launcher), which the caller
    reads. A line that names another Python file too (``python launch.py
    --nproc 4 train.py``, a launcher of the tree's own) is not plain.
    """
    return frozenset(
        file
        for file, lines in (runs or {}).items()
        if all(r.one or (r.alone and not r.launcher) for r in lines)
    )


def several_process_files(runs: Runs | None) -> frozenset[str]:
    """The files of ``runs`` that some line starts with a launcher on more than one process.

    ``accelerate launch train.py`` in a README (no count: accelerate's config
    says how many, and a launcher is there to start several), ``torchrun
    --nproc_per_node=4 train.py``; not ``accelerate launch --num_processes=1``.
    """
    return frozenset(
        file for file, lines in (runs or {}).items() if any(r.launcher and not r.one for r in lines)
    )


def read_launched_scripts(folder: Path) -> frozenset[str]:
    """The tree's Python files that a shipped line runs with a distributed launcher.

    ``torchrun --nproc_per_node=2 test_ddp.py`` in a README: the file is the
    tree's evaluation script, whatever its name says (``files`` skips
    ``test_*.py`` as test code unless a launch line runs it).
    """
    runs = read_runs(folder)
    return frozenset(file for file, lines in (runs or {}).items() if any(r.launcher for r in lines))


def read_run_scripts(folder: Path) -> frozenset[str]:
    """The tree's Python files that some shipped line runs (``python train.py ...``)."""
    return frozenset(read_runs(folder) or ())


class Run(NamedTuple):
    """How one shipped line runs a file."""

    one: bool  # one process: one visible GPU, or a count of 1
    launcher: bool  # a distributed launcher (torchrun, accelerate launch, srun, ...)
    alone: bool  # the line names no other Python file


#: Python file -> how each shipped line running it runs it.
Runs = dict[str, list[Run]]


def read_runs(folder: Path) -> Runs | None:
    """Each Python file a shipped line runs -> how each such line runs it (:class:`Run`).

    ``None``: too many launch files to read them all.
    """
    root = folder.resolve()
    python = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if not any(part.startswith(".") for part in p.relative_to(root).parts)
    )
    runs: Runs = {}
    try:
        for path, text in [*tree_files(root, _LAUNCHERS), *_python_command_lines(root, python)]:
            assigned: dict[str, str] = {}
            pinned: str | None = None
            one_gpu = _one_gpu_job(text)
            for line in logical_lines(text):
                stripped = line.strip()
                if stripped.startswith("#"):
                    continue
                assign = _ASSIGN.match(line)
                if assign and not _RUNS.search(line):
                    if assign.group("name") == "CUDA_VISIBLE_DEVICES":
                        pinned = assign.group("value")
                    else:
                        assigned[assign.group("name")] = assign.group("value")
                    continue
                if not _RUNS.search(line) or _HELP.search(line):
                    continue  # no run, or one that prints the options and stops
                names = _named(_expanded(line, assigned))
                verdict = Run(
                    _one_process(line, pinned, assigned)
                    or _one_slurm_task(line, text)
                    or _accelerate_config_of_one(line, path.parent, root)
                    or (one_gpu and not _LAUNCH.search(line)),
                    bool(_LAUNCH.search(line)),
                    len(names) == 1,
                )
                for name in names:
                    for file in _files_of(name, path.parent, root, python):
                        runs.setdefault(file, []).append(verdict)
    except TooManyFiles:
        return None
    return runs


#: A command line written as a string in Python code (``os.system(cmd)``,
#: ``subprocess.run(cmd, shell=True)``): ``"python ./run_finetune.py --do_predict ..."``.
_COMMAND_STRING = re.compile(
    r"""(?P<q>["'])(?P<line>(?:python(?:\d+(?:\.\d+)?)?|torchrun|accelerate[ \t]+launch"""
    r"""|deepspeed)[ \t][^"'\n]*)(?P=q)"""
)


def _python_command_lines(root: Path, python: list[str]) -> list[tuple[Path, str]]:
    """Command lines that the tree's Python files write as strings, one text per file.

    DeepPL's ``predict_lyso_vs_lytic.py`` runs ``os.system("python ./run_finetune.py
    ... --do_predict ...")``: a shipped line as much as a shell script's. Read only
    in a tree of at most ``MAX_FILES`` Python files (a bigger one: none, so no file
    looks run by one process for want of the lines left unread).
    """
    if len(python) > MAX_FILES:
        return []
    out: list[tuple[Path, str]] = []
    for name in python:
        path = root / name
        try:
            if not path.is_file() or path.stat().st_size > _MAX_PYTHON_BYTES:
                continue  # a named pipe called *.py is never opened
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        lines = [m.group("line") for m in _COMMAND_STRING.finditer(text)]
        lines += _usage_lines(text)
        if lines:
            out.append((path, "\n".join(lines)))
    return out


_MAX_PYTHON_BYTES = 200_000
#: A command line in a docstring: optional environment settings, then a launcher.
_USAGE_LINE = re.compile(
    r"^[ \t$>]*(?P<line>(?:[A-Z_][A-Z0-9_]*=\S*[ \t]+)*"
    r"(?:python(?:\d+(?:\.\d+)?)?|torchrun|accelerate[ \t]+launch|deepspeed)[ \t].*)$",
    re.M,
)


def _usage_lines(text: str) -> list[str]:
    """Command lines a file's docstrings (or other bare strings) give as its usage.

    CMC_Mol's ``inference_lightning.py`` says how it is run in the string under
    its ``__main__`` guard: ``CUDA_VISIBLE_DEVICES=0 python inference_lightning.py
    --finetune_dir ...``, as documented as a README line. Only strings that
    stand as statements are read (not comments, which often keep an old line);
    a file that does not parse gives none.
    """
    if not _USAGE_LINE.search(text):
        return []  # no line of the file looks like a command: no parse (most files stop here)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out: list[str] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            out += [m.group("line").rstrip() for m in _USAGE_LINE.finditer(node.value.value)]
    return out


def launch_flag_values(folder: Path, flags: list[str], script: str) -> list[str | None] | None:
    """The value each launch line that runs ``script`` gives one of ``flags`` (``--seed -1``).

    ``None`` in the list for a line that runs the script (a ``python``,
    ``torchrun``, ``accelerate launch`` line naming it, not asking for
    ``--help``) without naming any of the flags: that run takes the
    option's default. A shell variable is read from its one assignment in
    the same file (UNI-LJ-VRA's ``seed=-1`` then ``--seed $seed``). ``None``
    where a value cannot be read (a variable assigned more than once or
    never, a loop's), or the tree's launch files are too many to read.
    """
    names = "|".join(re.escape(f) for f in flags)
    pattern = re.compile(rf"(?<![\w-])(?:{names})(?:=|[ \t]+)(?P<value>[^\s;|&]+)")
    runs_script = re.compile(rf"(?<![\w.-]){re.escape(script)}(?![\w.-])")
    found: list[str | None] = []
    try:
        for _, text in tree_files(folder, _LAUNCHERS):
            counts: dict[str, int] = {}
            assigned: dict[str, str] = {}
            for match in _ASSIGN.finditer(text):
                counts[match.group("name")] = counts.get(match.group("name"), 0) + 1
                assigned[match.group("name")] = match.group("value").strip("\"'")
            for line in logical_lines(text):
                if line.strip().startswith("#") or not runs_script.search(line):
                    continue
                named = False
                for match in pattern.finditer(line):
                    named = True
                    value = match.group("value").strip("\"'")
                    variable = re.fullmatch(r"\$\{?(\w+)\}?", value)
                    if variable is not None:
                        name = variable.group(1)
                        if counts.get(name) != 1 or re.search(rf"\bfor[ \t]+{name}\b", text):
                            return None
                        value = assigned[name]
                    if "$" in value:
                        return None
                    found.append(value)
                if not named and _RUNS.search(line) and not _HELP.search(line):
                    found.append(None)  # a run that leaves the option at its default
    except TooManyFiles:
        return None
    return found


def launch_texts_name(folder: Path, flags: list[str]) -> bool:
    """Some launch file or README of the tree names one of ``flags`` (``--devices``).

    Too many launch files to read them all: ``True`` (it may be there).
    """
    pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(f)}(?![\w-])" for f in flags))
    try:
        return any(pattern.search(text) for text in tree_texts(folder, _LAUNCHERS))
    except TooManyFiles:
        return True


def launch_texts_pass(folder: Path, flags: list[str], values: list[str]) -> bool:
    """Some launch file or README passes one of ``values`` to one of ``flags`` (``-p ddp``).

    Too many launch files to read them all: ``False`` (nothing shown).
    """
    if not flags or not values:
        return False
    pattern = re.compile(
        rf"(?<![\w-])(?:{'|'.join(re.escape(f) for f in flags)})(?:[ \t]*=[ \t]*|[ \t]+)"
        rf"[\"']?(?:{'|'.join(re.escape(v) for v in values)})[\"']?(?![\w-])"
    )
    try:
        return any(pattern.search(text) for text in tree_texts(folder, _LAUNCHERS))
    except TooManyFiles:
        return False


#: Lightning Fabric's command-line launcher (``fabric run``; ``lightning run model`` earlier).
_FABRIC_CLI = re.compile(r"\b(?:fabric|lightning)[ \t]+run\b")


def names_fabric_cli(folder: Path) -> bool | None:
    """Some launch file, README or Python string of the tree runs a script by Fabric's CLI.

    ``None`` where the tree's launch files are too many to read. Comments of
    Python files are not read (tabular_mri keeps the upstream example's
    ``# lightning run model image_classifier.py`` above its own entry).
    """
    try:
        if any(_FABRIC_CLI.search(text) for _, text in tree_files(folder, _LAUNCHERS)):
            return True
        for _, text in tree_files(folder, ("*.py",)):
            if not _FABRIC_CLI.search(text):
                continue  # the words appear nowhere in the file: no parse
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError):
                continue
            if any(
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and _FABRIC_CLI.search(node.value)
                for node in ast.walk(tree)
            ):
                return True
    except TooManyFiles:
        return None
    return False
