"""Run the rules over files: decode, parse, gate, check, apply ``# noqa``, collect findings."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ._errors import LintConfigError
from .accelerate_eval import prepared_names, unfilled_gathers
from .branches import single_process_function
from .broken_imports import imports_a_missing_module
from .config_flags import unshuffled_samplers
from .files import DEFAULT_EXCLUDES, decode, iter_python_files
from .flow import branch_not_taken, never_entered
from .hand_padding import hand_padded_evaluations
from .hand_splits import hand_splits
from .names import Module, dotted, tail
from .one_process_runs import (
    MULTI_PROCESS_RULES,
    one_process_script,
    unbuilt_samplers,
    unlaunched_fabric,
)
from .option_branches import option_test_on_shipped_runs, skipped_option_branch
from .option_dispatch import dispatched_away
from .pins import read_pins
from .project import Project, module_name, takes_part
from .reach import after_exit, calls_an_unbound_name, fails_on_first_pass, unreached_in_script
from .rules import DEFAULT_CODES, RULES
from .trainer_runs import DEFINES, library_split_calls, trainer_run_files
from .unset_epochs import epoch_frameworks_in, loops_over_epochs
from .unused_classes import in_overridden_method, in_redefined_function, in_unused_class

__all__ = [
    "ALL",
    "PARSE_ERROR",
    "Finding",
    "chosen_codes",
    "lint_paths",
    "lint_source",
    "uses_torch_data",
]

#: Code of the finding reported for a file that does not parse.
PARSE_ERROR = "FS100"

_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)


@dataclass(frozen=True, order=True)
class Finding:
    """One problem at ``path:line:col`` (line and column count from 1)."""

    path: str
    line: int
    col: int
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"


def _suppressed(lines: Sequence[str]) -> dict[int, frozenset[str] | None]:
    """Line number -> codes silenced there (``None``: every code, a bare ``# noqa``)."""
    out: dict[int, frozenset[str] | None] = {}
    for number, text in enumerate(lines, start=1):
        if "#" not in text:
            continue
        match = _NOQA.search(text)
        if match:
            codes = match.group("codes")
            out[number] = (
                None
                if codes is None
                else frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c)
            )
    return out


#: ``select`` word for every rule, the opt-in ones included (as in ruff: ``--select ALL``).
ALL = "ALL"


def _check_codes(codes: Iterable[str] | None, option: str) -> frozenset[str] | None:
    if codes is None:
        return None
    chosen = frozenset(c.strip().upper() for c in codes if c.strip())
    unknown = sorted(chosen - set(RULES) - {PARSE_ERROR, ALL})
    if unknown:
        raise LintConfigError(
            f"{option} got unknown rule codes {unknown}; known: {', '.join(sorted(RULES))} "
            f"or {ALL} (see fairshard lint --list-rules)"
        )
    return frozenset(RULES) if ALL in chosen else chosen


def chosen_codes(
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    extend_select: Iterable[str] | None = None,
) -> frozenset[str]:
    """The rule codes a run checks: ``select``, plus ``extend_select``, minus ``ignore``.

    ``select`` left out means the default rules.
    ``ALL`` in ``select`` or ``extend_select`` stands for every rule, the
    opt-in ones included (see ``rulebook``).

    Raises:
        LintConfigError: an unknown code in any of the three, naming the option.
    """
    picked = _check_codes(select, "select")
    base = DEFAULT_CODES if picked is None else picked
    extra = _check_codes(extend_select, "extend_select") or frozenset()
    skipped = _check_codes(ignore, "ignore") or frozenset()
    return (base | extra) - skipped


#: Top-level packages whose import makes a file a PyTorch script.
TORCH_PACKAGES = frozenset(
    {
        "torch",
        "fairshard",
        "torchdata",
        "lightning",
        "pytorch_lightning",
        "accelerate",
        "deepspeed",
    }
)
#: Names whose use means the file loads data (or runs a process group) with PyTorch.
_DATA_NAMES = frozenset(
    {
        "DataLoader",
        "StatefulDataLoader",
        "Dataset",
        "IterableDataset",
        "Subset",
        "random_split",
        "init_process_group",
        "DistributedDataParallel",
        # Lightning's data modules and torch_geometric's, whose hooks build loaders
        "LightningDataModule",
        "LightningDataset",
        "LightningNodeData",
        "LightningLinkData",
        # webdataset's pipelines, which split their shards between ranks themselves
        "split_by_node",
    }
)


#: ``deepspeed.initialize(..., training_data=dataset)`` builds a loader over a sampler.
_DATA_KEYWORDS = frozenset({"training_data"})
#: Lightning's loader hooks: a model that returns a loader another module builds
#: (``def val_dataloader(self): return get_val_dataloader()``) names no data word itself.
_LOADER_HOOKS = frozenset({"val_dataloader", "test_dataloader"})
#: A transformers Trainer's own evaluation loaders, which an ``evaluate`` override reads
#: (a subclass's file may name no other data word).
_LOADER_GETTERS = frozenset({"get_eval_dataloader", "get_test_dataloader"})
_DATA_WORDS = (
    *_DATA_NAMES,
    "Sampler",
    *(f"{k}=" for k in _DATA_KEYWORDS),
    *(f"def {hook}(" for hook in sorted(_LOADER_HOOKS)),
    *(f".{hook}()" for hook in sorted(_LOADER_HOOKS)),  # a hook called by hand
    *sorted(_LOADER_GETTERS),
)


def uses_torch_data(module: Module) -> bool:
    """The file imports PyTorch (or fairshard) and loads data or runs a process group.

    NOTE: the gate keeps TensorFlow, JAX and plain utility scripts out of a
    repository-wide run: their ``CUDA_VISIBLE_DEVICES`` or RNG use is not a
    sampler pitfall.
    """
    if not module.imports_any(TORCH_PACKAGES):
        return False
    return (
        any(
            name in _DATA_NAMES or name.endswith("Sampler") or name in _LOADER_GETTERS
            for name in module.identifiers
            | {target.rpartition(".")[2] for target in module.aliases.values()}
        )
        or any(k.arg in _DATA_KEYWORDS for call in module.calls for k in call.keywords)
        or bool(_LOADER_HOOKS & set(module.functions))
        # ExPeRT's trainer.test(model, dataloaders=dataset.test_dataloader()): a script
        # that hands the trainer a data module's hook, called by hand
        or any(
            isinstance(call.func, ast.Attribute) and call.func.attr in _LOADER_HOOKS
            for call in module.calls
        )
    )


def may_use_torch_data(source: str) -> bool:
    """Cheap text test before parsing: names a PyTorch package and a data-loading word."""
    return any(word in source for word in TORCH_PACKAGES) and any(
        word in source for word in _DATA_WORDS
    )


def _may_pad_by_hand(source: str) -> bool:
    """Cheap text test for :func:`hand_padding.hand_padded_evaluations`: a stride, a remainder."""
    return "::" in source and "%" in source and ("world" in source or "replicas" in source)


def _splits_by_hand(module: Module | None) -> bool:
    """A module of a project that draws a split by hand on every rank (see ``hand_splits``).

    A helper that a distributed script calls (``random_split_data_list``:
    a file list shuffled by Python's ``random`` and cut in two) names no
    data word; only the split rule reads it. A split in a function no file
    of the tree calls (a dataset class's spare ``dataset_split`` method) runs
    nowhere.
    """
    if module is None:
        return False
    project = module.cache.get("project")
    drawn = [
        func.name if (func := module.function_of(draw)) is not None else ""
        for _, draw in hand_splits(module)
    ]
    # and a library split (datasets' or scikit-learn's train_test_split) in such a helper
    drawn.extend(library_split_calls(module))
    return any(
        not name or (isinstance(project, Project) and project.calls_named(name)) for name in drawn
    )


def _gathers_prepared(module: Module | None) -> bool:
    """A module of a project that combines an evaluation over a loader accelerate prepared.

    MyCDM's ``train_parallel.py`` reads its loaders from a helper that names
    them ``MyDataloader`` and gathers each batch with ``accelerator.gather``;
    Qwen3VL_SLT's ``train_loop.py`` gets its loader from another module. Only
    the padded-evaluation rule reads such a module (see ``accelerate_eval``).
    """
    return module is not None and any(True for _ in unfilled_gathers(module))


def _file_error(path: str, message: str, line: int = 1, col: int = 1) -> list[Finding]:
    return [Finding(path, line, col, PARSE_ERROR, message)]


def lint_source(
    source: str | bytes,
    path: str = "<string>",
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    extend_select: Iterable[str] | None = None,
    torch_only: bool = False,
    parsed: Module | None = None,
) -> list[Finding]:
    r"""Findings of the chosen rules on ``source``, minus ``# noqa`` lines, sorted.

    Args:
        source: Python source text, or its bytes (decoded as Python does:
            PEP 263 declaration or BOM, else UTF-8). Never executed.
        path: Shown in findings.
        select: Only these codes (default: the default rules; ``["ALL"]``:
            every rule, the opt-in ones included).
        ignore: Skip these codes.
        extend_select: Codes added to ``select`` (or to the default rules):
            ``["FS103"]`` turns one opt-in rule on.
        torch_only: Return nothing for files that do not use PyTorch data
            loading (see :func:`uses_torch_data`); ``lint_paths`` sets it.
        parsed: ``source`` already parsed as a module of a project (see
            ``project``); ``lint_paths`` passes it for the files of a folder.

    A file that cannot be decoded, parsed or walked (nested too deeply)
    gives one ``FS100`` finding saying why, never an exception.

    Example:
        >>> src = "from torch.utils.data import WeightedRandomSampler\n"
        >>> src += "s = WeightedRandomSampler(w, 10, replacement=False)\n"
        >>> [f.code for f in lint_source(src)]
        ['FS107']
    """
    chosen = chosen_codes(select, ignore, extend_select)
    if isinstance(source, bytes):
        try:
            source = decode(source)
        except (SyntaxError, UnicodeDecodeError) as exc:
            return _file_error(path, f"cannot decode the file: {exc}")
    # a module the project handed a loader to (a trainer class's ``self.train_loader``)
    # a module the project hands a loader to, or that gets one from the tree (a trainer
    # class's ``self.train_loader``, ``loader = build_loader(cfg)`` in a script that names
    # no data word itself): read even without one
    carried = parsed is not None and any(
        parsed.cache.get(fact)
        for fact in (
            "carried_attributes",
            "carried_parameters",
            "imported_producers",
            "imported_element_producers",
        )
    )
    gated = torch_only and not carried
    if gated and not may_use_torch_data(source):
        kept = {SPLIT_RULE} if _splits_by_hand(parsed) else set()
        if _gathers_prepared(parsed):
            kept.add(PADDED_EVALUATION_RULE)  # over a loader accelerate prepared
        if kept:
            chosen, gated = chosen & kept, False
        elif not _may_pad_by_hand(source):
            return []  # cheap text test first: most files of a big repository stop here
    module = parsed if parsed is not None else None
    if module is None:
        try:
            module = Module.parse(source, path)
        except SyntaxError as exc:
            newer = (
                "; Python 3.12 reads f-strings that reuse their quotes inside: if this is "
                "3.12 code, run the linter on 3.12"
                if sys.version_info < (3, 12) and exc.msg.startswith("f-string")
                else ""
            )
            return _file_error(
                path,
                f"file does not parse: {exc.msg}{newer}",
                exc.lineno or 1,
                (exc.offset or 0) + 1 if exc.offset else 1,
            )
        except (RecursionError, MemoryError):
            return _file_error(path, "file is nested too deeply to parse; nothing was checked")
    if gated and not uses_torch_data(module):
        kept = {SPLIT_RULE} if _splits_by_hand(module) else set()
        if any(True for _ in hand_padded_evaluations(module)) or _gathers_prepared(module):
            kept.add(PADDED_EVALUATION_RULE)  # an evaluation padded by hand, or by accelerate
        if not kept:
            return []
        chosen = chosen & kept
    if "project" not in module.cache:  # a file on its own: a project of one module
        alone = Project()
        alone.add(Path(path).stem, module, path)
        try:
            alone.finish()
        except RecursionError:
            return _file_error(path, "file is nested too deeply to check; nothing was checked")
    noqa = _suppressed(source.splitlines())
    found: set[Finding] = set()
    for code, rule in RULES.items():
        if code not in chosen:
            continue
        try:
            results = list(rule.check(module))
        except RecursionError:
            return _file_error(path, "file is nested too deeply to check; nothing was checked")
        for node, message in results:
            if (
                unreached_in_script(module, node)
                or in_unused_class(module, node)
                or in_overridden_method(module, node)
                or in_redefined_function(module, node)
                or never_entered(module, node)
                or branch_not_taken(module, node)
                or after_exit(module, node)
                or dispatched_away(module, node)
                or skipped_option_branch(module, node)
                or calls_an_unbound_name(module, node)
                or fails_on_first_pass(module, node)
                or (code in MULTI_PROCESS_RULES and single_process_function(module, node))
            ):
                continue  # a function of a script that its own entry never runs, a dead class
            line = getattr(node, "lineno", 1)
            silenced = noqa.get(line, frozenset())
            if silenced is None or code in silenced:
                continue
            found.add(Finding(path, line, getattr(node, "col_offset", 0) + 1, code, message))
    if found and (one_process_script(module) or unlaunched_fabric(module)):
        # no second process: nothing to repeat or miss
        found = {f for f in found if f.code not in MULTI_PROCESS_RULES}
    if found and imports_a_missing_module(module):
        return []  # stops at an import of a module its own tree lacks: nothing else runs
    return sorted(found)


#: Calls that make a function a loader or sampler builder (see ``_builders``).
_BUILDS = frozenset({"DataLoader", "StatefulDataLoader", "DistributedSampler"})


def _builders(module: Module) -> set[str]:
    """Functions of ``module`` that build a loader or a distributed sampler.

    Themselves, or through another function of the module they call (a
    ``init_data`` that dispatches to ``_init_imagenet_data``, which builds).
    """
    out: set[str] = set()
    for call in module.calls:
        name = tail(call)
        if name in _BUILDS or (module.qualified(call.func) or "").startswith("fairshard."):
            func = module.function_of(call)
            if func is not None and not func.name.startswith("__"):
                out.add(func.name)
    grown = True
    while grown:
        grown = False
        for call in module.calls:
            func = module.function_of(call)
            if (
                tail(call) in out
                and func is not None
                and func.name not in out
                and not func.name.startswith("__")
            ):
                out.add(func.name)
                grown = True
    return out


#: The rule that reads a helper module which splits by hand and names no data word.
SPLIT_RULE = "FS110"
#: The padded-evaluation rule, which a module that pads an evaluation by hand runs alone.
PADDED_EVALUATION_RULE = "FS109"
_CLASSES = re.compile(r"^\s*class (\w+)\b", re.M)
_ITERATES = re.compile(r"^\s*def __(?:next|iter)__\(", re.M)


def _combines_for_lightning(source: str, called: set[str]) -> bool:
    """A module with no data word that defines a class, built by a Lightning module, that combines.

    MSSVT's ``SegmentationMetrics``, whose ``synchronize_between_gpus``
    all-reduces a confusion matrix over the ranks (rule FS109 reads it).
    """
    return ("all_reduce" in source or "all_gather" in source) and not called.isdisjoint(
        _CLASSES.findall(source)
    )


def _lightning_part(source: str, called: set[str]) -> bool:
    """A Lightning module with no data word that defines a function or class the tree calls.

    MSSVT's ``SegmentationTrainer.fit(self, model, data_module)`` builds the
    trainer and runs ``trainer.fit(model, *data_module)`` for the script that
    builds the loaders; a ``LightningModule`` whose hooks combine the metrics
    may name no data word either (rule FS109 follows the loaders through them).
    """
    return ("lightning" in source or "Lightning" in source) and not called.isdisjoint(
        DEFINES.findall(source) + _CLASSES.findall(source)
    )


def _called_beside_samplers(modules: Iterable[Module], builders: set[str]) -> set[str]:
    """Names called by modules that build a ``DistributedSampler`` (rule FS109 reads them).

    And the names of calls handed a loader that a builder of the tree returned:
    Discrete-Markov-Bridge's ``main_ddp.py`` gets its padded evaluation loader
    from ``get_dataloaders`` and hands it to ``diffBridge.evaluate``, defined
    in a module that names no loader.
    """
    called = {
        tail(call)
        for module in modules
        if "DistributedSampler" in module.identifiers
        for call in module.calls
    }
    for module in modules:
        if builders.isdisjoint(module.identifiers):
            continue
        built = {
            name
            for node in module.nodes
            if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and tail(node.value) in builders
            for target in node.targets
            for element in ast.walk(target)
            if (name := dotted(element) if isinstance(element, ast.Name) else None)
        }
        called |= {
            tail(call)
            for call in module.calls
            if any(dotted(a) in built for a in [*call.args, *(k.value for k in call.keywords)])
        }
    return called - {""}


def _handed_prepared_loaders(modules: Iterable[Module]) -> set[str]:
    """Functions the modules call with a loader that ``accelerator.prepare`` returned.

    Qwen3VL_SLT's ``train.py`` prepares ``val_loader`` and calls ``train(...,
    val_loader, ...)`` of its ``train_loop.py``, a file that names no data word
    and whose ``evaluate`` gathers the losses (rule FS109 reads it).
    """
    found: set[str] = set()
    for module in modules:
        if "prepare" not in module.identifiers:
            continue
        prepared = prepared_names(module)
        if not prepared:
            continue
        for call in module.calls:
            given = [*call.args, *(k.value for k in call.keywords)]
            if any(dotted(arg) in prepared for arg in given):
                found.add(tail(call))
    return found


def _sampler_classes(modules: Iterable[Module]) -> set[str]:
    """Classes of ``modules`` whose base is named ``...Sampler`` (their subclasses may pad)."""
    return {
        node.name
        for module in modules
        for node in module.nodes
        if isinstance(node, ast.ClassDef)
        and any((dotted(base) or "").endswith("Sampler") for base in node.bases)
    }


_REEXPORT = re.compile(r"^[ \t]*from[ \t]+\.[\w.]*[ \t]+import[ \t]+(\([^)]*\)|[\w \t,]+)", re.M)


def _reexports(source: str) -> set[str]:
    """Names a package ``__init__.py`` re-exports from its modules (``from .engine import a``)."""
    return {
        name.split()[-1]  # "y as z" binds z
        for group in _REEXPORT.findall(source)
        for name in group.strip("()").split(",")
        if name.split()
    }


_CLASS_BASES = re.compile(r"^\s*class \w+\(([^)]*)\)", re.M)


def _subclasses_one_of(source: str, classes: set[str]) -> bool:
    """``source`` defines a class with one of ``classes`` among its bases."""
    if not classes:
        return False
    for bases in _CLASS_BASES.findall(source):
        if any(word.rpartition(".")[2] in classes for word in re.findall(r"[\w.]+", bases)):
            return True
    return False


def _project_of(folder: Path, files: list[Path]) -> tuple[Project, dict[Path, Module]]:
    """Parse the files of ``folder`` that may take part in a project, and link them.

    Two passes keep the parsing bounded: first the files that pass the text
    test (PyTorch data words, or ``set_epoch``), then only those other files
    whose text calls a function the first ones define and that builds a
    loader or sampler (``make_data_loader(`` in an evaluation module that
    never names torch), and package ``__init__.py`` files that name one (a
    re-export, also of a function called beside a sampler: ``from .engine
    import evaluate`` under ``from util import *``).
    """
    project = Project(
        whole_tree=True,
        pins=read_pins(folder),
        root=folder,
        shipped_value=option_test_on_shipped_runs,
    )
    parsed: dict[Path, Module] = {}
    later: list[tuple[Path, str]] = []

    def enter(file: Path, source: str) -> None:
        try:
            module = Module.parse(source, str(file))
        except (SyntaxError, RecursionError, MemoryError, ValueError):
            return  # linted on its own below, which reports why
        name, is_package = module_name(PurePosixPath(file.relative_to(folder).as_posix()))
        project.add(name or folder.name, module, str(file), is_package)
        parsed[file] = module

    for file in files:
        try:
            source = decode(file.read_bytes())
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        project.frameworks |= epoch_frameworks_in(source)
        project.epoch_loops = project.epoch_loops or loops_over_epochs(source)
        if may_use_torch_data(source) or takes_part(source):
            enter(file, source)
        else:
            later.append((file, source))
    builders = {name for module in parsed.values() for name in _builders(module)}
    called = _called_beside_samplers(parsed.values(), builders) | _handed_prepared_loaders(
        parsed.values()
    )
    samplers = _sampler_classes(parsed.values())
    tree_calls = {tail(call) for module in parsed.values() for call in module.calls}
    if (builders or called or samplers or tree_calls) and later:
        needles = [f"{name}(" for name in sorted(builders)]
        for file, source in later:
            if (
                any(needle in source for needle in needles)
                or (file.name == "__init__.py" and any(name in source for name in builders))
                or (file.name == "__init__.py" and not called.isdisjoint(_reexports(source)))
                or not called.isdisjoint(DEFINES.findall(source))
                or _subclasses_one_of(source, samplers)
                or (_ITERATES.search(source) and not called.isdisjoint(_CLASSES.findall(source)))
                or _lightning_part(source, tree_calls)
                or _combines_for_lightning(source, tree_calls)
            ):  # a call of a builder, a package re-exporting one, a function an
                # evaluation beside a distributed sampler calls (a merge that de-duplicates),
                # a subclass of a sampler class of the tree (its padding, rule FS109), an
                # iterator class a script with a sampler builds (over its loaders, FS101),
                # or a Lightning part or combining class the tree calls (FS109)
                enter(file, source)
    # a Trainer script launched on several processes, and the helpers it calls that split
    # or build the Trainer, though none names a data word (FS110; see trainer_runs)
    sources = dict(later)
    for file in trainer_run_files(project, folder, parsed, later):
        enter(file, sources[file])
    for module in parsed.values():  # before the flows: a sampler no shipped run builds
        module.cache["unbuilt_samplers"] = unbuilt_samplers(module)
        module.cache["unshuffled_samplers"] = unshuffled_samplers(module)
    try:
        project.finish()
    except RecursionError:
        return Project(), {}
    return project, parsed


def lint_paths(
    paths: Sequence[str | Path],
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    extend_select: Iterable[str] | None = None,
    excludes: Sequence[str] = DEFAULT_EXCLUDES,
    skipped: list[str] | None = None,
    include_vendored: bool = False,
) -> tuple[list[Finding], int]:
    """Lint every Python file under ``paths``; returns the findings and the number of files.

    Args:
        paths: Files and folders (folders are walked for ``*.py``).
        select: Only these codes (default: the default rules; ``["ALL"]``:
            every rule).
        ignore: Skip these codes.
        extend_select: Codes added to ``select`` (or to the default rules).
        excludes: Globs skipped while walking folders (see ``files``).
        skipped: When given, receives one line per file named explicitly but
            not linted (not Python), and one line naming the vendored trees
            skipped under folders.
        include_vendored: Also lint vendored trees found under folders
            (``third_party/``, ``vendor/``, copies of known packages; see
            ``files.vendored_folder``). Files named explicitly are always linted.

    Files that do not use PyTorch data loading are read but yield nothing;
    an unreadable or undecodable file is one ``FS100`` finding.

    Raises:
        LintConfigError: a path does not exist or is not a file or folder; an
            unknown rule code.
    """
    chosen = sorted(chosen_codes(select, ignore, extend_select))  # raises before any file
    findings: list[Finding] = []
    count = 0
    vendored: dict[str, int] | None = None if include_vendored else {}
    for root, group in _grouped(iter_python_files(paths, excludes, vendored=vendored)):
        parsed: dict[Path, Module] = {}
        if root is not None:
            _, parsed = _project_of(root, [file for file, is_python in group if is_python])
        for file, is_python in group:
            if not is_python:
                if skipped is not None:
                    skipped.append(f"{file}: not a Python file, skipped")
                continue
            count += 1
            try:
                data = file.read_bytes()
            except OSError as exc:
                findings.extend(_file_error(str(file), f"cannot read the file: {exc.strerror}"))
                continue
            findings.extend(
                lint_source(
                    data,
                    str(file),
                    select=chosen,
                    torch_only=True,
                    parsed=parsed.get(file),
                )
            )
    if vendored and skipped is not None:
        skipped.append(_vendored_note(vendored))
    return findings, count


def _vendored_note(trees: dict[str, int]) -> str:
    """One line: how many files of which vendored (or archived) trees were skipped."""
    names = sorted(trees)
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    files = sum(trees.values())
    return (
        f"skipped {files} file{'s' if files != 1 else ''} in vendored or archived trees "
        f"({shown}); "
        "--include-vendored lints them"
    )


def _grouped(
    found: Iterable[tuple[Path, bool, Path | None]],
) -> list[tuple[Path | None, list[tuple[Path, bool]]]]:
    """Files by the folder argument they came from (``None``: named on their own)."""
    groups: list[tuple[Path | None, list[tuple[Path, bool]]]] = []
    for file, is_python, root in found:
        if root is not None and groups and groups[-1][0] == root:
            groups[-1][1].append((file, is_python))
        else:
            groups.append((root, [(file, is_python)]))
    return groups
