"""One way for tests to start child Python processes on this checkout's fairshard.

The children import the fairshard the tests import (``src`` first on
``PYTHONPATH``), run single-threaded BLAS, and never inherit a launcher's
variables from the test process.
"""

from __future__ import annotations

import os
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
