"""Resume on changed data: the half of ``PlannedSampler`` that migrates a state.

``load_state_dict(state, migrate=change)`` (``SamplerState``) turns a state
saved on the old data into one that resumes the rest of its epoch on the new
data (``_migrated_state``); while that epoch runs the base plans it with the
family's rest (``_migrated_plan``), and every state taken inside it carries
the declared change, so it resumes exactly without ``migrate`` (on any world
size). The pure part -- what a change is and what it leaves of an epoch --
is ``_core.migrate``.

A family opts in with the hooks below and ``_data_keys``, the config
entries a declared change may change (the data, and what derives from it):

- ``_migration_refusal()``: ``None`` when this configuration can migrate,
  else why not (the base adds the fix);
- ``_check_migration(change, saved_config)``: the change leads from the
  state's data (``saved_config``; ``None`` when only the new side is
  checked) to this sampler's;
- ``_old_plan_length(change, saved_config, epoch)``: the saved epoch's
  plan length on the old data;
- ``_consumed_record(change, saved_config, epoch, positions)``: what the
  state of the migrated epoch records as consumed (default: the number of
  positions; a mixture records each old source's draws, which the old
  weights alone determine and the new state no longer names);
- ``_rest_plan(change, consumed, epoch)``: the plan of what is left.

NOTE (what consumed means): every plan position of the saved epoch that any
rank took. Under the strided layout those are a prefix ``[0, c)`` of the
plan (``consumed_positions``), whatever the world size; under a
``StepSampler`` the stream's prefix. The other layout is refused: its
consumed positions are not a prefix.

NOTE (two kinds of rest): a family whose epoch holds each item once
(``DistributedSampler``) rebuilds the old plan and keeps what it did not
consume, mapped to the new indices, with the appended items
(``rest_of_epoch``). A family that draws with replacement (the weighted
families) consumed draws, not items: the rest is the epoch's remaining
``num_samples - c`` draws from the new data's distribution, which holds no
removed item. A mixture continues each source's walk where it stopped
(``_samplers/mixture.py``).

NOTE (a rest is one epoch): the migration names its epoch; every other
epoch is the new data's plain plan. A state at the start of its epoch
(nothing consumed) needs no rest: it resumes as that epoch's plain plan.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from .._errors import ConfigError, StateDictError
from . import state as S
from .migrate import DataChange, consumed_positions
from .partition import Layout, Tail
from .plans import Plan

__all__ = ["Migrating", "Migration"]

#: The key of a migrated epoch's record in a state's ``extra``.
K_MIGRATED = "migrated"

_FIX = (
    "finish that epoch on the data it was saved with, or build the sampler on the new data "
    "and start a new epoch (set_epoch) instead of loading the state"
)


class Migration(NamedTuple):
    """The epoch resumed on changed data: the declared change and what was consumed of it."""

    epoch: int
    change: Any
    consumed: Any  # what ``_consumed_record`` returned (plain data)


def _without(config: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if k not in keys}


class Migrating:
    """``migrate=`` of ``load_state_dict`` and the migrated epoch (module docstring)."""

    #: The type of change the family takes (``DataChange``; ``MixtureChange``).
    _change_type: ClassVar[type[Any]] = DataChange
    #: Config entries a declared change may change (empty: the family cannot migrate).
    _data_keys: ClassVar[tuple[str, ...]] = ()
    _migration: Migration | None = None

    # What ``PlannedSampler`` sets (its ``__init__``) and defines.
    kind: ClassVar[str]
    seed: int
    layout: Layout
    tail: Tail
    num_replicas: int
    rank: int
    _endless: bool

    if TYPE_CHECKING:

        def forget_plans(self) -> None: ...

        def _load_config(self) -> dict[str, Any]: ...

        def _known_plan_length(self) -> int | None: ...

        # The two hooks a family that sets ``_data_keys`` must write; declared for
        # the type checker only, so a family without them has no such attribute
        # and ``__init_subclass__`` refuses it when its class is defined.
        def _old_plan_length(self, change: Any, saved_config: dict[str, Any], epoch: int) -> int:
            """Hook: the plan length of ``epoch`` on the data the state was saved with."""

        def _rest_plan(self, change: Any, consumed: Any, epoch: int) -> Plan:
            """Hook: the plan of what ``change`` leaves of ``epoch`` after ``consumed``."""

    #: The hooks a family that sets ``_data_keys`` must write (no default fits).
    _required_hooks: ClassVar[tuple[str, ...]] = ("_old_plan_length", "_rest_plan")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse, when the class is defined, a family that migrates without its hooks.

        Why here and not at ``load_state_dict``: a missing hook would only
        show on the first migrated resume, in a user's run.
        """
        super().__init_subclass__(**kwargs)
        if cls._data_keys:
            missing = [h for h in cls._required_hooks if not hasattr(cls, h)]
            if missing:
                raise TypeError(
                    f"{cls.__name__} sets _data_keys={cls._data_keys!r} but does not define "
                    f"{', '.join(missing)}; a family that migrates writes both hooks "
                    "(see fairshard._core.migrating)"
                )

    # ------------------------------------------------ hooks a family may write
    def _migration_refusal(self) -> str | None:
        """Hook: why this configuration cannot resume on changed data (``None``: it can)."""
        if not self._data_keys:
            return (
                f"{self.kind} builds its epoch from the whole dataset (every item's length or "
                "label, or the wrapped sampler's order), so the saved epoch cannot be rebuilt "
                "on the old data and what it consumed cannot be carried over"
            )
        if self.layout != "strided" and not self._endless:
            return (
                f"resuming on changed data needs layout='strided', got layout={self.layout!r}; "
                "the consumed items of another layout are not a prefix of the plan"
            )
        return None

    def _check_migration(self, change: Any, saved_config: dict[str, Any] | None) -> None:
        """Hook: raise ``ConfigError`` unless ``change`` leads from the saved data to ours.

        The default reads ``n`` (a ``DataChange`` over one dataset).
        """
        saved_n = None if saved_config is None else saved_config.get("n")
        change._check_sizes(saved_n, self._load_config().get("n"), self.kind)

    def _consumed_record(
        self, change: Any, saved_config: dict[str, Any], epoch: int, positions: int
    ) -> Any:
        """Hook: what the migrated epoch's states record as consumed (default: ``positions``)."""
        return positions

    # ------------------------------------------------------------- machinery
    def _refuse(self, name: str) -> None:
        refusal = self._migration_refusal()
        if refusal is not None:
            raise ConfigError(f"{name}: {refusal}; {_FIX}")

    def _migration_check(self, state: dict[str, Any], change: Any) -> dict[str, Any]:
        """The saved config of an unsealed ``state``, checked against ``change`` and ours.

        Everything but the data keys must match this sampler's config (and the
        seed); the change must lead from the state's data to this sampler's.

        Raises:
            ConfigError: a change of another type, one that does not lead from
                the state's data to ours, or a configuration that cannot migrate.
            StateDictError: another config or seed.
        """
        self._refuse("migrate")
        kind = self._change_type.__name__
        if not isinstance(change, self._change_type):
            raise ConfigError(
                f"migrate must be a fairshard.{kind}, got {type(change).__name__}; declare the "
                f"change as {self._change_type._hint(dict(state[S.K_CONFIG]))}"
            )
        if K_MIGRATED in state[S.K_EXTRA]:
            raise ConfigError(
                "migrate: the state is itself inside a migrated epoch; finish that epoch (or "
                "resume it on the data it was migrated to) before the data changes again"
            )
        saved = dict(state[S.K_CONFIG])
        self._check_migration(change, saved)
        keys = self._data_keys
        S.check_config(_without(saved, keys), _without(self._load_config(), keys))
        if state[S.K_SEED] != self.seed:
            raise StateDictError(
                f"state_dict was saved with seed={state[S.K_SEED]} but this sampler has "
                f"seed={self.seed}; build the sampler with seed={state[S.K_SEED]} to resume"
            )
        return saved

    def _migrated_state(self, state_dict: dict[str, Any], change: Any) -> dict[str, Any]:
        """The state on the new data that resumes the rest of the saved epoch (from its start)."""
        state = S.unseal(state_dict, self.kind)
        saved = self._migration_check(state, change)
        epoch = state[S.K_EPOCH]
        positions = consumed_positions(
            state[S.K_START],
            state[S.K_STEPS],
            state[S.K_WORLD],
            self._old_plan_length(change, saved, epoch),
            self.layout,
            self.tail,
        )
        extra = {}
        if positions:
            record = self._consumed_record(change, saved, epoch, positions)
            extra = {K_MIGRATED: change.to_plain(record)}
        return S.Sealer().seal(
            self.kind,
            self._load_config(),
            self.seed,
            epoch,
            0,
            0,
            self.num_replicas,
            self.rank,
            extra,
        )

    def _refuse_changed_data(self, state_dict: Any) -> None:
        """Name ``migrate=`` when a state differs from this sampler in its data alone."""
        if not isinstance(state_dict, dict) or state_dict.get(S.K_KIND) != self.kind:
            return
        saved = state_dict.get(S.K_CONFIG)
        if not isinstance(saved, dict) or self._migration_refusal() is not None:
            return
        ours, keys = self._load_config(), self._data_keys
        if _without(saved, keys).keys() != _without(ours, keys).keys():
            return
        try:
            S.check_config(_without(saved, keys), _without(ours, keys))
        except StateDictError:
            return  # another config: the load names the field
        if not all(_plain(saved.get(key)) for key in keys):
            return  # a hostile or corrupt value: the load's own checks name it
        for key in keys:
            if saved.get(key) != ours.get(key):
                what = "dataset changed size" if key in ("n", "sizes") else "data changed"
                raise StateDictError(
                    f"state_dict was saved with {key}={saved.get(key)!r} but this sampler has "
                    f"{key}={ours.get(key)!r}; the {what} since the state was saved: "
                    "resume with the same data, or declare the change with "
                    f"load_state_dict(state, migrate={self._change_type._hint(saved)})"
                )

    def _install_migration(self, state: dict[str, Any]) -> None:
        """Put an unsealed state's migrated epoch (``extra['migrated']``) in effect, or clear it."""
        plain = state[S.K_EXTRA].get(K_MIGRATED)
        if plain is None:
            self._set_migration(None)
            return
        self._refuse("state_dict")
        change, consumed = self._change_type.from_plain(plain)
        try:
            self._check_migration(change, None)
        except ConfigError as exc:
            raise StateDictError(
                f"state_dict's migrated epoch does not lead to this sampler's data ({exc}); "
                "resume on the data the state was migrated to"
            ) from None
        self._set_migration(Migration(state[S.K_EPOCH], change, consumed))

    def _set_migration(self, value: Migration | None) -> None:
        if value != self._migration:
            self._migration = value
            self.forget_plans()

    def _migration_extra(self, epoch: int) -> dict[str, Any]:
        """``{'migrated': ...}`` for a state of the migrated epoch, else empty."""
        m = self._migration
        if m is None or m.epoch != epoch:
            return {}
        return {K_MIGRATED: m.change.to_plain(m.consumed)}

    def _migrated_plan(self, epoch: int) -> Plan | None:
        """The rest's plan when ``epoch`` is the migrated one, else ``None``."""
        m = self._migration
        if m is None or m.epoch != epoch:
            return None
        return self._rest_plan(m.change, m.consumed, epoch)

    def _fixed_plan_length(self) -> int | None:
        """``_known_plan_length()``, or ``None`` while a migrated epoch holds another length."""
        return None if self._migration is not None else self._known_plan_length()


def _plain(value: Any) -> bool:
    """Whether ``value`` is what a state's config holds: JSON scalars, lists and dicts of them.

    NOTE (why): a state comes from outside; ``!=`` on anything else (a numpy
    array, an object with its own ``__eq__``) may raise or lie, so such a
    value is left to the load's own checks, which reject it by name.
    """
    if value is None or isinstance(value, (bool, numbers.Number, str)):
        return True  # numbers.Number: numpy's scalars too (one value, a bool comparison)
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False
