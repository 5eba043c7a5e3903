"""One way for tests to start child Python processes on this checkout's fairshard.

The children import the fairshard the tests import (``src`` first on
``PYTHONPATH``), run single-threaded BLAS, and never inherit a launcher's
variables from the test process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
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
