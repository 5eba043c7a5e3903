"""The files a launched Trainer run needs read, though they name no PyTorch data word.

NOTE (the class): a script that trains with transformers' or trl's
``Trainer`` often names no loader, sampler or process group at all, and
neither do the helpers it calls: LaDiR's ``vae/train_vae.py`` imports
``transformers``, calls ``load_data`` of its ``data_vae.py`` (which imports
only ``datasets`` and draws ``hf_dataset.train_test_split(test_size=...)``
unseeded) and ``train_model`` of its ``training_utils.py`` (which builds the
``Trainer``). Its shipped line runs it under ``torchrun --nproc_per_node 8``:
every process draws its own split, and the Trainer then shards each
process's own training set by the rank, so the shares overlap. The cheap
text test that keeps a repository-wide run fast reads none of these files.
When a shipped line launches such a script on several processes, the script
and the helpers it calls that split or build a Trainer are read too; the
split rule then decides (see ``prepared.trainer_launched``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from .names import Module, dotted, tail
from .project import Project

__all__ = [
    "DEFINES",
    "TRAINER_PACKAGES",
    "iterable_parts_only",
    "library_split_calls",
    "trainer_run_files",
]

_TRAINER_IMPORT = re.compile(r"^[ \t]*(?:from|import)[ \t]+(?:transformers|trl)\b", re.M)
_SPLITS_OR_TRAINS = re.compile(r"\b(?:train_test_split|random_split|\w*Trainer)\(")
_CALLED = re.compile(r"\b(\w+)\(")
#: A source line's ``def name(``: the functions a file defines, read from its text.
DEFINES = re.compile(r"^\s*def (\w+)\(", re.M)
#: Packages whose ``Trainer`` classes shard the datasets handed to them by the rank.
TRAINER_PACKAGES = frozenset({"transformers", "trl"})
#: Library splits that draw from a global generator when given no seed.
_LIBRARY_SPLITS = frozenset({"train_test_split", "random_split"})


def trainer_run_files(
    project: Project,
    folder: Path,
    parsed: Mapping[Path, Module],
    later: Iterable[tuple[Path, str]],
) -> list[Path]:
    """Files of ``later`` (not read yet) that a launched Trainer run needs read.

    The runners are the tree's scripts that a shipped line launches on
    several processes and that import transformers or trl; the helpers are
    the files that define a function a runner calls and that split data or
    build a Trainer. Only shipped lines name the runners, so most trees add
    nothing here.
    """
    several = project.several_process_scripts
    if not several:
        return []
    left = [(file, source) for file, source in later if file not in parsed]
    called: set[str] = set()
    found: list[Path] = []
    for file, module in parsed.items():
        if _relative(file, folder) in several and module.imports_any(TRAINER_PACKAGES):
            called.update(tail(call) for call in module.calls)
    for file, source in left:
        if _relative(file, folder) in several and _TRAINER_IMPORT.search(source):
            found.append(file)
            called.update(_CALLED.findall(source))
    if not called:
        return found
    found.extend(
        file
        for file, source in left
        if file not in found
        and _SPLITS_OR_TRAINS.search(source)
        and not called.isdisjoint(DEFINES.findall(source))
    )
    return found


def library_split_calls(module: Module) -> list[str]:
    """The functions of ``module`` that draw a library split (``""`` for top-level code)."""
    return [
        func.name if (func := module.function_of(call)) is not None else ""
        for call in module.calls
        if tail(call) in _LIBRARY_SPLITS
    ]


#: Iterable datasets of the frameworks (trl's packing dataset).
_ITERABLE_DATASETS = frozenset({"ConstantLengthDataset", "IterableDataset"})


def iterable_parts_only(mod: Module, split: ast.Call) -> bool:
    """What ``split``'s function returns is iterable datasets built from its parts.

    d2po's ``create_datasets`` (trl's SFT example) draws
    ``dataset.train_test_split(test_size=0.005, seed=None)`` and returns two
    ``ConstantLengthDataset``s over the parts: the Trainer's accelerate hands
    out an iterable dataset's batches from the main process (``dispatch_batches``
    defaults on for them), so the other processes' splits are never read.
    Every returned name must be bound in the function to such a dataset only.
    """
    func = mod.function_of(split)
    if func is None:
        return False
    iterable = _ITERABLE_DATASETS | {
        cls.name
        for cls in mod.nodes
        if isinstance(cls, ast.ClassDef)
        and any((dotted(b) or "").rpartition(".")[2] == "IterableDataset" for b in cls.bases)
    }
    bound: dict[str, list[ast.expr]] = {}
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and (name := dotted(node.targets[0])) is not None
        ):
            bound.setdefault(name, []).append(node.value)
    returned: list[ast.expr] = []
    for node in ast.walk(func):
        if isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            returned.extend(value.elts if isinstance(value, ast.Tuple) else [value])
    return bool(returned) and all(
        (name := dotted(value)) is not None
        and bool(bound.get(name))
        and all(isinstance(v, ast.Call) and tail(v) in iterable for v in bound[name])
        for value in returned
    )


def _relative(file: Path, folder: Path) -> str:
    try:
        return file.relative_to(folder).as_posix()
    except ValueError:
        return file.as_posix()
