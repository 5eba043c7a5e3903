"""How a launched job's process ends: together, its group torn down, no finalization.

On CPU/gloo, a process that leaves its group to the interpreter's exit can
abort after its work is done and written (``terminate called without an
active exception``, exit -6): gloo's worker threads still hold work objects
whose tensors need the GIL while the interpreter is being torn down (the
upstream discussion: pytorch/pytorch#179291). ``destroy_process_group``
alone did not cure it here (a rank of accelerate's NLP job still aborted in
CI), because a peer may still be in its last collective. So a job's process
waits for its peers, destroys the group, flushes its output and exits
without finalization -- what ``examples/_common.finish`` and the demo do for
users' jobs.

Job scripts run as files under a launcher; they put the checkout's root on
``sys.path`` to import this module.
"""

from __future__ import annotations

import os
import sys
import time
from typing import NoReturn


def end_job(code: int = 0) -> NoReturn:
    """Barrier, destroy the process group (if any), flush, ``os._exit(code)``.

    Call it last, after every output file is closed: nothing runs after it
    (no ``atexit`` handler, no ``finally`` block of a caller).
    """
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        try:
            dist.barrier()  # no rank tears gloo down while a peer still talks to it
            time.sleep(0.1)  # torch < 2.9: gloo frees the last collective's tensors first
        finally:
            dist.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
