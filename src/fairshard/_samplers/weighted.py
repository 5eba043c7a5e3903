"""``WeightedSampler``: PyTorch's ``WeightedRandomSampler``, sharded across ranks.

One global plan of ``num_samples`` draws per epoch; each rank takes its
positions of it (strided), so ranks never share a *draw*, and because the plan
does not depend on the world size a job resumes on any number of ranks.

With replacement the plan is random access (counter-based hashes into an
alias table, ``_alias``): memory is 8 bytes per weight, whatever
``num_samples``. Without replacement it is an Efraimidis-Spirakis draw
(``exponential_keys.exponential_keys_order``), materialized once per epoch:
the build sorts all ``n`` keys on every rank (it cannot get cheaper with the
world size, see that module), needs 8 bytes per weight while it runs and
keeps 4 bytes per draw (int32) for the epoch, beside the sampler's own copy
of the weights (8 bytes per weight). Under torchrun the plan, the copy and
the alias table are each held once per node (``_core/plan_share.py``).

NOTE (changing weights): ``set_weights`` stages new weights; they take effect
at the next ``set_epoch`` (or automatic epoch advance, or
``load_state_dict``), never in the middle of a pass. The state's config holds
a digest of the weights in effect, so resuming with other weights is an error
that says so: build the resumed sampler with (or ``set_weights`` it to) the
weights in effect when the state was saved.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core import state as S
from .._core.migrate import Change
from .._core.partition import Tail
from .._core.plan_share import shared_tables
from .._core.plans import IndexPlan
from .._errors import ConfigError, StateDictError, check_bool, check_int
from .._random.alias import AliasTable
from .._random.seeding import StreamId, stream_words
from .torch_compat import IndexSampler
from .weighted_plans import AliasPlan, ArrayPlan, exponential_keys_order
from .weights import (
    MIGRATE_DRAWS,
    DrawsMigrate,
    as_weights,
    check_weights,
    weights_digest,
)

__all__ = ["WeightedSampler"]


class WeightedSampler(DrawsMigrate, IndexSampler[IndexPlan]):
    """Draw indices in proportion to per-sample weights, one plan for all ranks.

    Args:
        weights: One non-negative weight per sample (list, numpy array or
            tensor; any length up to ``2**32``). Zero weights are never drawn.
        num_samples: Draws per epoch over *all* ranks. Default: ``len(weights)``
            with replacement, the number of positive weights without.
        replacement: Draw with replacement (``True``) or each sample at most
            once per epoch.
        num_replicas: World size; detected when ``None``.
        rank: This rank; detected when ``None``.
        seed: Root seed, identical on every rank.
        tail: ``"pad"``, ``"drop"`` or ``"uneven"`` for the last
            ``num_samples % num_replicas`` draws.
        auto_epoch: Advance the epoch by itself after each complete pass.
        group: The data-parallel group (``ProcessGroup`` or ``DeviceMesh``),
            e.g. ``mesh["dp"]``: the world and its collectives (docs/parallelism.md).

    Raises:
        ConfigError: weights negative, NaN, infinite (the message names the
            first such index and value), all zero, empty or not 1-D; or
            ``num_samples`` above the positive weights without replacement.
        ConfigTypeError: weights that are not numbers.

    Example:
        >>> s = WeightedSampler([0.0, 1.0, 1.0, 0.0], num_samples=6, num_replicas=2, rank=0)
        >>> len(s), set(s) <= {1, 2}
        (3, True)
    """

    kind = "WeightedSampler"
    _stream_with = StreamId.WEIGHTED_REPLACEMENT
    _stream_without = StreamId.WEIGHTED_NO_REPLACEMENT

    def __init__(
        self,
        weights: Any,
        num_samples: int | None = None,
        replacement: bool = True,
        *,
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
        array = as_weights(weights)
        positive = check_weights(array)
        self.n = int(array.shape[0])
        if num_samples is None:
            num_samples = self.n if replacement else positive
        self.num_samples = check_int(
            "num_samples", num_samples, minimum=1, fix="draw at least one sample per epoch"
        )
        self._pending: tuple[NDArray[np.float64], int] | None = None
        self._apply(array, positive)

    # ---------------------------------------------------------------- weights
    def _apply(self, array: NDArray[np.float64], positive: int) -> None:
        """Make ``array`` the weights of the plans from now on."""
        self._check_positive(positive)
        self.num_positive = positive
        self.weights_digest = weights_digest(array)
        # Built once per node where plans are shared (read-only mappings), else per rank.
        key = {"kind": self.kind, "weights": self.weights_digest}
        if self.replacement:
            tables = shared_tables({**key, "tables": "alias"}, lambda: AliasTable(array).arrays())
            self._table: AliasTable | None = AliasTable.from_arrays(tables)
            self._weights: NDArray[np.float64] | None = None
        else:
            self._table = None
            # A copy: the caller may change its array later.
            copy = shared_tables({**key, "tables": "weights"}, lambda: {"weights": array.copy()})
            self._weights = copy["weights"]
        self.forget_plans()

    def _check_positive(self, positive: int) -> None:
        if not self.replacement and self.num_samples > positive:
            raise ConfigError(
                f"num_samples={self.num_samples} exceeds the {positive} samples with a positive "
                "weight, and replacement=False draws each at most once; lower num_samples or "
                "use replacement=True"
            )

    def set_weights(self, weights: Any) -> None:
        """Use ``weights`` from the next epoch on (checked now, applied at ``set_epoch``).

        Raises:
            ConfigError: bad weights, a different length, or fewer positive
                weights than ``num_samples`` without replacement.
        """
        array = as_weights(weights)
        if array.shape[0] != self.n:
            raise ConfigError(
                f"set_weights got {array.shape[0]} weights but the sampler has {self.n} "
                "samples; pass one weight per sample (build a new sampler for a new dataset)"
            )
        positive = check_weights(array)
        self._check_positive(positive)
        self._pending = (array.copy(), positive)

    def _apply_pending(self) -> None:
        if self._pending is not None:
            array, positive = self._pending
            self._pending = None
            self._apply(array, positive)

    def _on_epoch_change(self) -> None:
        """Staged weights take effect with the epoch (``set_epoch``, ``auto_epoch``, a load)."""
        self._apply_pending()

    def _load_config(self) -> dict[str, Any]:
        """A state must match the weights the load puts in effect: the staged ones, if any."""
        config = self.full_config()
        if self._pending is not None:
            config["weights"] = weights_digest(self._pending[0])
        return config

    def load_state_dict(self, state_dict: dict[str, Any], migrate: Change | None = None) -> None:
        """Resume from ``state_dict``; staged weights take effect only if it loads.

        The state is checked against the weights it will run with: the staged
        ones (``set_weights``) if any, else those in effect. A rejected state
        leaves the sampler as it was, staged weights still staged (the base
        checks everything before it changes anything, and applies the staged
        weights in ``_on_epoch_change`` once the load succeeded).

        ``migrate=DataChange(...)`` resumes a state of other data (or other
        weights, ``DataChange(n)``) with ``replacement=True``: the epoch's
        draws not taken yet come from the new weights (docs/changes.md).

        Raises:
            StateDictError: as ``PlannedSampler.load_state_dict``; a state saved
                with other weights names both digests.
        """
        state = S.unseal(state_dict, self.kind)
        saved = state[S.K_CONFIG].get("weights")
        ours = self._load_config().get("weights")
        if migrate is None and saved is not None and ours is not None and saved != ours:
            if state[S.K_CONFIG].get("n") != self.n:
                self._refuse_changed_data(state_dict)  # names migrate= where it applies
            raise StateDictError(
                f"state_dict was saved with weights digest {saved} but this sampler's weights "
                f"have digest {ours}; build the sampler with the weights in effect when the "
                "state was saved (or set_weights them before load_state_dict)"
            )
        super().load_state_dict(state_dict, migrate)

    # ---------------------------------------------- resume on changed data
    _data_keys = ("n", "weights", "num_samples")

    def _rest_plan(self, change: Any, consumed: int, epoch: int) -> IndexPlan:
        assert self._table is not None  # (with replacement: _migration_refusal)
        keys = stream_words(StreamId.MIGRATE, epoch, self.seed, 2, sub_id=MIGRATE_DRAWS)
        return AliasPlan(self._table, max(0, self.num_samples - consumed), keys)

    # ------------------------------------------------------------------ plans
    def _known_plan_length(self) -> int:
        return int(self.num_samples)  # every epoch draws num_samples

    def _config(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "num_samples": self.num_samples,
            "replacement": self.replacement,
            "weights": self.weights_digest,
        }

    def _shares_plan(self) -> bool:
        return not self.replacement  # with replacement the plan is lazy (alias draws)

    def _build_plan(self, epoch: int) -> IndexPlan:
        seed = self.seed  # stream_words reduces it mod 2**64, as every stream does
        if self._table is not None:
            keys = stream_words(self._stream_with, epoch, seed, 2)
            return AliasPlan(self._table, self.num_samples, keys)
        assert self._weights is not None
        keys = stream_words(self._stream_without, epoch, seed, 2)
        return ArrayPlan(exponential_keys_order(self._weights, self.num_samples, keys))

    def probabilities(self) -> NDArray[np.float64]:
        """(n,) probability of each sample per draw with replacement (the weights, normalized).

        Without replacement, the probability of each sample being the *first* draw.
        """
        if self._table is not None:
            return self._table.probabilities()
        assert self._weights is not None
        relative = self._weights / self._weights.max()  # sum(weights) may overflow
        result: NDArray[np.float64] = relative / relative.sum()
        return result
