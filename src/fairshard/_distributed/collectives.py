"""The few collectives fairshard makes, and the rule for when it may make them.

:func:`talks_to_group` is the rule (see the NOTE in ``world.py``): a sampler
communicates only when its ``num_replicas`` is the size of the group it
talks to. Every collective here takes an optional ``group`` (default: the
default process group) and, where a peer may never arrive, a ``timeout`` so
that a missing rank raises instead of hanging.

NOTE (teardown deadlock, torch before 2.9): a process group's worker thread
can still hold a finished collective's work, and with it the collective's
tensors, for a moment after ``wait()`` returns. If Python drops those tensors
first, the worker thread drops the last reference and needs the GIL to free
them; if the main thread is by then inside ``destroy_process_group()`` (which
holds the GIL while it joins the worker threads), both wait forever. Seen on
torch 2.1 with gloo in about one teardown in ten right after a collective
(``tests/core/test_teardown.py``); torch fixed it in pytorch#154976 (June
2025: the destructor releases the GIL). So on torch before 2.9 every tensor
fairshard hands to a collective stays referenced from Python (:func:`retain`)
until later collectives replace it: the last ``RETAINED`` collectives'
buffers, at most about the size of one ``gather_in_order`` result.
"""

from __future__ import annotations

from collections import deque
from datetime import timedelta
from typing import Any

import torch

__all__ = [
    "all_gather_objects",
    "broadcast_int",
    "complete",
    "group_size",
    "process_group_active",
    "retain",
    "talks_to_group",
]

#: How many recent collectives' tensors :func:`retain` keeps (see the module's NOTE).
RETAINED = 3

_RETAIN = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2]) < (2, 9)
_retained: deque[tuple[Any, ...]] = deque(maxlen=RETAINED)


def retain(*tensors: Any) -> None:
    """Keep a collective's tensors referenced from Python (torch before 2.9; the module's NOTE).

    Call it right after issuing the collective, with every tensor (or list of
    tensors) handed to it, on success and on timeout alike.
    """
    if _RETAIN:
        _retained.append(tensors)


def process_group_active() -> bool:
    """True when a default ``torch.distributed`` process group is initialized."""
    return torch.distributed.is_available() and torch.distributed.is_initialized()


def group_size(group: Any = None) -> int:
    """The number of ranks of ``group`` (default: the default process group)."""
    return int(torch.distributed.get_world_size(group))


def talks_to_group(num_replicas: int, group: Any = None) -> bool:
    """Whether a sampler of ``num_replicas`` ranks may make collectives on ``group``.

    True only when a process group is initialized and ``group`` (default: the
    default group) has exactly ``num_replicas`` ranks: then every rank of the
    group holds such a sampler and makes the same call. Otherwise the sampler
    belongs to another world (one process, or a sub-group fairshard was not
    given) and must not communicate: it would wait for peers that never call,
    or pair with a collective of the user's. See the module's NOTE.
    """
    return process_group_active() and group_size(group) == num_replicas


def broadcast_int(value: int, src: int = 0, group: Any = None) -> int:
    """Broadcast a non-negative int below 2**63 from group rank ``src`` to every rank."""
    backend = torch.distributed.get_backend(group)
    device = _collective_device(backend)
    tensor = torch.tensor([value], dtype=torch.int64, device=device)
    global_src = src if group is None else torch.distributed.get_global_rank(group, src)
    torch.distributed.broadcast(tensor, src=global_src, group=group)
    retain(tensor)
    return int(tensor.item())


def _collective_device(backend: str) -> torch.device:
    if backend == "nccl" and torch.cuda.is_available():
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def all_gather_objects(obj: Any, timeout: float | None = None, group: Any = None) -> list[Any]:
    """All-gather one picklable object per rank, in rank order.

    Args:
        obj: This rank's object.
        timeout: Seconds to wait for the other ranks; ``None`` uses the
            process group's timeout. A dead or absent peer then raises
            instead of hanging.
        group: The process group (default: the default group).

    Raises:
        RankMismatchError: the peers did not all arrive within ``timeout``.
    """
    from .._errors import RankMismatchError

    out: list[Any] = [None] * group_size(group)
    if not _monitored_gather(out, obj, timeout, group):
        assert timeout is not None  # without one, a missing peer raises from wait()
        raise RankMismatchError(
            f"all_gather of {type(obj).__name__} did not complete within {timeout:.1f}s: "
            "at least one rank did not reach the same call (it died, hangs, or skipped it); "
            "raise the timeout or check the other ranks' logs"
        )
    return out


def _monitored_gather(out: list[Any], obj: Any, timeout: float | None, group: Any = None) -> bool:
    """Run ``all_gather_object`` under a ``monitored_barrier``-style deadline.

    Its own two all-gathers rather than torch's ``all_gather_object``, so
    that every tensor they use can be retained (the module's NOTE) and a
    deadline can be set.
    """
    import pickle

    device = _collective_device(torch.distributed.get_backend(group))  # nccl: CUDA tensors
    payload = torch.frombuffer(bytearray(pickle.dumps(obj)), dtype=torch.uint8).to(device)
    sizes = [torch.zeros(1, dtype=torch.int64, device=device) for _ in out]
    size = torch.tensor([payload.numel()], dtype=torch.int64, device=device)
    work = torch.distributed.all_gather(sizes, size, group=group, async_op=True)
    retain(sizes, size, payload)
    if work is None or not _wait(work, timeout):
        return False
    longest = int(max(s.item() for s in sizes))
    padded = torch.zeros(longest, dtype=torch.uint8, device=device)
    padded[: payload.numel()] = payload
    buffers = [torch.zeros(longest, dtype=torch.uint8, device=device) for _ in out]
    work = torch.distributed.all_gather(buffers, padded, group=group, async_op=True)
    retain(buffers, padded)
    if work is None or not _wait(work, timeout):
        return False
    for i, (buf, s) in enumerate(zip(buffers, sizes, strict=True)):
        out[i] = pickle.loads(buf[: int(s.item())].cpu().numpy().tobytes())
    return True


def complete(work: Any, timeout: float | None, what: str) -> None:
    """Wait for an async collective; raise instead of hanging past ``timeout``.

    Args:
        work: The handle an ``async_op=True`` collective returned.
        timeout: Seconds to wait; ``None`` waits as long as the process group does.
        what: The operation, for the error message.

    Raises:
        RankMismatchError: no handle, or the peers did not arrive in time.
    """
    from .._errors import RankMismatchError

    if work is None:
        raise RankMismatchError(f"the process group returned no work handle for {what}")
    if not _wait(work, timeout):
        assert timeout is not None
        raise RankMismatchError(
            f"{what} did not complete within {timeout:.1f}s: at least one rank did not "
            "reach it; check the other ranks' logs"
        )


def _wait(work: Any, timeout: float | None) -> bool:
    if timeout is None:  # the process group's timeout: a missing peer raises
        work.wait()
        return True
    try:
        return bool(work.wait(timeout=timedelta(seconds=timeout)))
    except RuntimeError:
        return False
