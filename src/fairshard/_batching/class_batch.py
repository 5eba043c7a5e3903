"""``ClassBatchSampler``: every batch has exactly the requested count of each class.

Two compositions:
    fixed: every batch holds ``samples_per_class[c]`` samples of every
        requested class ``c`` (``classes_per_batch=None``);
    P x K: every batch draws ``classes_per_batch = P`` distinct classes and
        takes ``samples_per_class`` (``K``, or the class's own count from a
        mapping) samples of each -- metric learning's usual batch.

Within a class, samples are drawn without replacement until the class is
exhausted. What happens then is the ``policy``:
    ``"stop"``: the epoch ends when a needed class runs out, so no index
        repeats within an epoch and the length is exact: ``min_c n_c // k_c``
        batches (fixed), or as long as ``P`` classes still have ``K`` samples
        left (P x K; classes are drawn in proportion to what they have left,
        so they deplete together).
    ``"recycle"``: an exhausted class is reshuffled and continues (a batch
        never holds one sample twice). The epoch has ``num_batches`` batches,
        by default as many as the largest class needs to be seen once
        (fixed: ``max_c ceil(n_c / k_c)``). In P x K mode classes are drawn
        uniformly, so the default is one dataset's worth of samples instead
        (``ceil(sum_c n_c / (P * mean k))``): tying it to the largest class
        would make epochs of long-tailed data explode.

Inside a batch, samples are grouped by class in sorted class order.

NOTE (draws): the config records the sampler's ``draw`` (``class_draw``;
the base's NOTE on draws): draw 2 shuffles the epoch's chunks at once where
draw 1 drew a P x K stop batch per Python step (and sorted uniforms for a
recycled class's passes). A state saved without the field comes from draw
1: loading it switches the sampler to draw 1, which it keeps; a new sampler
uses draw 2.

This is the tutorials' "fixed number of samples per class in every batch"
(often written by hand as a ``FixedClassSampler``): ``ClassBatchSampler(
labels, {0: 12, 1: 2, 2: 2}, batch_size=16)`` gives 12 + 2 + 2 per batch,
with an exact ``len()``. It yields batches: pass it as ``batch_sampler=``
(passed as ``sampler=`` it raises at ``iter()``, see ``base``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from .._core import state as S
from .._core.labels import code_dtype, encode_labels
from .._core.partition import Tail
from .._core.plan_share import shared_tables
from .._core.plans import BatchPlan
from .._distributed.digest import AsDtype
from .._errors import ConfigError, ConfigTypeError, check_choice, check_int
from .._random.seeding import StreamId, stream_generator
from .base import BatchPlanSampler
from .class_draw import (
    DRAWS,
    choose_recycle,
    choose_stop,
    choose_stop_shuffled,
    class_stream,
    group_members,
    group_order,
    split_groups,
)

__all__ = ["POLICIES", "ClassBatchSampler"]

ClassPolicy = Literal["stop", "recycle"]
POLICIES: tuple[ClassPolicy, ...] = ("stop", "recycle")


class ClassBatchSampler(BatchPlanSampler[BatchPlan]):
    """Batches with an exact class composition; whole batches per rank.

    Args:
        labels: One class label per dataset item: ints or strings (list,
            numpy array or tensor).
        samples_per_class: An int ``K`` (every requested class gives ``K``
            samples per batch) or a mapping ``{class: count}`` (only those
            classes are used).
        classes_per_batch: ``P``: draw ``P`` classes per batch instead of
            using every class in every batch.
        batch_size: Optional check: the batch size the counts must add up to
            (``sum`` of the mapping, ``K`` times the number of classes, or
            ``P x K``); a mismatch is an error that shows the sum.
        policy: ``"stop"`` or ``"recycle"`` (see the module docstring).
        num_batches: Epoch length for ``"recycle"`` (default: see above).
        num_replicas: World size; detected when ``None``.
        rank: This rank; detected when ``None``.
        seed: Root seed, identical on every rank.
        tail: ``"pad"`` (recycle whole batches from the head), ``"drop"`` or,
            for evaluation, ``"uneven"``.
        auto_epoch: Advance the epoch by itself after each complete pass.
        group: The data-parallel group (``ProcessGroup`` or ``DeviceMesh``),
            e.g. ``mesh["dp"]``: the world and its collectives (docs/parallelism.md).

    Raises:
        ConfigError: a class cannot fill one batch (the message names the
            class, its count and the request), an unknown class, bad sizes.
        ConfigTypeError: labels or counts of the wrong type, or more than two
            positional arguments (every other argument is named: the message
            shows the call written out).

    Example:
        >>> labels = ["cat", "dog", "cat", "dog", "cat", "bird"]
        >>> s = ClassBatchSampler(labels, {"cat": 2, "dog": 1}, num_replicas=1, rank=0)
        >>> [[labels[i] for i in b] for b in s]
        [['cat', 'cat', 'dog']]
    """

    kind = "ClassBatchSampler"
    _DRAWS = DRAWS

    def __init__(
        self,
        labels: Any,
        samples_per_class: int | Mapping[Any, int],
        *positional: Any,
        classes_per_batch: int | None = None,
        batch_size: int | None = None,
        policy: ClassPolicy = "stop",
        num_batches: int | None = None,
        num_replicas: int | None = None,
        rank: int | None = None,
        seed: int | None = 0,
        tail: Tail = "pad",
        auto_epoch: bool = False,
        group: Any = None,
    ) -> None:
        if positional:
            raise _positional_error(positional, samples_per_class)
        super().__init__(
            num_replicas=num_replicas,
            rank=rank,
            seed=seed,
            tail=tail,
            auto_epoch=auto_epoch,
            group=group,
        )
        self.classes, codes = encode_labels(labels, narrow=True)  # (n,) uint16 for <= 2**16
        self.policy: ClassPolicy = check_choice("policy", policy, POLICIES)
        self.counts = self._parse_counts(samples_per_class)  # (C,) k_c, 0 = unused
        self.samples_per_class = samples_per_class
        # NOTE (memory): the sampler keeps the members (int32 indices, by class), not
        # the codes; the labels' digest is the one of their int64 codes (saved states
        # name it), hashed block by block.
        wide = AsDtype(codes, np.dtype(np.int64))
        self._digest = S.digest([wide, [str(c) for c in self.classes]])
        # Built once per node where plans are shared (read-only mappings), else per rank.
        grouped = shared_tables(
            {"kind": self.kind, "tables": "members", "labels": self._digest},
            lambda codes: dict(
                zip(("order", "bounds"), group_order(codes, len(self.classes)), strict=True)
            ),
            codes,
        )
        self._members = split_groups(grouped["order"], grouped["bounds"])
        del codes, grouped
        sizes = np.array([m.size for m in self._members], dtype=np.int64)
        self._used = np.flatnonzero(self.counts > 0)
        for c in self._used.tolist():
            if sizes[c] < self.counts[c]:
                raise ConfigError(
                    f"class {self.classes[c]!r} has {sizes[c]} sample(s) but samples_per_class "
                    f"asks for {self.counts[c]} per batch, so it cannot fill even one batch; "
                    "lower its count or leave the class out (pass a mapping without it)"
                )
        self.classes_per_batch = (
            None
            if classes_per_batch is None
            else check_int(
                "classes_per_batch",
                classes_per_batch,
                minimum=1,
                maximum=int(self._used.size),
                fix=f"there are {self._used.size} usable classes",
            )
        )
        self.batch_size = self._check_batch_size(batch_size)
        if num_batches is not None and self.policy == "stop":
            raise ConfigError(
                f"num_batches={num_batches!r} sets the epoch length of policy='recycle'; with "
                "policy='stop' the epoch ends when a class runs out. Drop num_batches or use "
                "policy='recycle'"
            )
        self._sizes = sizes
        self._recycle_length: int | None = (
            check_int("num_batches", num_batches, minimum=1)
            if num_batches is not None
            else self._default_length()
        )

    def _parse_counts(self, samples_per_class: Any) -> NDArray[np.int64]:
        counts = np.zeros(len(self.classes), dtype=np.int64)
        if isinstance(samples_per_class, Mapping):
            if not samples_per_class:
                raise ConfigError("samples_per_class is an empty mapping; name at least one class")
            index = {c: i for i, c in enumerate(self.classes)}
            for cls, count in samples_per_class.items():
                key = cls.item() if isinstance(cls, np.generic) else cls
                if key not in index:
                    shown = ", ".join(repr(c) for c in self.classes[:10])
                    raise ConfigError(
                        f"samples_per_class names class {key!r}, which no label has; the "
                        f"labels' classes are {shown}{' ...' if len(self.classes) > 10 else ''}"
                    )
                counts[index[key]] = check_int(
                    f"samples_per_class[{key!r}]",
                    count,
                    minimum=1,
                    fix="leave a class out of the mapping instead of giving it 0",
                )
            return counts
        counts[:] = check_int("samples_per_class", samples_per_class, minimum=1)
        return counts

    def _check_batch_size(self, batch_size: int | None) -> int | None:
        """Every batch's size (``None`` when P x K batches vary), checked against ``batch_size``."""
        k = self.counts[self._used]  # (classes used,)
        if self.classes_per_batch in (None, self._used.size):  # every class in every batch
            size: int | None = int(k.sum())
            parts = " + ".join(
                f"{int(self.counts[c])} ({self.classes[c]!r})" for c in self._used.tolist()[:8]
            ) + (" + ..." if self._used.size > 8 else "")
        elif np.all(k == k[0]):
            size = self.classes_per_batch * int(k[0])
            parts = f"classes_per_batch={self.classes_per_batch} x {int(k[0])}"
        else:
            size, parts = None, ""
        if batch_size is None:
            return size
        wanted = check_int("batch_size", batch_size, minimum=1)
        if size == wanted:
            return size
        if size is None:
            raise ConfigError(
                f"batch_size={wanted} but with classes_per_batch={self.classes_per_batch} and "
                "different counts per class the batch size varies with the classes drawn; "
                "give every class the same count, or drop batch_size"
            )
        fix = "make the per-class counts add up to batch_size, or drop batch_size"
        if isinstance(self.samples_per_class, int) and wanted % int(k[0]) == 0:
            fix = (
                f"for {wanted // int(k[0])} classes of {int(k[0])} per batch pass "
                f"classes_per_batch={wanted // int(k[0])}, or drop batch_size"
            )
        raise ConfigError(
            f"batch_size={wanted} but samples_per_class gives {size} per batch ({parts}); {fix}"
        )

    def _default_length(self) -> int | None:
        k, n = self.counts[self._used], self._sizes[self._used]
        if self.policy == "stop":
            return None  # decided by the draw (exact, computed with the plan)
        if self.classes_per_batch is None:
            return int((-(-n // k)).max())
        mean_k = k.sum() / k.size
        return max(1, int(np.ceil(n.sum() / (self.classes_per_batch * mean_k))))

    def _config(self) -> dict[str, Any]:
        config = {
            "labels": self._digest,
            "samples_per_class": S.digest(
                [[str(self.classes[c]), int(self.counts[c])] for c in self._used.tolist()]
            ),
            "classes_per_batch": self.classes_per_batch,
            "policy": self.policy,
            "num_batches": self._recycle_length,
        }
        return {**config, **self._draw_config()}  # draw 1's states have no field

    def _shares_plan(self) -> bool:
        return True

    def _build_plan(self, epoch: int) -> BatchPlan:
        rng = stream_generator(StreamId.CLASS_BATCH, epoch, self.seed)
        used, k = self._used, self.counts
        if self.classes_per_batch is None:
            if self.policy == "stop":
                batches = int((self._sizes[used] // k[used]).min())
            else:
                batches = self._recycle_length or 0
            return self._assemble_fixed(batches, rng)
        if self.policy == "stop":
            choose = choose_stop if self._draw == 1 else choose_stop_shuffled
            picks = choose(self._sizes[used] // k[used], self.classes_per_batch, rng)
        else:
            picks = choose_recycle(
                used.size, self.classes_per_batch, self._recycle_length or 0, rng
            )
        chosen = used.astype(code_dtype(len(self.classes)))[picks]
        del picks
        return self._assemble(chosen, rng)

    def _stream(self, c: int, chunks: int, rng: np.random.Generator) -> NDArray[np.integer[Any]]:
        """Class ``c``'s samples for ``chunks`` batches: (chunks, k_c) dataset indices."""
        k = int(self.counts[c])
        stream = class_stream(self._members[c], chunks * k, k, rng, self._draw)
        return stream.reshape(chunks, k)

    def _assemble_fixed(self, batches: int, rng: np.random.Generator) -> BatchPlan:
        """``batches`` batches of every used class: CSR batches, each class's stream in its columns.

        NOTE (memory): every batch has the same size, so the plan is a
        (batches, size) array whose columns of class ``c`` hold its stream in
        order; the streams are written there one class at a time (drawn in
        class order, as the generator has always been read), with no entry
        arrays of the plan's size.
        """
        size = int(self.counts[self._used].sum())
        flat = np.empty(batches * size, dtype=np.int64)
        table = flat.reshape(batches, size)
        column = 0
        for c in self._used.tolist() if batches else []:
            k = int(self.counts[c])
            table[:, column : column + k] = self._stream(c, batches, rng)
            column += k
        offsets = np.arange(batches + 1, dtype=np.int64)
        offsets *= size
        return BatchPlan(flat, offsets)

    def _assemble(self, chosen: NDArray[np.integer[Any]], rng: np.random.Generator) -> BatchPlan:
        """Turn (num_batches, P) class codes into CSR batches of samples.

        Entry ``e`` (batch ``e // P``, its ``e % P``-th class ``c``) takes chunk
        ``j`` of class ``c``'s stream, ``j`` the number of earlier entries of
        ``c``. The entries are grouped by class with one stable sort (radix, as
        uint16 where the codes fit), and each class's stream is written
        straight to its entries' places in the plan.

        NOTE (memory, speed): beside the plan, this holds the narrow class
        codes and the (entries,) int32 entry numbers by class (and, when the
        chunk sizes differ, the entries' int64 starts), not the pool of all
        streams and an int64 gather of the plan's size. With one chunk size a
        class's chunks are written as whole rows of the plan seen as an
        (entries, K) table: one index per chunk.
        """
        per_batch = chosen.shape[1]  # P >= 1
        cls = chosen.reshape(-1)  # (entries,) batch-major
        k = self.counts
        uses = np.bincount(cls, minlength=len(self.classes))  # chunks each class gives
        by_class = group_members(cls, len(self.classes))  # each class's entries, in order
        given = k[uses > 0]  # (classes drawn,) samples per chunk
        uniform = bool(given.size) and bool((given == given[0]).all())
        starts = np.zeros(0 if uniform else cls.size + 1, dtype=np.int64)  # where entries begin
        if uniform:
            offsets = np.arange(chosen.shape[0] + 1, dtype=np.int64)
            offsets *= per_batch * int(given[0])
        else:
            np.cumsum(k[cls], out=starts[1:])
            offsets = starts[::per_batch].copy()  # (num_batches + 1,)
        flat = np.empty(int(offsets[-1]), dtype=np.int64)
        for c in np.flatnonzero(uses).tolist():
            entries = by_class[c]
            stream = self._stream(c, int(uses[c]), rng)  # (uses, k_c)
            if uniform:  # one chunk size: the entries are whole rows of an (entries, K) table
                flat.reshape(cls.size, -1)[entries] = stream
            else:
                flat[starts[entries][:, None] + np.arange(stream.shape[1])] = stream
        return BatchPlan(flat, offsets)


def _positional_error(extra: tuple[Any, ...], samples_per_class: Any) -> ConfigTypeError:
    """The error for ``ClassBatchSampler(labels, counts, 16)``: show the call with names."""
    value, head = extra[0], f"ClassBatchSampler(labels, {samples_per_class!r}, "
    how = f"{head}batch_size={value!r}) (the size the counts must add up to)"
    if not isinstance(samples_per_class, Mapping):
        how += (
            f" or {head}classes_per_batch={value!r}) ({value!r} classes of "
            f"{samples_per_class!r} samples per batch)"
        )
    given = ", ".join(repr(v) for v in extra)
    return ConfigTypeError(
        "ClassBatchSampler takes every argument after samples_per_class by name, got "
        f"{given} by position; write {how}"
    )
