"""Run a function on real gloo ranks (spawned processes) with a hard timeout.

``run_ranks(fn, world_size, *args)`` spawns ``world_size`` processes, each
initializing a gloo process group on 127.0.0.1, calls ``fn(rank, world_size,
*args)`` and returns the results in rank order. A rank that raises fails the
call with its traceback; ranks that do not finish within ``timeout`` seconds
are killed and the call raises ``TimeoutError`` -- a hang fails fast.
``fn`` must be a module-level function (it is pickled by reference). Ranks are
forked from a forkserver that imported torch once (``_context``).

NOTE (the harness's own group): on a loaded machine the gloo rendezvous on
127.0.0.1 can fail before ``fn`` runs (``connectFullMesh ... Connection closed
by peer``: a free port taken between its choice and its bind, or a peer's
socket reset). That is the harness's set-up, not the code under test: the
whole run starts again on a fresh port, at most ``_GROUP_TRIES`` times, and
only a failure before ``fn`` is retried.
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import traceback
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import torch.distributed as dist
import torch.multiprocessing as mp


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _context() -> Any:
    """A forkserver whose server has imported torch, numpy and fairshard once.

    NOTE (speed): a spawned rank imports torch afresh (1-2 s of CPU); the
    suite starts some hundreds of ranks, so on 2 cores that was minutes of
    the suite. Ranks forked from a server that imported them start at once.
    What spawn gave for free is passed explicitly: the parent's environment
    and working directory at the call (``_worker``).
    """
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["torch", "torch.distributed", "numpy", "fairshard"])
    return ctx


def _worker(
    fn: Callable[..., Any],
    rank: int,
    world_size: int,
    port: int,
    results: Any,
    args: tuple[Any, ...],
    pg_timeout: float,
    environ: dict[str, str],
    cwd: str,
) -> None:
    os.environ.clear()
    os.environ.update(environ)
    os.chdir(cwd)
    os.environ.update(
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        RANK=str(rank),
        WORLD_SIZE=str(world_size),
        LOCAL_RANK=str(rank),
        OMP_NUM_THREADS="1",
    )
    try:
        dist.init_process_group(
            "gloo", rank=rank, world_size=world_size, timeout=timedelta(seconds=pg_timeout)
        )
    except BaseException:  # the group never formed: the parent may start again
        results.put((rank, None, traceback.format_exc()))
    else:
        try:
            value = fn(rank, world_size, *args)
            results.put((rank, True, value))
        except BaseException:  # report everything, the parent decides
            results.put((rank, False, traceback.format_exc()))
    finally:
        # Deliver the result before tearing the group down: on torch 2.1 gloo,
        # destroy_process_group() with a timed-out collective still pending blocks
        # while holding the GIL, so the queue's feeder thread would never send it
        # (the parent kills a rank that outlives its result).
        results.close()
        results.join_thread()
        if dist.is_initialized():
            with contextlib.suppress(Exception):
                dist.destroy_process_group()


#: Runs started in all when the harness's own group fails to form (see the module's note).
_GROUP_TRIES = 3


class _GroupDidNotForm(Exception):
    """The harness's gloo group failed at ``init_process_group``, before ``fn`` ran."""


def run_ranks(
    fn: Callable[..., Any],
    world_size: int,
    *args: Any,
    timeout: float = 120.0,
    pg_timeout: float = 60.0,
    allow_failures: bool = False,
) -> list[Any]:
    """Run ``fn`` on ``world_size`` gloo ranks; results in rank order.

    With ``allow_failures=True`` a failing rank's entry is the traceback text
    wrapped in ``RankFailure`` instead of failing the call.
    """
    for attempt in range(1, _GROUP_TRIES + 1):
        try:
            return _run_once(fn, world_size, args, timeout, pg_timeout, allow_failures)
        except _GroupDidNotForm as failed:
            if attempt == _GROUP_TRIES:
                raise RuntimeError(
                    f"the harness's gloo group did not form in {_GROUP_TRIES} tries:\n{failed}"
                ) from None
    raise AssertionError("unreachable")


def _run_once(
    fn: Callable[..., Any],
    world_size: int,
    args: tuple[Any, ...],
    timeout: float,
    pg_timeout: float,
    allow_failures: bool,
) -> list[Any]:
    ctx = _context()
    results = ctx.Queue()
    port = free_port()
    environ, cwd = dict(os.environ), os.getcwd()
    procs = [
        ctx.Process(
            target=_worker,
            args=(fn, rank, world_size, port, results, args, pg_timeout, environ, cwd),
            daemon=True,
        )
        for rank in range(world_size)
    ]
    for p in procs:
        p.start()
    import time

    deadline = time.monotonic() + timeout
    out: dict[int, Any] = {}
    try:
        while len(out) < world_size:
            left = deadline - time.monotonic()
            if left <= 0:
                missing = sorted(set(range(world_size)) - set(out))
                raise TimeoutError(f"ranks {missing} did not finish in {timeout}s")
            try:
                rank, ok, value = results.get(timeout=min(left, 1.0))
            except queue.Empty:
                dead = [
                    r for r, p in enumerate(procs) if p.exitcode not in (None, 0) and r not in out
                ]
                if dead and not allow_failures:
                    raise RuntimeError(f"ranks {dead} died without reporting") from None
                if dead:
                    for r in dead:
                        out[r] = RankFailure(f"rank {r} died (exit code {procs[r].exitcode})")
                continue
            if ok is None:
                raise _GroupDidNotForm(f"rank {rank}:\n{value}")
            if not ok and not allow_failures:
                raise RuntimeError(f"rank {rank} failed:\n{value}")
            out[rank] = value if ok else RankFailure(value)
    finally:
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join(timeout=5)
    return [out[r] for r in range(world_size)]


class RankFailure(str):
    """The traceback (or death notice) of a rank that failed."""
