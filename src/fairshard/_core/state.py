"""The one state protocol every fairshard sampler shares.

A state is plain, JSON-serializable data (plus numpy arrays for samplers with
learned state, such as hard-example scores)::

    {
        "format": "fairshard.sampler",   # marks a fairshard state
        "version": 1,                    # STATE_VERSION
        "kind": "DistributedSampler",    # the sampler class
        "config": {...},                 # everything the plan depends on
        "seed": 0, "epoch": 3,
        "start": 0,                      # first plan position of the partition
        "steps": 1250,                   # items (or batches) this rank consumed
        "world_size": 8, "rank": 0,      # where it was saved (informational
                                         # except for the blocked layout)
        "extra": {...},                  # sampler-specific learned state
        "checksum": "...",               # detects hand-edited or corrupted states
    }

Keys are the constants below; subclasses never touch them, they only supply
``extra``.

NOTE (one state per job): the checksum covers every field but ``rank``,
the one field in which the states of a job's ranks differ at a step
boundary (where it was saved; informational). ``torch.distributed.checkpoint``
deduplicates a state dict leaf by leaf across ranks, so it may store one
rank's ``rank`` beside another rank's other fields: that is still the job's
state, and it loads. States sealed over ``rank`` as well (fairshard before
this rule) keep loading.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from .._distributed.digest import digest, encode, encode_scalar, is_plain
from .._errors import StateDictError
from .partition import Layout, Partition, Tail

__all__ = [
    "FORMAT",
    "STATE_VERSION",
    "Sealer",
    "check_config",
    "digest",
    "field",
    "resume_point",
    "seal",
    "unseal",
]

FORMAT = "fairshard.sampler"
STATE_VERSION = 1

K_FORMAT = "format"
K_VERSION = "version"
K_KIND = "kind"
K_CONFIG = "config"
K_SEED = "seed"
K_EPOCH = "epoch"
K_START = "start"
K_STEPS = "steps"
K_WORLD = "world_size"
K_RANK = "rank"
K_EXTRA = "extra"
K_CHECKSUM = "checksum"

_REQUIRED: dict[str, type | tuple[type, ...]] = {
    K_FORMAT: str,
    K_VERSION: int,
    K_KIND: str,
    K_CONFIG: dict,
    K_SEED: int,
    K_EPOCH: int,
    K_START: int,
    K_STEPS: int,
    K_WORLD: int,
    K_RANK: int,
    K_EXTRA: dict,
    K_CHECKSUM: str,
}


def _checked(body: Mapping[str, Any]) -> dict[str, Any]:
    """The fields the checksum covers: all but the checksum and ``rank`` (see the NOTE)."""
    return {k: v for k, v in body.items() if k not in (K_CHECKSUM, K_RANK)}


def seal(state: dict[str, Any]) -> dict[str, Any]:
    """Add the format marker, version and checksum to ``state``."""
    body = {K_FORMAT: FORMAT, K_VERSION: STATE_VERSION, **state}
    body[K_CHECKSUM] = digest(_checked(body))
    return body


def _key(name: str) -> bytes:
    return encode_scalar(name)


_OPEN_CONFIG = b"{" + _key(K_CONFIG)
_EPOCH, _EXTRA = _key(K_EPOCH), _key(K_EXTRA)
_FORMAT = _key(K_FORMAT) + encode_scalar(FORMAT) + _key(K_KIND)
_SEED, _START, _STEPS = _key(K_SEED), _key(K_START), _key(K_STEPS)
_VERSION_WORLD = _key(K_VERSION) + encode_scalar(STATE_VERSION) + _key(K_WORLD)


class Sealer:
    """``seal`` for one sampler's successive states, paying only for what changed.

    A sampler's ``state_dict()`` runs at every step under
    ``StatefulDataLoader(snapshot_every_n_steps=1)``, and between two calls
    only the cursor usually moves. The checksum is ``digest`` of the body,
    byte for byte (frozen states pin it); what repeats is kept:

    - the config's canonical bytes, reused while ``repr(config)`` is the
      same and the kept config was plain data (then equal ``repr`` means
      equal values of equal types, so equal bytes: a changed attribute is
      never hashed as its old value);
    - the hash state after the body's prefix ``config``, ``epoch``,
      ``extra`` (sorted keys put them first), reused while their bytes are
      the same, so a large learned state (hard-example scores) is hashed
      once per change, not once per snapshot.

    A copy or pickle of a sampler starts with nothing kept.
    """

    __slots__ = ("_config_bytes", "_config_repr", "_prefix", "_prefix_hash")

    def __init__(self) -> None:
        self._config_repr: str | None = None
        self._config_bytes = b""
        self._prefix: tuple[bytes, int, bytes] | None = None
        self._prefix_hash: Any = None

    def __reduce__(self) -> tuple[Any, ...]:
        return (Sealer, ())

    def config_bytes(self, config: dict[str, Any]) -> bytes:
        """``encode(config)``, reused while the config is the same plain data."""
        text = repr(config)
        if text == self._config_repr:
            return self._config_bytes
        encoded = encode(config)
        if is_plain(config):
            self._config_repr, self._config_bytes = text, encoded
        return encoded

    def seal(
        self,
        kind: str,
        config: dict[str, Any],
        seed: int,
        epoch: int,
        start: int,
        steps: int,
        world_size: int,
        rank: int,
        extra: dict[str, Any],
        extra_bytes: bytes | None = None,
    ) -> dict[str, Any]:
        """``seal`` of the state these fields make (same dict, same checksum).

        ``extra_bytes``: ``encode(extra)`` where the caller keeps it.
        """
        config_bytes = self.config_bytes(config)
        if extra_bytes is None:
            extra_bytes = encode(extra)
        prefix = self._prefix
        if (
            prefix is not None
            and prefix[1] == epoch
            and type(epoch) is int
            and (prefix[0] is config_bytes or prefix[0] == config_bytes)
            and (prefix[2] is extra_bytes or prefix[2] == extra_bytes)
        ):
            hashed = self._prefix_hash.copy()
        else:
            hashed = hashlib.sha256(_OPEN_CONFIG)
            hashed.update(config_bytes)
            hashed.update(_EPOCH + encode_scalar(epoch) + _EXTRA)
            hashed.update(extra_bytes)
            if type(epoch) is int:
                self._prefix, self._prefix_hash = (config_bytes, epoch, extra_bytes), hashed.copy()
        hashed.update(
            b"".join(
                (
                    _FORMAT,
                    encode_scalar(kind),
                    _SEED,  # no rank: the checksum leaves it out (see the NOTE)
                    encode_scalar(seed),
                    _START,
                    encode_scalar(start),
                    _STEPS,
                    encode_scalar(steps),
                    _VERSION_WORLD,
                    encode_scalar(world_size),
                    b"}",
                )
            )
        )
        return {
            K_FORMAT: FORMAT,
            K_VERSION: STATE_VERSION,
            K_KIND: kind,
            K_CONFIG: config,
            K_SEED: seed,
            K_EPOCH: epoch,
            K_START: start,
            K_STEPS: steps,
            K_WORLD: world_size,
            K_RANK: rank,
            K_EXTRA: extra,
            K_CHECKSUM: hashed.hexdigest()[:16],
        }


def field(state: Mapping[str, Any], key: str) -> Any:
    """``state[key]``, or a StateDictError naming the missing key."""
    try:
        return state[key]
    except KeyError:
        raise StateDictError(
            f"state_dict has no {key!r} entry; pass the dict returned by "
            "sampler.state_dict() unchanged"
        ) from None


def unseal(state: Any, kind: str) -> dict[str, Any]:
    """Validate a state's structure, marker, version, kind and checksum.

    Raises:
        StateDictError: anything about the state is off; the message says what.
    """
    if not isinstance(state, Mapping):
        raise StateDictError(
            f"state_dict must be a dict, got {type(state).__name__}; pass the dict "
            "returned by sampler.state_dict()"
        )
    if state.get(K_FORMAT) != FORMAT:
        raise StateDictError(
            f"state_dict is not a fairshard sampler state (format={state.get(K_FORMAT)!r}, "
            f"expected {FORMAT!r}); it may come from another library or another component"
        )
    for key, types in _REQUIRED.items():
        value = field(state, key)
        if isinstance(value, bool) or not isinstance(value, types):
            raise StateDictError(
                f"state_dict[{key!r}] has type {type(value).__name__}, expected "
                f"{getattr(types, '__name__', types)}; the state was modified or corrupted"
            )
    extra_keys = sorted(set(state) - set(_REQUIRED))
    if extra_keys:
        raise StateDictError(
            f"state_dict has unknown entries {extra_keys}; it was modified, or comes "
            "from a newer fairshard"
        )
    version = state[K_VERSION]
    if version != STATE_VERSION:
        newer = "a newer" if version > STATE_VERSION else "an older"
        raise StateDictError(
            f"state_dict has version={version}, this fairshard reads version="
            f"{STATE_VERSION}; it was saved by {newer} fairshard: load it with that version"
        )
    if state[K_KIND] != kind:
        raise StateDictError(
            f"state_dict was saved by a {state[K_KIND]}, not a {kind}; load it into a "
            f"{state[K_KIND]} built with the same arguments"
        )
    body = {k: v for k, v in state.items() if k != K_CHECKSUM}
    try:
        # This rule's checksum, or the one over ``rank`` too that older states carry.
        actual = digest(_checked(body))
        if actual != state[K_CHECKSUM]:
            actual = digest(body)
    except (TypeError, ValueError) as exc:  # json.dumps of a set, bytes, object, ...
        raise StateDictError(
            f"state_dict holds a value that is not plain data ({exc}); it was modified or "
            "corrupted after sampler.state_dict() produced it"
        ) from None
    if actual != state[K_CHECKSUM]:
        raise StateDictError(
            "state_dict checksum does not match its contents: it was modified or "
            "corrupted after sampler.state_dict() produced it"
        )
    for key in (K_SEED, K_EPOCH, K_START, K_STEPS, K_RANK):
        if key != K_SEED and state[key] < 0:
            raise StateDictError(f"state_dict[{key!r}] must be >= 0, got {state[key]}")
    if state[K_WORLD] < 1:
        raise StateDictError(f"state_dict['world_size'] must be >= 1, got {state[K_WORLD]}")
    if state[K_RANK] >= state[K_WORLD]:
        raise StateDictError(
            f"state_dict['rank']={state[K_RANK]} is not below state_dict['world_size']="
            f"{state[K_WORLD]}: no such rank exists, the state is corrupted"
        )
    return dict(state)


_HINTS = {
    "n": "the dataset changed size since the state was saved; resume with the same dataset",
    "draw": "the state was saved by a fairshard version with another plan draw; resume with "
    "that version",
}


def _same(a: Any, b: Any) -> bool:
    """``a == b`` as one bool; values whose ``==`` is not a bool (arrays) differ."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def check_config(saved: Mapping[str, Any], current: Mapping[str, Any]) -> None:
    """Raise naming the first field where ``saved`` and ``current`` differ."""
    for key in sorted(set(saved) | set(current)):
        if key not in saved or key not in current or not _same(saved[key], current[key]):
            hint = _HINTS.get(key, f"build the sampler with {key}={saved.get(key)!r} to resume")
            raise StateDictError(
                f"state_dict was saved with {key}={saved.get(key)!r} but this sampler has "
                f"{key}={current.get(key)!r}; {hint}"
            )


def resume_point(
    state: Mapping[str, Any], total: int, layout: Layout, tail: Tail, num_replicas: int, rank: int
) -> tuple[int, int, bool]:
    """Where the next pass of an unsealed state's epoch starts on ``num_replicas`` ranks.

    Args:
        state: An unsealed state.
        total: The plan length of the state's epoch.
        layout: The sampler's layout.
        tail: The sampler's tail.
        num_replicas: The world size it resumes on.
        rank: The rank it resumes on.

    Returns:
        ``(start, steps, complete)``: the first plan position of the new
        partition, the local steps already taken in it, and whether the
        saved epoch is complete for this rank (then ``start == total``:
        nothing is left). Under ``tail='uneven'`` ranks take different
        step counts: on the same world size a rank whose own share is done
        is complete even when the largest share is not.

    Raises:
        StateDictError: positions beyond the epoch, or an elastic resume of
            the blocked layout.
    """
    start, steps, saved_world = state[K_START], state[K_STEPS], state[K_WORLD]
    if start > total:
        raise StateDictError(f"state_dict['start']={start} is beyond the epoch's {total} positions")
    saved = Partition(total, saved_world, layout, tail, start)
    if steps > saved.max_items:
        raise StateDictError(
            f"state_dict['steps']={steps} exceeds the {saved.max_items} items a rank "
            f"takes in that epoch on {saved_world} ranks; the state does not match this data"
        )
    own = saved.num_items(rank) if saved_world == num_replicas else saved.max_items
    if steps >= own:
        # The epoch is complete: resume with nothing left of it, on any world size.
        # len() is 0 and set_epoch(epoch) does not replay it; set_epoch(epoch + 1)
        # (or auto_epoch) starts the next one.
        return total, 0, True
    if saved_world == num_replicas:
        return start, steps, False
    if layout != "strided":
        raise StateDictError(
            f"state_dict was saved on world_size={saved_world} with layout={layout!r}, which "
            f"resumes only on the same world size (now {num_replicas}); use "
            "layout='strided' for elastic resume"
        )
    return saved.consumed_after(steps), 0, False
