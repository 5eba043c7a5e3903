"""One derivation for every random stream fairshard uses.

NOTE (derivation): a stream is named by ``(stream_id, sub_id, epoch, seed)``.
The four values are written as eight 32-bit words -- varying ids first, the
root seed last, every value in exactly two words -- and handed to numpy's
``SeedSequence``. Fixed-length entropy means no two names collide (unlike
``seed + epoch``, where seed 0 at epoch 1 equals seed 1 at epoch 0), and
putting the root seed last follows numpy's advice for spawning independent
streams. Plans never use the rank, the world size, the process or any global
RNG, so every rank derives the same stream without communicating.

NOTE (compatibility policy): the sequence a ``(config, seed, epoch)`` produces
changes only as docs/compatibility.md, the one statement of the policy,
allows (``tests/golden`` pins it): a change to any derivation, permutation or
plan algorithm is made on purpose, regenerates the golden files in the same
commit and is listed in the changelog.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._errors import check_int

__all__ = [
    "DEFAULT_SEED",
    "StreamId",
    "normalize_seed",
    "sample_seed",
    "stream_generator",
    "stream_words",
]

#: Seed used when ``seed=None`` and no process group exists to agree on one.
DEFAULT_SEED = 0

_U64 = 1 << 64
_U32_MASK = (1 << 32) - 1


class StreamId:
    """Random stream ids. Values are part of the compatibility policy: never reuse one."""

    PERMUTATION = 1
    WEIGHTED_REPLACEMENT = 2
    WEIGHTED_NO_REPLACEMENT = 3
    CLASS_BATCH = 4
    LENGTH_BUCKET = 5
    TOKEN_BUDGET = 6
    WRAPPED = 7
    SPLIT = 8
    ITERABLE = 9
    HARD_EXAMPLE = 10
    BATCH_ORDER = 11
    MIXTURE = 12
    PACKING = 13
    LOCALITY = 14
    SHUFFLE_BUFFER = 15
    SAMPLE = 16
    GROUP_SPLIT = 17
    SHAPE_BUCKET = 18
    KEY_BATCH = 19
    MIGRATE = 20


def normalize_seed(seed: object, name: str = "seed") -> int:
    """Check a user seed and map it to ``[0, 2**64)`` (two's complement for negatives).

    Any int in ``[-2**63, 2**64)`` is accepted, the range ``torch.Generator``
    accepts.
    """
    value = check_int(name, seed, minimum=-(1 << 63), maximum=_U64 - 1)
    return value % _U64


def _entropy(stream_id: int, sub_id: int, epoch: int, seed: int) -> list[int]:
    words: list[int] = []
    for value in (stream_id, sub_id, epoch, seed % _U64):
        value %= _U64
        words.extend((value & _U32_MASK, value >> 32))
    return words


# numpy's SeedSequence constants (numpy/random/bit_generator.pyx).
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4


def _seed_pool(entropy: list[int]) -> list[int]:
    """``SeedSequence(entropy).pool`` for a list of 32-bit words, in pure Python."""
    const = _INIT_A

    def hashmix(value: int) -> int:
        nonlocal const
        value ^= const
        const = (const * _MULT_A) & _U32_MASK
        value = (value * const) & _U32_MASK
        return value ^ (value >> 16)

    def mix(x: int, y: int) -> int:
        r = (_MIX_L * x - _MIX_R * y) & _U32_MASK
        return r ^ (r >> 16)

    pool = [hashmix(entropy[i] if i < len(entropy) else 0) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL, len(entropy)):
        for dst in range(_POOL):
            pool[dst] = mix(pool[dst], hashmix(entropy[src]))
    return pool


def stream_words(
    stream_id: int, epoch: int, seed: int, count: int, *, sub_id: int = 0
) -> NDArray[np.uint64]:
    """Return ``count`` 64-bit words of the stream ``(stream_id, sub_id, epoch, seed)``.

    NOTE (fresh-process resume): these are exactly
    ``SeedSequence(entropy).generate_state(count, np.uint64)`` (a test checks
    it against numpy), computed in pure Python: importing ``numpy.random``
    costs several milliseconds, which was most of what resuming a lazy
    sampler in a new process cost. Only the samplers that need a generator
    (``stream_generator``) import it.
    """
    pool = _seed_pool(_entropy(stream_id, sub_id, epoch, seed))
    const = _INIT_B
    halves: list[int] = []
    for i in range(2 * count):
        value = pool[i % _POOL] ^ const
        const = (const * _MULT_B) & _U32_MASK
        value = (value * const) & _U32_MASK
        halves.append(value ^ (value >> 16))
    words = [lo | (hi << 32) for lo, hi in zip(halves[::2], halves[1::2], strict=True)]
    return np.array(words, dtype=np.uint64)


def stream_generator(
    stream_id: int, epoch: int, seed: int, *, sub_id: int = 0
) -> np.random.Generator:
    """Return a PCG64 generator over the stream ``(stream_id, sub_id, epoch, seed)``."""
    seq = np.random.SeedSequence(_entropy(stream_id, sub_id, epoch, seed))
    return np.random.Generator(np.random.PCG64(seq))


def sample_seed(seed: int, epoch: int, index: int) -> int:
    """A 64-bit seed of its own for dataset item ``index`` in ``epoch``.

    The word of the stream ``(StreamId.SAMPLE, sub_id=index, epoch, seed)``: a
    function of those three values alone -- not of the worker, rank, world
    size or resume point that serves the item -- so an augmentation drawn
    from it is the same however the item is reached. One derivation, no
    ``seed + index`` (whose seeds collide across epochs and items).

    Example:
        >>> sample_seed(0, 0, 7) == sample_seed(0, 0, 7) != sample_seed(0, 1, 7)
        True
    """
    root = normalize_seed(seed)
    epoch = check_int("epoch", epoch, minimum=0)
    index = check_int("index", index, minimum=0)
    return int(stream_words(StreamId.SAMPLE, epoch, root, 1, sub_id=index)[0])
