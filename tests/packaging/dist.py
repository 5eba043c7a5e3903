"""Build, check and install fairshard's two distributions: what ``make dist`` runs.

``fairshard`` (the library, with the ``fairshard_demo`` application and the
``fairshard_lint`` package) and ``fairshard-lint`` (``lint/``: the linter
alone, standard library only) are each built as an sdist and a wheel from a
copy of the source tree (so the checkout gets no ``build/`` or
``*.egg-info``), then checked:

* **contents**: a wheel holds exactly the packages' source files (every
  module, so every module the lazy table ``fairshard._EXPORTS`` names),
  ``py.typed`` and the licence, and nothing else (no tests, no caches); an
  sdist holds the same sources, ``pyproject.toml``, the README and the
  licence, and no tests;
* **metadata**: name, the version of ``src/fairshard/_version.py`` (the one
  place it is written), requirements, licence, entry points, and a long
  description that renders (``twine check --strict`` where twine is
  installed, else readme_renderer's Markdown renderer, the one twine uses);

and then installed into clean virtual environments outside the checkout
(``python -m venv``, ``torch==2.13.0`` first, then the wheel; no repository
on ``sys.path``), where the commands and an import of every public name
(``tests/golden/exports.json``) run. ``python -m tests.packaging.dist``
does all of it and prints the transcript; ``--no-install`` stops after the
checks.
"""

from __future__ import annotations

import argparse
import ast
import email.parser
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: What a build reads from the checkout: copied, nothing else.
TREE = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "src", "lint")
TORCH_SPEC = os.environ.get("TORCH_SPEC", "torch==2.13.0")
#: Each distribution: its project folder (in the tree), its packages and where they live.
DISTS = {
    "fairshard": (
        ".",
        {
            "fairshard": "src/fairshard",
            "fairshard_demo": "src/fairshard_demo",
            "fairshard_lint": "lint/src/fairshard_lint",
        },
    ),
    "fairshard-lint": ("lint", {"fairshard_lint": "lint/src/fairshard_lint"}),
}
#: A script with the pitfall FS101 (no ``set_epoch``): ``fairshard lint`` must find it.
BAD_SCRIPT = (
    "import torch\n"
    "from torch.utils.data import DataLoader, DistributedSampler\n"
    "def train(ds, epochs):\n"
    "    loader = DataLoader(ds, sampler=DistributedSampler(ds))\n"
    "    for epoch in range(epochs):\n"
    "        for batch in loader:\n"
    "            pass\n"
)


def version() -> str:
    """The version written in ``src/fairshard/_version.py``, read without importing it."""
    tree = ast.parse((ROOT / "src" / "fairshard" / "_version.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "__version__":  # type: ignore[attr-defined]
            return str(node.value.value)  # type: ignore[attr-defined]
    raise AssertionError("src/fairshard/_version.py writes no __version__")


def _ignore(folder: str, names: list[str]) -> set[str]:
    junk = {"__pycache__", "build", "dist", ".mypy_cache", ".ruff_cache"}
    return {n for n in names if n in junk or n.endswith((".egg-info", ".pyc"))}


def stage(dest: Path) -> Path:
    """Copy what a build reads into ``dest/tree`` (links kept: the linter's version is one)."""
    tree = dest / "tree"
    tree.mkdir(parents=True)
    for name in TREE:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, symlinks=True, ignore=_ignore)
        elif source.exists():
            shutil.copy2(source, tree / name)
    return tree


def _run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        output = done.stdout + done.stderr
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n{output}")
    return done  # type: ignore[no-any-return]


def build(outdir: Path, *, wheel_only: bool = False, isolation: bool = True) -> list[Path]:
    """Build both distributions into ``outdir``; return the files made.

    By default ``python -m build``: an sdist, then the wheel built from that sdist
    (so a file the sdist forgets fails the wheel), in an isolated build
    environment. ``wheel_only`` builds the wheels with pip and the installed
    setuptools, no registry needed (the suite's fast check).
    """
    outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fairshard-build-") as scratch:
        tree = stage(Path(scratch))
        for folder, _packages in DISTS.values():
            project = str(tree / folder)
            if wheel_only:
                cmd = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"]
                cmd += ["--no-build-isolation", "--wheel-dir", str(outdir), project]
            else:
                cmd = [sys.executable, "-m", "build", "--outdir", str(outdir), project]
                cmd += [] if isolation else ["--no-isolation"]
            _run(cmd, cwd=scratch)
    return sorted(outdir.iterdir())


def _sources(packages: dict[str, str]) -> set[str]:
    """The files a distribution must ship: each package's modules and ``py.typed``."""
    out: set[str] = set()
    for package, folder in packages.items():
        for path in (ROOT / folder).rglob("*"):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            if path.suffix == ".py" or path.name == "py.typed":
                out.add(f"{package}/{path.relative_to(ROOT / folder).as_posix()}")
    return out


def lazy_table_modules() -> set[str]:
    """The module files the lazy table of ``fairshard/__init__.py`` names (and the namespaces)."""
    tree = ast.parse((ROOT / "src" / "fairshard" / "__init__.py").read_text())
    table: dict[str, str] = {}
    namespaces: tuple[str, ...] = ()
    for node in tree.body:
        target = getattr(node, "target", None) or (getattr(node, "targets", None) or [None])[0]
        name = getattr(target, "id", None)
        if name == "_EXPORTS":
            table = ast.literal_eval(node.value)  # type: ignore[attr-defined]
        elif name == "_NAMESPACES":
            namespaces = ast.literal_eval(node.value)  # type: ignore[attr-defined]
    assert table, "fairshard/__init__.py has no _EXPORTS table"
    modules = set(table.values()) | {f".{n}" for n in namespaces}
    out = set()
    for module in modules:
        relative = module.lstrip(".").replace(".", "/")
        folder = ROOT / "src" / "fairshard" / relative
        out.add(f"fairshard/{relative}" + ("/__init__.py" if folder.is_dir() else ".py"))
    return out


def _metadata_problems(text: str, dist: str) -> list[str]:
    meta = email.parser.Parser().parsestr(text)
    problems = []
    expected = {
        "Name": dist,
        "Version": version(),
        "Requires-Python": ">=3.10",
        "License-Expression": "Apache-2.0",
        "Description-Content-Type": "text/markdown",
    }
    for field, value in expected.items():
        if meta.get(field) != value:
            problems.append(f"{dist}: METADATA {field} is {meta.get(field)!r}, expected {value!r}")
    requires = sorted(meta.get_all("Requires-Dist") or [])
    base = [r for r in requires if "extra ==" not in r]
    want = ["numpy>=1.24", "torch>=2.1"] if dist == "fairshard" else []
    if base != want:
        problems.append(f"{dist}: Requires-Dist (no extra) is {base}, expected {want}")
    description = meta.get_payload()
    if not isinstance(description, str) or len(description.strip()) < 200:
        problems.append(f"{dist}: the long description is missing or short")
    return problems


def check_wheel(path: Path) -> list[str]:
    """What is wrong with the wheel at ``path`` (an empty list: nothing)."""
    dist = "fairshard-lint" if path.name.startswith("fairshard_lint-") else "fairshard"
    _folder, packages = DISTS[dist]
    info = f"{dist.replace('-', '_')}-{version()}.dist-info"
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"{info}/METADATA").decode() if f"{info}/METADATA" in names else ""
        entry_points = archive.read(f"{info}/entry_points.txt").decode() if metadata else ""
    problems = []
    if not path.name.startswith(f"{dist.replace('-', '_')}-{version()}-py3-none-any"):
        problems.append(f"{path.name}: not a pure wheel of version {version()}")
    shipped = {n for n in names if not n.startswith(info)}
    want = _sources(packages)
    if dist == "fairshard":
        want |= lazy_table_modules()
    for missing in sorted(want - shipped):
        problems.append(f"{path.name}: {missing} is missing")
    for extra in sorted(shipped - want):
        problems.append(f"{path.name}: {extra} should not be shipped")
    for required in ("METADATA", "RECORD", "WHEEL", "licenses/LICENSE", "entry_points.txt"):
        if f"{info}/{required}" not in names:
            problems.append(f"{path.name}: {info}/{required} is missing")
    scripts = ["fairshard-lint = fairshard_lint.cli:main"]
    if dist == "fairshard":
        scripts.append("fairshard = fairshard._cli.main:main")
    problems += [f"{path.name}: no console script {s!r}" for s in scripts if s not in entry_points]
    if metadata:
        problems += _metadata_problems(metadata, dist)
    return problems


def check_sdist(path: Path) -> list[str]:
    """What is wrong with the sdist at ``path``."""
    dist = "fairshard-lint" if path.name.startswith("fairshard_lint-") else "fairshard"
    folder, packages = DISTS[dist]
    top = f"{dist.replace('-', '_')}-{version()}"
    with tarfile.open(path) as archive:
        members = {m.name: m for m in archive.getmembers()}
        pkg_info = archive.extractfile(f"{top}/PKG-INFO") if f"{top}/PKG-INFO" in members else None
        metadata = pkg_info.read().decode() if pkg_info else ""
    names = {n.removeprefix(f"{top}/") for n in members}
    problems = []
    project = ROOT / folder
    want = set()
    for package, where in packages.items():
        inside = (ROOT / where).relative_to(project).as_posix()
        want |= {f"{inside}/{f.split('/', 1)[1]}" for f in _sources({package: where})}
    want |= {"PKG-INFO", "pyproject.toml", "README.md", "LICENSE"}
    for missing in sorted(want - names):
        problems.append(f"{path.name}: {missing} is missing")
    for name in sorted(names):
        if name.startswith("tests/") or "/tests/" in name or "__pycache__" in name:
            problems.append(f"{path.name}: {name} should not be shipped")
    links = [n for n, m in members.items() if m.issym() or m.islnk()]
    problems += [f"{path.name}: {n} is a link, not a file" for n in links]
    if metadata:
        problems += _metadata_problems(metadata, dist)
    else:
        problems.append(f"{path.name}: no PKG-INFO")
    return problems


def render_problems(paths: Iterable[Path]) -> tuple[list[str], str]:
    """Whether each long description renders: twine check where installed, else readme_renderer.

    Returns the problems and the name of the checker used.
    """
    paths = list(paths)
    if shutil.which("twine") or _importable("twine"):
        done = subprocess.run(
            [sys.executable, "-m", "twine", "check", "--strict", *map(str, paths)],
            capture_output=True,
            text=True,
            check=False,
        )
        bad = [] if done.returncode == 0 else [f"twine check --strict:\n{done.stdout}{done.stderr}"]
        return bad, "twine check --strict"
    import readme_renderer.markdown  # the renderer twine check runs on Markdown

    problems = []
    for path in paths:
        with zipfile.ZipFile(path) as archive:
            meta = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            body = email.parser.Parser().parsestr(archive.read(meta).decode()).get_payload()
        if readme_renderer.markdown.render(str(body)) is None:
            problems.append(f"{path.name}: the long description does not render")
    return problems, "readme_renderer.markdown"


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def check(paths: Iterable[Path]) -> list[str]:
    """Every problem of every built file (contents, metadata, rendering)."""
    paths = sorted(paths)
    problems: list[str] = []
    for path in paths:
        if path.suffix == ".whl":
            problems += check_wheel(path)
        elif path.name.endswith(".tar.gz"):
            problems += check_sdist(path)
    rendered, _how = render_problems(paths)
    return problems + rendered


def public_names() -> dict[str, list[str]]:
    """Every public name of every public module, as ``tests/golden/exports.json`` pins them."""
    pinned = json.loads((ROOT / "tests" / "golden" / "exports.json").read_text())
    return {module: sorted(names) for module, names in pinned.items()}


_IMPORT_ALL = """
import importlib, json, sys
names = json.loads(sys.argv[1])
here = sys.argv[2]
assert not any(p and p.startswith(here) for p in sys.path), sys.path
count = 0
for module, wanted in names.items():
    mod = importlib.import_module(module)
    assert sorted(mod.__all__) == wanted, (module, sorted(set(wanted) ^ set(mod.__all__)))
    for name in wanted:
        getattr(mod, name)
        count += 1
import fairshard
print(f"fairshard {fairshard.__version__} from {fairshard.__file__}: {count} public names imported")
"""
_LINT_ONLY = """
import sys
import fairshard_lint, fairshard_lint.cli
assert "torch" not in sys.modules and "fairshard" not in sys.modules
print(f"fairshard_lint {fairshard_lint.__version__} from {fairshard_lint.__file__}, no torch")
"""


def _clean_env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(PYTHONNOUSERSITE="1", PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    env.update(VIRTUAL_ENV=str(venv), OMP_NUM_THREADS="1")
    return env


class Transcript:
    """Commands run in the clean venvs, each with its exit code and output."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def run(
        self,
        cmd: list[str],
        *,
        cwd: Path,
        env: dict[str, str],
        expect: int = 0,
        keep: int = 12,
        shown: str | None = None,
        timeout: float = 900,
    ) -> str:
        started = time.perf_counter()
        done = subprocess.run(
            cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
        seconds = time.perf_counter() - started
        output = (done.stdout + done.stderr).rstrip()
        lines = [line for line in output.splitlines() if "is ignored: it is neither" not in line]
        shown = shown or " ".join(cmd)
        self.lines.append(f"$ {shown}    # exit {done.returncode}, {seconds:.1f} s")
        self.lines += [f"  {line}" for line in lines[:keep]]
        if len(lines) > keep:
            self.lines.append(f"  ... ({len(lines) - keep} more lines)")
        if done.returncode != expect:
            raise RuntimeError(
                f"{shown or ' '.join(cmd)}: exit {done.returncode}, expected {expect}\n{output}"
            )
        return output

    def __str__(self) -> str:
        return "\n".join(self.lines)


def install_and_run(wheels: Iterable[Path], workdir: Path) -> Transcript:
    """Install the wheels into clean venvs under ``workdir`` and run the commands there.

    ``workdir`` must lie outside the checkout. One venv gets torch, then the
    fairshard wheel; a second gets only the fairshard-lint wheel (no torch).
    """
    wheels = sorted(wheels)
    main = next(w for w in wheels if w.name.startswith("fairshard-"))
    lint = next(w for w in wheels if w.name.startswith("fairshard_lint-"))
    assert ROOT not in workdir.resolve().parents, f"{workdir} is inside the checkout"
    here = workdir / "project"
    here.mkdir(parents=True, exist_ok=True)
    (here / "train.py").write_text(BAD_SCRIPT)
    log = Transcript()
    base = getattr(sys, "_base_executable", sys.executable)

    venv = workdir / "venv"
    log.run(
        [base, "-m", "venv", str(venv)], cwd=here, env=_clean_env(venv), shown="python -m venv venv"
    )
    env = _clean_env(venv)
    pip = ["python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    log.run([*pip, TORCH_SPEC], cwd=here, env=env, shown=f"pip install {TORCH_SPEC}")
    log.run([*pip, str(main)], cwd=here, env=env, shown=f"pip install {main.name}")
    log.run(["fairshard", "--version"], cwd=here, env=env)
    log.run(["fairshard", "--help"], cwd=here, env=env, keep=8)
    log.run(
        ["fairshard", "simulate", "DistributedSampler", "-n", "1003", "-w", "4"],
        cwd=here,
        env=env,
        keep=14,
    )
    log.run(["fairshard", "lint", "train.py"], cwd=here, env=env, expect=1)
    log.run(["python", "-m", "fairshard", "lint", "train.py"], cwd=here, env=env, expect=1)
    log.run(["fairshard", "demo", "--help"], cwd=here, env=env, keep=4)
    log.run(
        ["python", "-c", _IMPORT_ALL, json.dumps(public_names()), str(ROOT)],
        cwd=here,
        env=env,
        shown="python -c '<import every public name of exports.json>'",
    )

    bare = workdir / "venv-lint"
    log.run(
        [base, "-m", "venv", str(bare)],
        cwd=here,
        env=_clean_env(bare),
        shown="python -m venv venv-lint",
    )
    env = _clean_env(bare)
    log.run([*pip, str(lint)], cwd=here, env=env, shown=f"pip install {lint.name}")
    log.run(["fairshard-lint", "--version"], cwd=here, env=env)
    log.run(["fairshard-lint", "train.py"], cwd=here, env=env, expect=1)
    log.run(
        ["python", "-c", _LINT_ONLY],
        cwd=here,
        env=env,
        shown="python -c '<import fairshard_lint; no torch, no fairshard loaded>'",
    )
    return log


def summary(paths: Iterable[Path]) -> str:
    """One line per built file: its size and how many files it holds, by top folder."""
    lines = []
    for path in sorted(paths):
        if path.suffix == ".whl":
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if not n.endswith("/")]
            tops = [n.split("/")[0] for n in names]
        else:
            with tarfile.open(path) as archive:
                names = [m.name for m in archive.getmembers() if m.isfile()]
            tops = [n.split("/")[1] if n.count("/") > 1 else "(top)" for n in names]
        counts = {t: tops.count(t) for t in sorted(set(tops))}
        detail = ", ".join(f"{t} {c}" for t, c in counts.items())
        size = path.stat().st_size / 1024
        lines.append(f"{path.name}: {size:.0f} KiB, {len(names)} files ({detail})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.packaging.dist", description=__doc__)
    parser.add_argument("--outdir", type=Path, default=ROOT / "dist")
    parser.add_argument(
        "--no-isolation",
        action="store_true",
        help="build with the installed setuptools (no build environment)",
    )
    parser.add_argument("--no-install", action="store_true", help="stop after the checks")
    args = parser.parse_args(argv)
    if args.outdir.exists():
        shutil.rmtree(args.outdir)
    started = time.perf_counter()
    paths = build(args.outdir, isolation=not args.no_isolation)
    print(f"built in {time.perf_counter() - started:.1f} s:\n{summary(paths)}")
    problems = check(paths)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(f"checked: contents, metadata, long descriptions ({render_problems(paths)[1]})")
    if args.no_install:
        return 0
    with tempfile.TemporaryDirectory(prefix="fairshard-venv-") as scratch:
        started = time.perf_counter()
        log = install_and_run(paths, Path(scratch))
        print(f"clean venvs ({time.perf_counter() - started:.0f} s):\n{log}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
