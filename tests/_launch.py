"""One way for tests to start child Python processes on this checkout's fairshard.

The children import the fairshard the tests import (``src`` first on
``PYTHONPATH``), run single-threaded BLAS, and never inherit a launcher's
variables from the test process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path

import fairshard

LAUNCHER_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_PORT", "MASTER_ADDR")


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a child process (``extra`` added last)."""
    env = {k: v for k, v in os.environ.items() if k not in LAUNCHER_VARS}
    env["OMP_NUM_THREADS"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(fairshard.__file__).parents[1]), os.environ.get("PYTHONPATH", "")]
    )
    env.update(extra)
    return env


def run_python(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in a child process (``child_env``), its output captured as text."""
    return subprocess.run(
        [sys.executable, *args],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


class JobHung(AssertionError):
    """A job outlived its timeout; the message holds every process's stacks at that moment."""


def run_job(
    args: Sequence[str],
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    cwd: Path | str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run a job (a launcher and every process it starts) with a hard timeout.

    Why not ``subprocess.run(timeout=...)``: it kills the launcher alone. A
    rank or DataLoader worker the launcher started keeps running and keeps
    the output pipes open, and the failure says nothing of where the job
    stood. Here the job runs in a session of its own with its output in
    files; at the timeout every process of the session gets ``SIGABRT``, so
    Python's fault handler (``PYTHONFAULTHANDLER``) prints each one's
    threads' stacks, then ``SIGKILL``; ``JobHung`` carries the output's
    tail. Processes left behind by a launcher that exited are killed too.
    """
    env = dict(child_env() if env is None else env)
    env["PYTHONFAULTHANDLER"] = "1"
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            list(args),
            env=env,
            cwd=cwd,
            stdout=out,
            stderr=err,
            text=True,
            start_new_session=True,
        )
        hung = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            hung = True
            _signal_session(proc.pid, signal.SIGABRT)
            time.sleep(3)  # the fault handlers write their stacks
        finally:
            _signal_session(proc.pid, signal.SIGKILL)
            proc.wait()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if hung:
        raise JobHung(
            f"{' '.join(map(str, args))} outlived its {timeout:.0f} s timeout; "
            f"the stacks of its processes then:\n--- stdout\n{stdout[-4000:]}\n"
            f"--- stderr\n{stderr[-12000:]}"
        )
    return subprocess.CompletedProcess(list(args), proc.returncode, stdout, stderr)


def failure_text(proc: subprocess.CompletedProcess[str], tail: int = 3000) -> str:
    """What a failed job said: its output's tails, and the first fatal error whole.

    A rank that aborts (``Fatal Python error``, a C++ ``terminate called``)
    prints where it stood before the long list of extension modules that
    fills the tail; that part is kept here so a failure in CI says where.
    """
    parts = [f"--- rc {proc.returncode}", f"--- stdout\n{proc.stdout[-tail:]}"]
    starts = [proc.stderr.find(mark) for mark in ("terminate called", "Fatal Python error")]
    found = [i for i in starts if i >= 0]
    if found and min(found) < len(proc.stderr) - tail:
        parts.append(f"--- stderr at its first fatal error\n{proc.stderr[min(found) :][:6000]}")
    parts.append(f"--- stderr\n{proc.stderr[-tail:]}")
    return "\n".join(parts)


def _signal_session(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, sig)


def node_rank(
    code: str, rank: int, folder: Path, local: int, **extra: str
) -> subprocess.Popen[str]:
    """One local rank of a node that shares plans through ``folder``, running ``code``.

    ``code`` gets ``rank`` as ``sys.argv[1]``; the node has ``local`` ranks
    (``LOCAL_WORLD_SIZE``), no plan cache, and ``extra`` overrides the
    environment (``FAIRSHARD_SHARE_PLANS="0"``: the same rank without sharing).
    stdin and stdout are text pipes.
    """
    settings = {
        "FAIRSHARD_SHARE_PLANS": "1",
        "FAIRSHARD_SHARE_DIR": str(folder),
        "LOCAL_WORLD_SIZE": str(local),
    }
    env = child_env(**{**settings, **extra})
    env.pop("FAIRSHARD_PLAN_CACHE", None)
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), str(rank)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[1],
    )
