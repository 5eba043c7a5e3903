"""Give the memory a plan build freed back to the operating system.

A plan or table build at 10**7 items allocates and frees hundreds of MB of
temporaries (sort keys, gathers, masks). glibc's allocator serves arrays
below its dynamic mmap threshold (up to 32 MiB) from the heap and keeps what
they free there: in measurements at 1e7 items a rank that had built a
packing plan held 45 MiB of freed heap beside the 100 MiB it uses, so a node
where one rank builds and seven map the plan still counted the builder's
peak. :func:`release_freed_memory` calls ``malloc_trim(0)`` once after each
build; it returns free pages (a few ms) and changes no live allocation.

NOTE (portability): only glibc has ``malloc_trim``; elsewhere (musl, macOS)
this is a no-op and the allocator keeps whatever it keeps.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import cache

__all__ = ["release_freed_memory"]


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:  # the symbols already in this process (the C library it runs on)
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):  # pragma: no cover - no glibc (TypeError: Windows)
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_freed_memory() -> bool:
    """Return the heap's free pages to the OS; ``True`` where the allocator can (glibc)."""
    trim = _malloc_trim()
    if trim is None:  # pragma: no cover - not glibc
        return False
    trim(0)
    return True
