"""Which files ``fairshard lint`` reads, and how: discovery, exclusion, decoding.

Folders are walked for ``*.py``; files named on the command line are linted
when they are Python (``.py``/``.pyw``, or no suffix and a ``python``
shebang) and skipped otherwise (``fairshard lint README.md`` is not a parse
error). Files found by walking a folder are matched against exclusion globs
(:data:`DEFAULT_EXCLUDES`: virtual environments, build output, and test
files, whose fixtures and mocks are not training scripts, unless a shipped
launch line runs the file with a distributed launcher, as ke-t5-downstreams'
README runs ``torchrun ... test_ddp.py``); files named explicitly are
always linted.

Vendored trees found while walking a folder are skipped unless asked for
(``--include-vendored``): they are other projects' code, copied in, and a
finding there is neither the user's to fix nor, usually, a pitfall of how
the copy is used. See :func:`vendored_folder` for how they are recognized.

NOTE (decoding): sources are decoded as Python itself does — a PEP 263
declaration (``# -*- coding: latin-1 -*-``) or a BOM, else UTF-8 — so a
valid Latin-1 script is linted, and an undecodable one becomes one finding
for that file instead of aborting the whole run.
"""

from __future__ import annotations

import ast
import configparser
import fnmatch
import functools
import io
import re
import stat
import tokenize
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from ._errors import LintConfigError
from .launch_counts import read_launched_scripts, read_run_scripts
from .tree_texts import TooManyFiles, tree_files

__all__ = [
    "ARCHIVE_FOLDERS",
    "DEFAULT_EXCLUDES",
    "KNOWN_PACKAGES",
    "VENDOR_FOLDERS",
    "archived_file",
    "archived_folder",
    "decode",
    "excluded",
    "iter_python_files",
    "kind_of",
    "vendored_folder",
]

#: Globs skipped while walking folders (matched against every path part and
#: the path relative to the folder given).
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".*",
    "__pycache__",
    "node_modules",
    "build",
    "dist",
    "site-packages",
    "venv",
    "*.egg-info",
    "tests",
    "test",
    "test_*.py",
    "*_test.py",
    "conftest.py",
)

_PYTHON_SUFFIXES = frozenset({".py", ".pyw"})

#: Folder names that hold copies of other projects.
VENDOR_FOLDERS = frozenset(
    {
        "third_party",
        "third-party",
        "thirdparty",
        "3rdparty",
        "3rd_party",
        "vendor",
        "vendors",
        "vendored",
        "_vendor",
        "_vendored",
    }
)
#: Folder names that keep code off the run path (archives, old copies, backups).
ARCHIVE_FOLDERS = frozenset(
    {
        "archive",
        "archived",
        "archives",
        "archived_code",
        "old",
        "old_code",
        "old_scripts",
        "deprecated",
        "obsolete",
        "legacy",
        "unused",
        "attic",
        "trash",
        "backup",
        "backups",
    }
)
#: Import names of packages that training repositories often copy in whole.
KNOWN_PACKAGES = frozenset(
    {
        "accelerate",
        "apex",
        "clip",
        "deepspeed",
        "detectron2",
        "diffusers",
        "dinov2",
        "fairseq",
        "fvcore",
        "k_diffusion",
        "lavis",
        "lightning",
        "maskrcnn_benchmark",
        "megatron",
        "mmcv",
        "mmdet",
        "mmdet3d",
        "mmengine",
        "mmpose",
        "mmseg",
        "open_clip",
        "peft",
        "pycocotools",
        "pytorch_lightning",
        "segment_anything",
        "taming",
        "timm",
        "torchvision",
        "transformers",
        "ultralytics",
        "yolox",
    }
)
_PACKAGING = ("setup.py", "pyproject.toml", "setup.cfg")
_LICENCES = ("LICENSE", "LICENCE", "COPYING")


def _has_packaging(folder: Path) -> bool:
    return any((folder / name).is_file() for name in _PACKAGING)


def _has_licence(folder: Path) -> bool:
    try:
        return any(
            child.name.upper().startswith(_LICENCES) and child.is_file()
            for child in folder.iterdir()
        )
    except OSError:
        return False


def _packaged(parent: Path) -> bool:
    """``parent`` packages the folders in it: a setup beside them, or one above ``src/``."""
    return _has_packaging(parent) or (parent.name == "src" and _has_packaging(parent.parent))


_VERSION_FILES = ("version.py", "_version.py", "__version__.py")


def _versioned_package(folder: Path) -> bool:
    """``folder`` is a released package: its own ``__init__.py`` and a version."""
    init = folder / "__init__.py"
    if not init.is_file():
        return False
    if any((folder / name).is_file() for name in _VERSION_FILES):
        return True
    try:
        return "__version__" in init.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _copied_package(root: Path, path: Path) -> bool:
    """``path``, a released package, is a copy inside the repository linted from ``root``.

    ``root`` is a repository (a README, licence or packaging file at its top),
    not a folder of several checkouts, and ``path`` is not its own package
    (``src/<package>`` under its own packaging).
    """
    if not _versioned_package(path):
        return False
    if path.parent.name == "src" and path.parent.parent == root and _has_packaging(root):
        return False
    try:
        return _has_packaging(root) or _has_licence(root) or any(root.glob("README*"))
    except OSError:
        return False


@functools.lru_cache(maxsize=256)
def _imports_itself(folder: Path) -> bool:
    """A file of ``folder`` imports one of its modules by the package's own top-level name.

    ``from mmcv.cnn import ...`` inside ``annotator/uniformer/mmcv/`` that has a
    ``cnn`` module: code written for ``mmcv`` installed, copied in. Importing
    the installed package (``from deepspeed.runtime import ...`` in a project's
    own ``deepspeed/`` helpers, which have no ``runtime``) is not.
    """
    name = folder.name
    try:
        files = sorted(folder.rglob("*.py"))[:200]
        children = {child.name.removesuffix(".py") for child in folder.iterdir()}
    except OSError:
        return False
    children.discard("__init__")
    for file in files:
        try:
            tree = ast.parse(file.read_text(encoding="utf-8", errors="replace"))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            modules: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            for module in modules:
                top, _, rest = module.partition(".")
                if top == name and rest.partition(".")[0] in children:
                    return True
    return False


def _scripts_folder(path: Path) -> bool:
    """``path`` holds Python scripts but is no package: named for the library they use.

    ``examples/training/peft/`` holding ``training_gooaq_lora.py`` is the
    project's own example of training with peft, not a copy of peft: a copied
    package keeps its ``__init__.py``.
    """
    try:
        return not (path / "__init__.py").is_file() and any(path.glob("*.py"))
    except OSError:
        return False


def _own_subpackage(path: Path) -> bool:
    """``path`` is a folder of the project's own package that only shares a known name.

    It sits in a Python package (an ``__init__.py`` beside it: ``openrlhf/utils/``
    holding ``deepspeed/``) and shows nothing of a copy: no licence or packaging
    of its own or beside it, no version, no released copy of another known
    package beside it, and no file importing its own modules by the known
    package's name (see :func:`_imports_itself`).
    """
    parent = path.parent
    if not (parent / "__init__.py").is_file():
        return False
    if _has_packaging(path) or _has_licence(path) or _has_licence(parent):
        return False
    if _versioned_package(path) or _beside_a_release(path):
        return False
    return not _imports_itself(path)


def _beside_a_release(path: Path) -> bool:
    """A folder beside ``path`` is a released copy of another known package.

    ``annotator/uniformer/`` holds ``mmcv/`` (its own ``version.py``) and
    ``mmseg/``: a folder of copies, the one without a version as much as the other.
    """
    try:
        siblings = [p for p in path.parent.iterdir() if p.is_dir() and p != path]
    except OSError:
        return False
    return any(p.name in KNOWN_PACKAGES and _versioned_package(p) for p in siblings)


def _normalized(name: str) -> str:
    """A package name as packaging compares it (``Causal-Conv1d`` is ``causal_conv1d``)."""
    return re.sub(r"[-_.]+", "_", name).lower()


_PROJECT_NAME = re.compile(r"""^\s*name\s*=\s*["']([^"']+)["']""")


def _pyproject_name(text: str) -> str | None:
    """``name`` of ``[project]`` (or ``[tool.poetry]``) of a ``pyproject.toml``, line by line."""
    section = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[] ")
            continue
        match = _PROJECT_NAME.match(line)
        if match and section in ("project", "tool.poetry"):
            return match.group(1)
    return None


def _setup_py_name(text: str) -> str | None:
    """The ``name=`` of the ``setup(...)`` call of a ``setup.py``.

    A string literal, or a module-level constant holding one
    (``PACKAGE_NAME = "mamba_ssm"`` ... ``setup(name=PACKAGE_NAME)``).
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called != "setup":
            continue
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg != "name":
                continue
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
            if isinstance(value, ast.Name) and value.id in constants:
                return constants[value.id]
    return None


def _setup_cfg_name(text: str) -> str | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    name = parser.get("metadata", "name", fallback=None)
    return name.strip() if name else None


@functools.lru_cache(maxsize=256)
def _distribution_names(folder: Path) -> frozenset[str]:
    """The package names ``folder``'s own packaging files give, normalized (none: empty)."""
    names: set[str] = set()
    for file, read in (
        ("setup.py", _setup_py_name),
        ("pyproject.toml", _pyproject_name),
        ("setup.cfg", _setup_cfg_name),
    ):
        try:
            text = (folder / file).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        name = read(text)
        if name:
            names.add(_normalized(name))
    return frozenset(names)


@functools.lru_cache(maxsize=256)
def _whole_release(root: Path, path: Path) -> bool:
    """Top-level ``path`` is a whole released copy of a package in the repository at ``root``.

    ``apex/`` at the top of openai/jukebox: its own ``setup.py`` naming
    ``apex``, its own licence, and the package folder ``apex/apex/``. The
    repository's own package (the one its top-level packaging names) is never
    one, and a folder of several checkouts (no README, licence or packaging at
    ``root``) holds no copies.
    """
    if not _has_licence(path):
        return False
    names = _distribution_names(path) - _distribution_names(root)
    if not names:
        return False
    try:
        if not (_has_packaging(root) or _has_licence(root) or any(root.glob("README*"))):
            return False
        packages = {
            _normalized(child.name)
            for child in path.iterdir()
            if child.is_dir() and (child / "__init__.py").is_file()
        }
    except OSError:
        return False
    return bool(names & packages)


def vendored_folder(root: Path, folder: PurePosixPath | Path) -> str | None:
    """The vendored tree ``folder`` (relative to the walked ``root``) lies in, or ``None``.

    A folder is vendored when it is named like one (:data:`VENDOR_FOLDERS`:
    ``third_party/``, ``vendor/``, ``_vendor/``...), or, below the top level of
    ``root``, when it is a copy of a known package (:data:`KNOWN_PACKAGES`,
    ``annotator/uniformer/mmcv/``) whose parent folder does not package it (no
    ``setup.py``/``pyproject.toml``/``setup.cfg`` beside it, or above a ``src/``
    layout: that would be the project's own package) and that is not a folder of
    the project's own package sharing the name with no sign of a copy
    (``openrlhf/utils/deepspeed/``, see :func:`_own_subpackage`), or that is a released copy
    of it (its own ``__init__.py`` and a version file or ``__version__``:
    ``object_detection/mmdet/`` beside the copied mmdetection's ``setup.py``)
    inside a repository linted from its root (a README, licence or packaging
    file there), its own ``src/`` layout aside, or when it is a
    distribution of its own (a
    licence file and a packaging file: ``torchhub/facebookresearch_dinov2_main/``).

    At the top level of ``root`` a folder is vendored only when it is a whole
    released copy of a package (:func:`_whole_release`: its own packaging
    naming a package it holds, its own licence: ``apex/`` with ``apex/apex/``
    beside the repository's own ``jukebox/``), or a released copy of a known
    package (its own ``__version__``) in a repository that packages nothing
    itself (HiddenCut's ``transformers/``, version 2.3.0, beside its
    ``run_glue.py``).

    NOTE: the top level of ``root`` is never vendored by the last two tests, so
    linting a folder of several checkouts (``repos/fairseq/``) or a package
    from its own root (``timm/``) reads their code; nor is the package the
    top-level packaging of ``root`` names.
    """
    parts = PurePosixPath(Path(folder).as_posix()).parts
    for index, part in enumerate(parts):
        here = PurePosixPath(*parts[: index + 1])
        if part.lower() in VENDOR_FOLDERS:
            return here.as_posix()
        path = root / here
        if index == 0:
            if _whole_release(root, path) or (
                part in KNOWN_PACKAGES and not _has_packaging(root) and _copied_package(root, path)
            ):
                return here.as_posix()
            continue
        if (
            part in KNOWN_PACKAGES
            and not _scripts_folder(path)
            and (
                _copied_package(root, path)
                or (not _packaged(path.parent) and not _own_subpackage(path))
            )
        ):
            return here.as_posix()
        if _has_packaging(path) and _has_licence(path):
            return here.as_posix()
    return None


def archived_folder(
    root: Path, folder: PurePosixPath | Path, seen: dict[PurePosixPath, bool] | None = None
) -> str | None:
    """The archive ``folder`` (relative to the walked ``root``) lies in, or ``None``.

    Viscnet's ``ARCHIVE/`` (its own notes say: old code, off the
    execution path), MICCAI2025_Dev's ``archived_code/``: a folder named for
    code kept aside (:data:`ARCHIVE_FOLDERS`, any letter case, or such a word joined to
    another: LLM_KD's ``src_backup/``) whose files no
    shipped line runs and no module outside it imports. Findings there
    describe runs that do not happen, as a vendored copy's would; the files
    are skipped and counted with the vendored trees (``--include-vendored``
    lints them). ``seen`` keeps each archive's answer for one walk.
    """
    seen = {} if seen is None else seen
    parts = PurePosixPath(Path(folder).as_posix()).parts
    for index, part in enumerate(parts):
        if not _archive_name(part):
            continue
        here = PurePosixPath(*parts[: index + 1])
        if here not in seen:
            seen[here] = _set_aside(root, here)
        return here.as_posix() if seen[here] else None
    return None


#: Words that name a folder as kept aside when joined to others (``src_backup``, ``old-src``).
_ARCHIVE_WORDS = frozenset(
    {"archive", "archived", "backup", "backups", "old", "deprecated", "obsolete", "legacy"}
)


def _archive_name(part: str) -> bool:
    """``part`` names an archive: in :data:`ARCHIVE_FOLDERS`, or an archive word joined to others.

    LLM_KD's ``src/src_backup/`` holds the earlier copy of ``src/train_distr.py``
    that its job files no longer run.
    """
    lower = part.lower()
    return lower in ARCHIVE_FOLDERS or not _ARCHIVE_WORDS.isdisjoint(re.split(r"[_\-.]", lower))


def _set_aside(root: Path, archive: PurePosixPath, module: str | None = None) -> bool:
    """No shipped line runs a file under ``archive`` and no file outside it imports from it.

    ``module``: ``archive`` is one file, imported by that name. The tree's
    Python files are read as ``tree_texts`` reads them (bounded, hidden
    folders aside); a tree too large to read keeps the archive linted.
    """
    prefix = archive.as_posix() if module is not None else archive.as_posix() + "/"
    if any(run.startswith(prefix) for run in read_run_scripts(root)):
        return False
    name = re.escape(module if module is not None else archive.name)
    uses = re.compile(rf"^\s*(?:from|import)\s+(?:[\w.]*\.)?{name}(?:\.|\s|$)", re.M)
    try:
        for path, text in tree_files(root, ("*.py",)):
            inside = path.relative_to(root).as_posix().startswith(prefix)
            if not inside and (module or archive.name) in text and uses.search(text):
                return False
    except TooManyFiles:
        return False
    return True


def archived_file(root: Path, relative: PurePosixPath) -> str | None:
    """``relative`` itself, where its name marks a copy kept aside that nothing runs.

    MyCDM's ``scripts/train_parallel_backup.py`` beside the ``train_parallel.py``
    its launch line runs, medical-BERT-project's ``backup.py`` files: a file
    whose name joins an archive word (``backup``, ``old``, ``deprecated``...)
    to others, or is one, that no shipped line runs and no other file imports
    (see :func:`_set_aside`). Skipped and counted with the archived trees.
    """
    if _ARCHIVE_WORDS.isdisjoint(re.split(r"[_\-.\s]", relative.stem.lower())):
        return None
    if not _set_aside(root, relative, module=relative.stem):
        return None
    return relative.as_posix()


def kind_of(path: Path) -> str:
    """What a path that is neither a regular file nor a folder is, in words."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "does not exist"
    for test, word in (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return f"is {word}, not a file or folder"
    return "is not a regular file or folder"


def excluded(relative: PurePosixPath, globs: Sequence[str]) -> bool:
    """``relative`` (to the folder walked) or any of its parts matches a glob."""
    text = relative.as_posix()
    return any(
        fnmatch.fnmatchcase(text, glob) or any(fnmatch.fnmatchcase(p, glob) for p in relative.parts)
        for glob in globs
    )


#: Globs that exclude a file by its name as test code (``test_ddp.py``).
_TEST_FILE_GLOBS = frozenset({"test_*.py", "*_test.py"})


def _test_name_only(relative: PurePosixPath, globs: Sequence[str]) -> bool:
    """Only a test-file name glob excludes ``relative`` (no folder, no other glob)."""
    others = [g for g in globs if g not in _TEST_FILE_GLOBS]
    return len(others) < len(globs) and not excluded(relative, others)


def _is_python(path: Path) -> bool:
    if path.suffix.lower() in _PYTHON_SUFFIXES:
        return True
    if path.suffix:
        return False
    try:
        with path.open("rb") as handle:
            first = handle.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def iter_python_files(
    paths: Sequence[str | Path],
    excludes: Sequence[str] = DEFAULT_EXCLUDES,
    *,
    vendored: dict[str, int] | None = None,
) -> Iterator[tuple[Path, bool, Path | None]]:
    """``(file, is_python, folder)`` for each path given and each ``*.py`` under folders, sorted.

    ``folder`` is the folder argument a file was found under (``None`` for a
    file named on its own): the files of one folder are linted as a project.

    Files named explicitly come back even when they are not Python (flagged
    ``False``, so the caller can say it skipped them); folder contents are
    filtered by ``excludes`` and never include pipes or devices. When
    ``vendored`` is given, files of vendored trees under folders (see
    :func:`vendored_folder`) are skipped too and counted into it by tree
    (``"repo/third_party": 12``, the path as the folder was given).

    Raises:
        LintConfigError: a path does not exist or is not a file or folder (the
            message says which it is).
    """
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            trees: dict[PurePosixPath, str | None] = {}
            archives: dict[PurePosixPath, bool] = {}
            launched: frozenset[str] | None = None
            for found in sorted(path.rglob("*.py")):
                relative = PurePosixPath(found.relative_to(path).as_posix())
                if not found.is_file():
                    continue
                if excluded(relative, excludes):
                    if not _test_name_only(relative, excludes):
                        continue
                    if launched is None:
                        launched = read_launched_scripts(path)
                    if relative.as_posix() not in launched:
                        continue  # a test file; one a launch line runs is the tree's script
                if vendored is not None:
                    if relative.parent not in trees:
                        trees[relative.parent] = vendored_folder(
                            path, relative.parent
                        ) or archived_folder(path, relative.parent, archives)
                    tree = trees[relative.parent] or archived_file(path, relative)
                    if tree is not None:
                        key = (PurePosixPath(path.as_posix()) / tree).as_posix()
                        vendored[key] = vendored.get(key, 0) + 1
                        continue
                yield found, True, path
        elif path.is_file():
            yield path, _is_python(path), None
        else:
            what = kind_of(path)
            hint = "" if what.startswith("is ") else "; give .py files or folders"
            raise LintConfigError(f"path {str(raw)!r} {what}{hint}")


def decode(data: bytes) -> str:
    """Source text as Python decodes it (PEP 263 declaration or BOM, else UTF-8).

    Raises:
        SyntaxError: an unknown encoding declared (``tokenize``'s wording); the
            Windows-only code pages (``mbcs``, ``oem``) are read as cp1252.
        UnicodeDecodeError: bytes that are invalid in the encoding in force.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        # "mbcs", "oem": the Windows code pages, declared by files written there, exist
        # only on Windows; read them as its usual one (cp1252: ASCII alike) to lint them
        declared = _COOKIE.search(b"\n".join(data.splitlines()[:2]))
        if declared is None or declared.group(1).lower() not in _WINDOWS_CODECS:
            raise
        return data.decode("cp1252", errors="replace")
    return data.decode(encoding)


#: PEP 263's coding declaration.
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.M)
#: Codecs Python has on Windows only (the ANSI and OEM code pages).
_WINDOWS_CODECS = frozenset({b"mbcs", b"dbcs", b"oem", b"ansi"})
