"""The tests' job runner: a hung job fails fast, says where it hung, and leaves nothing behind."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from ._launch import JobHung, run_job

# A launcher that starts a child (as Lightning starts its second rank), then
# both wait forever; the child holds the output open, as a rank would.
HANGING = """
import subprocess, sys, time
from pathlib import Path
PEER = "import time\\ndef waits_for_a_peer():\\n    time.sleep(600)\\nwaits_for_a_peer()"
child = subprocess.Popen([sys.executable, "-c", PEER])
Path(sys.argv[1]).write_text(str(child.pid))
def launcher_waits():
    time.sleep(600)
launcher_waits()
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for this purpose: its state is Z
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_a_hung_job_fails_with_every_process_stack_and_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    started = time.monotonic()
    with pytest.raises(JobHung) as hung:
        run_job([sys.executable, "-c", HANGING, str(pid_file)], timeout=4)
    assert time.monotonic() - started < 30
    said = str(hung.value)
    assert "outlived its 4 s timeout" in said
    assert "launcher_waits" in said and "waits_for_a_peer" in said  # both processes' stacks
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child)


def test_a_finished_job_returns_its_output_and_exit_status() -> None:
    done = run_job(
        [
            sys.executable,
            "-c",
            "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)",
        ],
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")


def test_a_process_left_behind_by_a_finished_launcher_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    leaves = (
        "import subprocess, sys\nfrom pathlib import Path\n"
        "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "Path(sys.argv[1]).write_text(str(c.pid))\n"
    )
    run_job([sys.executable, "-c", leaves, str(pid_file)], timeout=60)
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child)
