"""A two-generation torchrun job: does the process group come back after a restart?

Generation 0 joins the group, then rank 1 SIGKILLs itself; torchrun
(``--max-restarts 1``) restarts the workers and generation 1 joins again and
runs a collective. ``plain`` joins with ``init_process_group("gloo")``,
``helper`` with ``fairshard.init_elastic_process_group("gloo")``. Rank 0
prints ``GENERATION 1 JOINED`` when the restarted group works.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

import fairshard


def main() -> int:
    mode = sys.argv[1]
    gen = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
    if mode == "plain":
        dist.init_process_group("gloo", timeout=timedelta(seconds=20))
    else:
        fairshard.init_elastic_process_group("gloo", timeout=20)
    token = torch.ones(1)
    dist.all_reduce(token)
    if gen == 0:
        if dist.get_rank() == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        dist.all_reduce(token)  # fails: rank 1 is gone
    dist.barrier()
    if dist.get_rank() == 0:
        print(f"GENERATION {gen} JOINED", flush=True)
    dist.barrier()
    time.sleep(0.1)  # torch < 2.9: gloo frees the last collective's tensors first (docs/faults.md)
    dist.destroy_process_group()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
