"""``ClassBalancedSampler``: inverse-frequency, power-alpha and annealed class sampling.

NOTE (formula): with ``count_c`` samples in class ``c``, optional target
proportions ``t_c`` (default ``1 / C`` for ``C`` classes) and the exponent
``alpha = alpha(epoch)``, every sample of class ``c`` has weight

    w_c = (t_c / count_c) ** alpha

so class ``c`` is drawn with probability

    P_c = count_c ** (1 - alpha) * t_c ** alpha / sum_d count_d ** (1 - alpha) * t_d ** alpha

``alpha = 1`` gives the targets (balanced classes by default), ``alpha = 0``
the natural distribution, ``alpha = 0.5`` square-root sampling; without
targets ``w_c`` is ``count_c ** -alpha`` up to a constant. Within a class,
samples are equally likely.

With replacement the plan draws a class from a C-cell alias table and then a
member uniformly (``GroupedAliasPlan``): O(C) work per epoch, random access.
Without replacement it is an Efraimidis-Spirakis draw over the per-sample
weights.

NOTE (sampler plus loss): ``loss_weights(total_alpha)`` splits a re-weighting
between the sampler and the loss. The sampler draws class ``c`` with ``P_c``;
a loss weight ``v_c`` on its samples makes its share of the expected loss
``P_c * v_c``. Choosing ``v_c = Q_c / P_c``, with ``Q_c`` the proportions a
sampler with ``alpha = total_alpha`` (same targets) would draw, makes the two
together exactly that re-weighting, whatever the sampler's own schedule; and
``sum_c P_c * v_c = sum_c Q_c = 1``, so a drawn sample's expected loss weight
is 1 and the loss keeps its scale.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray

from .._core import state as S
from .._core.labels import encode_labels
from .._core.partition import Tail
from .._core.plan_share import shared_tables
from .._core.plans import IndexPlan
from .._distributed.digest import memo_key
from .._errors import ConfigError, ConfigTypeError, check_bool, check_int, check_real
from .._random.alias import AliasTable
from .._random.seeding import StreamId, stream_words
from .schedules import class_weights_at, resolve_alpha
from .torch_compat import IndexSampler
from .weighted_plans import ArrayPlan, GroupedAliasPlan, exponential_keys_order
from .weights import MIGRATE_DRAWS, DrawsMigrate

__all__ = ["ClassBalancedSampler"]

_SUB_ID = 1  # separates these streams from WeightedSampler's


class ClassBalancedSampler(DrawsMigrate, IndexSampler[IndexPlan]):
    """Sample so that class ``c`` appears with proportion ``P_c`` (module docstring).

    Args:
        labels: One class label per sample: ints or ``str`` (list, array,
            tensor). Bytes labels are rejected (decode them to ``str``): the
            class names go into ``state_dict()``, which holds JSON values only.
        alpha: Exponent: a number >= 0, a schedule (``Constant``,
            ``LinearAnneal``) or any callable ``epoch -> alpha``; or
            ``LinearWeightAnneal``, the tutorials' schedule in weight space
            (see ``schedules``).
        targets: Optional mapping ``class -> proportion`` (sum 1) for every
            class in ``labels``; a proportion of 0 excludes the class when
            ``alpha > 0``.
        replacement: Draw with replacement (default) or each sample at most
            once per epoch.
        num_samples: Draws per epoch over all ranks; default ``len(labels)``
            with replacement, else the samples of classes with a positive target.
        num_replicas, rank, seed, tail, auto_epoch, group: As ``WeightedSampler``.

    Example:
        >>> s = ClassBalancedSampler([0, 0, 0, 1], num_replicas=1, rank=0)
        >>> s.class_proportions(0)
        {0: 0.5, 1: 0.5}
    """

    kind = "ClassBalancedSampler"

    def __init__(
        self,
        labels: Any,
        alpha: Any = 1.0,
        *,
        targets: Mapping[Any, float] | None = None,
        replacement: bool = True,
        num_samples: int | None = None,
        num_replicas: int | None = None,
        rank: int | None = None,
        seed: int = 0,
        tail: Tail = "pad",
        auto_epoch: bool = False,
        group: Any = None,
    ) -> None:
        super().__init__(
            num_replicas=num_replicas,
            rank=rank,
            seed=seed,
            tail=tail,
            auto_epoch=auto_epoch,
            group=group,
        )
        check_bool("replacement", replacement)
        self.replacement = replacement
        self.alpha, self._alpha_description = resolve_alpha(alpha)
        self.classes: list[Any]
        self.classes, inverse = encode_labels(labels)  # (n,) class position of each sample
        counts = np.bincount(inverse, minlength=len(self.classes))
        self.n = int(inverse.shape[0])
        self.counts = counts.astype(np.float64)  # (C,)
        self._offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)  # (C + 1,)
        self._labels_digest = S.digest(inverse)
        # NOTE (memory per item): each mode keeps only what its plan reads, in
        # int32 where the values fit: with replacement the items grouped by
        # class (4 bytes per item; draws go class -> member), without it each
        # item's class (4 bytes; the exponential keys need per-item weights).
        small = np.int32 if self.n < (1 << 31) else np.int64
        self._members: NDArray[Any] | None = None
        self._inverse: NDArray[Any] | None = None
        # Built once per node where plans are shared (read-only mappings), else per rank.
        key = {"kind": self.kind, "labels": self._labels_digest}
        if replacement:  # (n,) the items by class
            self._members = shared_tables(
                {**key, "tables": "members"},
                lambda codes: {"members": np.argsort(codes, kind="stable").astype(small)},
                inverse,
            )["members"]
        else:  # (n,) each item's class
            self._inverse = shared_tables(
                {**key, "tables": "classes"},
                lambda codes: {"classes": codes.astype(np.int32)},
                inverse,
            )["classes"]
        del inverse
        self.targets = self._resolve_targets(targets)  # (C,)
        positive = int(self.counts[self.targets > 0].sum())
        if num_samples is None:
            num_samples = self.n if replacement else positive
        self.num_samples = check_int("num_samples", num_samples, minimum=1)
        if not replacement and self.num_samples > positive:
            raise ConfigError(
                f"num_samples={self.num_samples} exceeds the {positive} samples of classes "
                "with a positive target, and replacement=False draws each at most once; "
                "lower num_samples or use replacement=True"
            )

    def _resolve_targets(self, targets: Mapping[Any, float] | None) -> NDArray[np.float64]:
        size = len(self.classes)
        if targets is None:
            return np.full(size, 1.0 / size)
        if not isinstance(targets, Mapping):
            raise ConfigTypeError(
                f"targets must be a mapping class -> proportion, got {type(targets).__name__}"
            )
        position = {c: i for i, c in enumerate(self.classes)}
        unknown = [c for c in targets if c not in position]
        if unknown:
            raise ConfigError(
                f"targets names class {unknown[0]!r}, which has no samples in labels (classes "
                f"present: {self.classes[:10]}); drop it from targets or fix the labels"
            )
        missing = [c for c in self.classes if c not in targets]
        if missing:
            raise ConfigError(
                f"targets has no proportion for class {missing[0]!r}; give every class a "
                "proportion (0 excludes it)"
            )
        out = np.zeros(size)
        for c, value in targets.items():
            name = f"targets[{c!r}]"
            if isinstance(value, np.bool_):  # check_real rejects bool, not numpy's bool
                value = bool(value)
            try:
                v = check_real(name, value)  # a real number, not a bool, string or None
            except ConfigError:
                v = float("nan")
            if not (np.isfinite(v) and v >= 0):
                raise ConfigError(f"{name} must be a finite number >= 0, got {value!r}")
            out[position[c]] = v
        total = float(out.sum())
        if abs(total - 1.0) > 1e-6:
            raise ConfigError(
                f"targets must sum to 1, got sum={total!r}; divide each proportion by the sum"
            )
        return out

    # ------------------------------------------------------------- formulas
    def class_weights(self, epoch: int) -> NDArray[np.float64]:
        """(C,) per-sample weight of each class at ``epoch``: ``(t_c / count_c) ** alpha``.

        Under ``LinearWeightAnneal``, that schedule's weights instead.
        """
        return class_weights_at(self.alpha, epoch, self.counts, self.targets)

    def _class_mass(self, epoch: int) -> NDArray[np.float64]:
        mass = self.counts * self.class_weights(epoch)
        if not mass.any():  # pragma: no cover - targets sum to 1, so one is positive
            raise ConfigError("every class has weight 0")
        return mass

    def class_proportions(self, epoch: int | None = None) -> dict[Any, float]:
        """Expected proportion ``P_c`` of each class per draw at ``epoch`` (default: current).

        Without replacement this is the proportion of the *first* draw;
        drawing most of the data without replacement pulls proportions back
        toward the natural ones.
        """
        epoch = self.epoch if epoch is None else check_int("epoch", epoch, minimum=0)
        mass = self._class_mass(epoch)
        return dict(zip(self.classes, (mass / mass.sum()).tolist(), strict=True))

    def loss_weights(
        self,
        total_alpha: float = 1.0,
        *,
        epoch: int | None = None,
        num_classes: int | None = None,
    ) -> torch.Tensor:
        """Class weights for ``CrossEntropyLoss(weight=...)`` that complete the re-weighting.

        Sampling with this sampler at ``epoch`` and weighting each sample's
        loss by the returned weight of its class weights the classes as a
        sampler with ``alpha=total_alpha`` (and the same targets) would on
        its own (module NOTE): e.g. ``alpha=0.5`` in the sampler plus these
        weights with ``total_alpha=1`` is fully balanced in expectation. The
        weights change when an annealed ``alpha`` does: recompute them after
        each ``set_epoch``.

        Args:
            total_alpha: The intended total exponent, a number >= 0.
            epoch: Epoch of the sampler's proportions (default: current).
            num_classes: Length of the result (default: largest label + 1).

        Returns:
            A float32 tensor indexed by class id; classes without samples get 0
            (the sampler never draws them).

        Raises:
            ConfigTypeError: labels are not integers (``CrossEntropyLoss``
                indexes its weights by class id).
            ConfigError: negative labels, ``num_classes`` too small, or a class
                the total weighting keeps but the sampler never draws.

        Example:
            >>> s = ClassBalancedSampler([0, 0, 0, 1], 0.0, num_replicas=1, rank=0)
            >>> [round(w, 4) for w in s.loss_weights(1.0).tolist()]  # the loss balances
            [0.6667, 2.0]
        """
        total = check_real("total_alpha", total_alpha, minimum=0.0)
        epoch = self.epoch if epoch is None else check_int("epoch", epoch, minimum=0)
        if not all(isinstance(c, int) for c in self.classes):
            raise ConfigTypeError(
                f"loss_weights needs integer class ids, got labels like {self.classes[0]!r}; "
                "CrossEntropyLoss indexes its weight by class id, so map the labels to "
                "0..C-1 first (or use class_proportions())"
            )
        ids = np.asarray(self.classes, dtype=np.int64)  # (C,) sorted
        if ids[0] < 0:
            raise ConfigError(
                f"loss_weights needs class ids >= 0, got label {int(ids[0])}; map the labels "
                "to 0..C-1 first"
            )
        size = int(ids[-1]) + 1
        if num_classes is not None:
            size = check_int(
                "num_classes", num_classes, minimum=size, fix=f"the largest label is {size - 1}"
            )
        sampled = self._class_mass(epoch)
        sampled = sampled / sampled.sum()  # (C,) P_c
        with np.errstate(divide="ignore"):
            mass = self.counts ** (1.0 - total) * self.targets**total
        wanted = mass / mass.sum()  # (C,) Q_c
        starved = np.flatnonzero((sampled == 0) & (wanted > 0))
        if starved.size:
            raise ConfigError(
                f"class {self.classes[starved[0]]!r} is never drawn at epoch {epoch} (target 0) "
                f"but total_alpha={total!r} keeps it; no loss weight can restore it. Give it a "
                "positive target or use a total_alpha > 0"
            )
        ratio = np.divide(wanted, sampled, out=np.zeros_like(wanted), where=sampled > 0)
        out = torch.zeros(size, dtype=torch.float32)
        out[torch.from_numpy(ids)] = torch.from_numpy(ratio).float()
        return out

    # ------------------------------------------------------------------ plans
    def _known_plan_length(self) -> int:
        return int(self.num_samples)  # every epoch draws num_samples

    def _config(self) -> dict[str, Any]:
        # Snapshots call this at every step: the classes digest and the targets
        # entry are kept while the classes (by value and exact type, see
        # digest.memo_key) and the targets (by bytes) are the same.
        key = None
        classes_key = memo_key(self.classes)
        if type(self.targets) is np.ndarray and classes_key is not None:
            key = (classes_key, self.targets.dtype.str, self.targets.tobytes())
        memo: tuple[Any, str, list[list[Any]] | None] | None = getattr(self, "_config_memo", None)
        if key is not None and memo is not None and memo[0] == key:
            classes, targets = memo[1], memo[2]
        else:
            classes, targets = S.digest(self.classes), None
            if self._targets_given():
                targets = [[c, t] for c, t in zip(self.classes, self.targets.tolist(), strict=True)]
            if key is not None:
                self._config_memo = (key, classes, targets)
        return {
            "n": self.n,
            "classes": classes,
            "labels": self._labels_digest,
            "alpha": self._alpha_description,
            "targets": None if targets is None else [list(pair) for pair in targets],
            "replacement": self.replacement,
            "num_samples": self.num_samples,
        }

    # ---------------------------------------------- resume on changed data
    _data_keys = ("n", "classes", "labels", "targets", "num_samples")
    _keyed_by = "class weight"

    def _rest_plan(self, change: Any, consumed: int, epoch: int) -> IndexPlan:
        """The epoch's draws not taken yet, by the new labels' class table."""
        assert self._members is not None  # (with replacement: _migration_refusal)
        table = AliasTable(self._class_mass(epoch))
        keys = stream_words(StreamId.MIGRATE, epoch, self.seed, 4, sub_id=MIGRATE_DRAWS + _SUB_ID)
        count = max(0, self.num_samples - consumed)
        return GroupedAliasPlan(table, self._members, self._offsets, count, keys)

    def _targets_given(self) -> bool:
        return not np.all(self.targets == 1.0 / len(self.classes))

    def _shares_plan(self) -> bool:
        return not self.replacement  # with replacement the plan is lazy (alias draws)

    def _build_plan(self, epoch: int) -> IndexPlan:
        seed = self.seed  # stream_words reduces it mod 2**64, as every stream does
        if self.replacement:
            table = AliasTable(self._class_mass(epoch))
            keys = stream_words(StreamId.WEIGHTED_REPLACEMENT, epoch, seed, 4, sub_id=_SUB_ID)
            assert self._members is not None
            return GroupedAliasPlan(table, self._members, self._offsets, self.num_samples, keys)
        assert self._inverse is not None
        weights = self.class_weights(epoch)[self._inverse]
        keys = stream_words(StreamId.WEIGHTED_NO_REPLACEMENT, epoch, seed, 2, sub_id=_SUB_ID)
        return ArrayPlan(exponential_keys_order(weights, self.num_samples, keys))
