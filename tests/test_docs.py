"""Every Python code block in the README and docs runs, as written.

Convention (also in CONTRIBUTING.md):

* The ``python`` blocks of one page run top to bottom in one fresh interpreter
  (later blocks may use names from earlier ones), in an empty temporary
  folder, with no launcher variables set.
* A block whose first line is ``# torchrun: N`` is a whole script: it runs on
  its own under ``torchrun --standalone --nproc-per-node N`` (gloo on CPU).
* A block whose first line is ``# not run: REASON`` is skipped; the reason
  must say why (for example, it needs a GPU) and is shown in the test id.

Other languages (``bash``, ``text``, ``console``) are not executed here; the
commands they show are covered by the tests of the CLI and the Makefile.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ._launch import child_env

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *ROOT.glob("README.*.md"), *(ROOT / "docs").glob("*.md")])
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.M | re.S)
TIMEOUT = 240
#: What the floors (``make test-floors``) lack: peers with no release beside the lowest
#: declared torch (transformers is not installed there), and DeviceMesh (torch >= 2.2).
FLOORS_ABSENT = (
    "torchdata",
    "lightning",
    "accelerate",
    "transformers",
    "torch.distributed.device_mesh",
)


def _absent_at_the_floors(code: str) -> list[str]:
    """Under ``make test-floors`` only: the peers the code imports that are not installed."""
    if os.environ.get("FAIRSHARD_FLOORS") != "1":
        return []  # everywhere else the [dev] extra installs them, and a missing one fails
    return [
        name
        for name in FLOORS_ABSENT
        if re.search(rf"^\s*(from|import) {name}\b", code, re.M)
        and importlib.util.find_spec(name) is None
    ]


def blocks(page: Path) -> list[str]:
    """The page's python blocks, in order."""
    return [textwrap.dedent(m.group(1)) for m in FENCE.finditer(page.read_text())]


def _env() -> dict[str, str]:
    env = child_env()
    env.pop("FAIRSHARD_VERIFY", None)
    return env


def _cases() -> list[object]:
    cases = []
    for page in PAGES:
        inline: list[str] = []
        for number, code in enumerate(blocks(page), 1):
            first = code.split("\n", 1)[0].strip()
            name = f"{page.relative_to(ROOT)}#{number}"
            if first.startswith("# not run:"):
                reason = first.removeprefix("# not run:").strip()
                cases.append(pytest.param(page, "skip", code, reason, id=f"{name}-not-run"))
            elif first.startswith("# torchrun:"):
                cases.append(pytest.param(page, "torchrun", code, first, id=f"{name}-torchrun"))
            else:
                inline.append(f"# --- {name}\n{code}")
        if inline:
            cases.append(
                pytest.param(page, "inline", "\n".join(inline), "", id=f"{page.relative_to(ROOT)}")
            )
    return cases


@pytest.mark.slow
@pytest.mark.parametrize(("page", "mode", "code", "note"), _cases())
def test_page_code_runs(page: Path, mode: str, code: str, note: str, tmp_path: Path) -> None:
    if mode == "skip":
        assert len(note) >= 10, f"{page.name}: a '# not run:' block must say why"
        return
    absent = _absent_at_the_floors(code)
    if absent:
        pytest.skip(f"needs {', '.join(absent)}: not available beside the floors' torch 2.1")
    script = tmp_path / "snippet.py"
    script.write_text(code)
    if mode == "torchrun":
        nproc = int(note.removeprefix("# torchrun:").strip())
        cmd = [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            f"--nproc-per-node={nproc}",
            str(script),
        ]
    else:
        cmd = [sys.executable, str(script)]
    proc = subprocess.run(
        cmd, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert proc.returncode == 0, (
        f"{page.relative_to(ROOT)} ({mode}) failed with exit {proc.returncode}:\n"
        f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
    )


def test_every_page_is_seen() -> None:
    assert (ROOT / "README.md") in PAGES
    assert sum(len(blocks(p)) for p in PAGES) > 0
