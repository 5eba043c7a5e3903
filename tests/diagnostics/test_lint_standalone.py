"""The linter runs without torch: it imports only the standard library, and installs alone.

``fairshard_lint`` is a package of its own (``lint/``, also shipped inside
fairshard) so that ``fairshard lint`` and ``fairshard-lint`` start in tens of
milliseconds instead of the seconds torch takes to import, and so that a
pre-commit hook can install it without torch. ``fairshard lint`` and
``python -m fairshard lint`` go through fairshard's front door
(``fairshard._cli.main.main``), which ``import fairshard`` reaches without
torch: the package resolves its public names lazily. The hook test builds a real
pre-commit environment and is run by ``make test-hook`` (about a minute:
a virtualenv and a package build), not by ``make test``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fairshard
import fairshard_lint

from .._launch import child_env, run_python

ROOT = Path(__file__).resolve().parents[2]
BAD = (
    "import torch\n"
    "from torch.utils.data import DataLoader, DistributedSampler\n"
    "def train(ds, epochs):\n"
    "    loader = DataLoader(ds, sampler=DistributedSampler(ds))\n"
    "    for epoch in range(epochs):\n"
    "        for batch in loader:\n"
    "            pass\n"
)

# Run the linter the way each command does, then list every module it loaded that is not
# stdlib (what the interpreter's start-up loads, e.g. a .pth hook, is not the linter's).
_PROBE = """
import sys
started = set(sys.modules)
import json
from fairshard_lint.cli import main
from fairshard._cli.main import main as fairshard_main
code = {call}
allowed = set(sys.stdlib_module_names) | {{"fairshard_lint", "fairshard"}}
loaded = set(sys.modules) - started
foreign = sorted({{m.split(".")[0] for m in loaded}} - allowed)
print(json.dumps({{"code": code, "foreign": foreign, "fairshard": sorted(
    m for m in loaded if m.split(".")[0] == "fairshard"
)}}))
"""
#: What the ``fairshard`` front door loads of fairshard before it hands ``lint`` over.
FRONT_DOOR = ["fairshard", "fairshard._cli", "fairshard._cli.main", "fairshard._version"]


@pytest.mark.parametrize(
    ("call", "front_door"),
    [
        ("main([sys.argv[1]])", []),  # fairshard-lint PATH
        ("fairshard_main(['lint', sys.argv[1]])", FRONT_DOOR),  # fairshard lint PATH (the script)
        ("fairshard_main(['lint', '--list-rules'])", FRONT_DOOR),
    ],
)
def test_the_linter_imports_only_the_standard_library(
    tmp_path: Path, call: str, front_door: list[str]
) -> None:
    script = tmp_path / "train.py"
    script.write_text(BAD)
    probe = _PROBE.format(call=call)
    if not front_door:  # fairshard-lint alone: not even fairshard's front door
        probe = probe.replace("from fairshard._cli.main import main as fairshard_main\n", "")
    done = run_python("-c", probe, str(script))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["foreign"] == [], f"the linter imported {result['foreign']}"
    assert result["fairshard"] == front_door
    assert result["code"] == (0 if "list-rules" in call else 1)
    if "list-rules" not in call:
        assert "train.py:5:5: FS101" in done.stdout


def _imported(importtime: str) -> set[str]:
    """The modules ``python -X importtime`` reports (its stderr), top-level names."""
    found = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s+([\w.]+)$", importtime, re.M)
    assert found, importtime
    return {name.split(".")[0] for name in found}


def test_python_m_fairshard_lint_does_not_import_torch(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(BAD)
    done = run_python("-X", "importtime", "-m", "fairshard", "lint", str(script))
    assert done.returncode == 1, done.stderr
    assert "train.py:5:5: FS101" in done.stdout
    imported = _imported(done.stderr)
    assert "fairshard_lint" in imported
    assert not imported & {"torch", "numpy"}, sorted(imported - set(sys.stdlib_module_names))


def test_import_fairshard_is_lazy() -> None:
    probe = (
        "import sys, fairshard; loaded = set(sys.modules); "
        "fairshard.DistributedSampler; "
        "print('torch' in loaded, 'numpy' in loaded, 'torch' in sys.modules)"
    )
    done = run_python("-c", probe)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "True"]


def test_every_other_command_still_reaches_fairshard(capsys: pytest.CaptureFixture[str]) -> None:
    from fairshard._cli.main import main as fairshard_main

    assert fairshard_main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"fairshard {fairshard.__version__}"


def test_the_console_script_is_the_front_door() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert 'fairshard = "fairshard._cli.main:main"' in text
    assert 'fairshard-lint = "fairshard_lint.cli:main"' in text


def test_one_version_for_both_distributions() -> None:
    assert fairshard_lint.__version__ == fairshard.__version__
    text = (ROOT / "lint" / "pyproject.toml").read_text()
    assert "dependencies = []" in text  # nothing beyond the standard library


def _hook_config() -> str:
    """The ``repo: local`` hook of docs/pitfalls.md, pointed at this checkout's ``lint/``."""
    page = (ROOT / "docs" / "pitfalls.md").read_text()
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", page, re.S) if "repo: local" in b]
    requirement = re.search(r'additional_dependencies: \["([^"]+)"\]', block)
    assert requirement and "#subdirectory=lint" in requirement.group(1)
    return block.replace(requirement.group(1), str(ROOT / "lint"))


@pytest.mark.skipif(
    os.environ.get("FAIRSHARD_HOOK_TEST") != "1",
    reason="builds a pre-commit environment (about a minute): run by `make test-hook`",
)
@pytest.mark.timeout(600)
def test_pre_commit_installs_the_hook_without_torch(tmp_path: Path) -> None:
    pre_commit = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")
    repo = tmp_path / "repo"
    repo.mkdir()
    env = child_env(PRE_COMMIT_HOME=str(tmp_path / "home"))

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)

    git("init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(_hook_config())
    (repo / "train.py").write_text(BAD)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_mock.py").write_text(BAD)  # excluded like the folder walk does
    (repo / "third_party" / "lib").mkdir(parents=True)
    (repo / "third_party" / "lib" / "train.py").write_text(BAD)  # vendored: skipped too
    git("add", "-A")
    run = subprocess.run(
        [pre_commit, "run", "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=580,
        check=False,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "train.py:5:5: FS101" in run.stdout
    assert "test_mock.py" not in run.stdout
    assert "third_party" not in run.stdout
    (python,) = (tmp_path / "home").glob("repo*/py_env-*/bin/python")
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    installed = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "fairshard-lint" in installed
    assert not installed & {"torch", "numpy", "fairshard"}, installed
    fixed = BAD.replace(
        "        for batch", "        loader.sampler.set_epoch(epoch)\n        for batch"
    )
    (repo / "train.py").write_text(fixed)
    git("add", "-A")
    clean = subprocess.run(
        [pre_commit, "run", "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert clean.returncode == 0, clean.stdout + clean.stderr


def test_the_hooks_skip_vendored_trees_as_the_folder_walk_does() -> None:
    from fairshard_lint.files import VENDOR_FOLDERS

    pages = {
        ".pre-commit-hooks.yaml": (ROOT / ".pre-commit-hooks.yaml").read_text(),
        "docs/pitfalls.md": _hook_config(),
    }
    for where, text in pages.items():
        (pattern,) = re.findall(r"exclude: '([^']+)'", text)
        for folder in sorted(VENDOR_FOLDERS):
            assert re.search(pattern, f"{folder}/pkg/evaluate.py"), (where, folder)
            assert re.search(pattern, f"src/{folder}/evaluate.py"), (where, folder)
        for kept in ("train.py", "src/vendor_utils.py", "tools/third_party_check.py"):
            assert not re.search(pattern, kept), (where, kept)
        assert re.search(pattern, "tests/test_mock.py"), where
