"""torchft: exactly-once epochs while replica groups leave and join.

torchft's ``Manager`` keeps the healthy replica groups training when one
fails: a quorum is formed at every step, groups leave and join at step
boundaries, and a joining group takes its model state from a live peer.
``ReplicaGroupSampler`` wraps any fairshard sampler (index, weighted or
batch family, built with ``num_replicas=1, rank=0``) and reads its epoch
plan by (replica group, rank in group): at each quorum change the positions
of the epoch no group has committed are dealt again over the groups now
present (``fairshard._core.redeal``), so across any sequence of leaves and
joins every plan position of an epoch is trained once, declared padding
aside, and every group of a quorum takes the same number of steps.

The data cursor is model state: ``register(manager)`` adds the sampler's
``state_dict``/``load_state_dict`` to the Manager's state-dict hooks, so a
joining group receives the cursor with the weights from the peer it heals
from (no checkpoint file). The cursor is the quorum history of the epoch --
``(number of groups, manager step the deal began at)`` per quorum -- and
the Manager's committed step count: a step counts when ``should_commit()``
returned ``True``; a group that failed or fell behind heals from a peer
that holds the lineage's cursor.

The loop (``use_async_quorum=False``, so a healing group loads its state in
``start_quorum`` and trains in the same step)::

    sampler = ReplicaGroupSampler(fairshard.DistributedSampler(n, 1, 0, seed=0), manager)
    sampler.register(manager)
    while True:
        manager.start_quorum()
        items = sampler.step_items()      # this rank's items of the step
        if sampler.epoch >= epochs:       # every group sees the same epoch end
            break
        ...forward / backward on items, manager.allreduce(grads)...
        if manager.should_commit():
            optimizer.step()

docs/faults.md has the whole loop, what was tested and the measured
comparison with the restart path.
"""

from __future__ import annotations

import os
from typing import Any

from .._core.base import PlannedSampler
from .._core.redeal import Deal, first_deal, redeal
from .._errors import ConfigError, StateDictError, check_int

__all__ = ["ReplicaGroupSampler"]

_VERSION = 1
_KIND = "ReplicaGroupSampler"


class ReplicaGroupSampler:
    """A fairshard sampler read by (replica group, rank in group) under torchft's Manager.

    Args:
        sampler: A fairshard sampler over the whole dataset, built with
            ``num_replicas=1, rank=0`` (its plan is read; its own partition is not).
            ``tail`` must be ``"pad"`` or ``"drop"`` (equal steps).
        manager: The ``torchft.Manager`` of this process.
        group_rank: This process's rank in its replica group (default: the
            Manager's, else ``RANK``).
        group_world_size: Processes per replica group, the same in every group
            (default: the Manager's, else ``WORLD_SIZE``).
        items_per_rank: Plan positions each rank reads per step (a batch of
            indices for an index family; 1 for a batch family, whose position
            is a batch).
    """

    key = "fairshard"

    def __init__(
        self,
        sampler: PlannedSampler[Any, Any],
        manager: Any,
        *,
        group_rank: int | None = None,
        group_world_size: int | None = None,
        items_per_rank: int = 1,
    ) -> None:
        if not isinstance(sampler, PlannedSampler):
            raise ConfigError(
                f"sampler must be a fairshard sampler, got sampler of type {type(sampler).__name__}"
            )
        if (sampler.num_replicas, sampler.rank) != (1, 0):
            raise ConfigError(
                f"sampler must be built with num_replicas=1, rank=0 (the whole plan; "
                f"ReplicaGroupSampler deals it), got num_replicas={sampler.num_replicas}, "
                f"rank={sampler.rank}"
            )
        if sampler.tail not in ("pad", "drop"):
            raise ConfigError(
                f"sampler.tail must be 'pad' or 'drop' (every group of a quorum takes the "
                f"same steps), got tail={sampler.tail!r}"
            )
        self.sampler = sampler
        self.manager = manager
        if group_rank is None:
            group_rank = getattr(manager, "_group_rank", None)
        if group_rank is None:
            group_rank = int(os.environ.get("RANK", "0"))
        if group_world_size is None:
            group_world_size = getattr(manager, "_group_world_size", None)
        if group_world_size is None:
            group_world_size = int(os.environ.get("WORLD_SIZE", "1"))
        self.group_world_size = check_int("group_world_size", group_world_size, minimum=1)
        self.group_rank = check_int(
            "group_rank", group_rank, minimum=0, maximum=self.group_world_size - 1
        )
        self.items_per_rank = check_int("items_per_rank", items_per_rank, minimum=1)
        self.epoch: int = sampler.epoch
        self._epoch_start: int = 0
        #: ``[num_groups, start_step]`` per quorum of this epoch, oldest first.
        self._history: list[list[int]] = []
        self._deal: Deal | None = None
        self._quorum: tuple[Any, int] | None = None
        self.last_positions: Any = None
        self.last_padded: int = 0

    # ----------------------------------------------------------- state hooks
    def register(self, manager: Any | None = None, key: str | None = None) -> None:
        """Add the cursor to the Manager's state-dict hooks (sent to a joining group).

        Args:
            manager: The Manager (default: the one the sampler was built with).
            key: The hook's name (default ``"fairshard"``; one per sampler when
                a loop reads several).
        """
        (manager or self.manager).register_state_dict_fn(
            key or self.key, self.load_state_dict, self.state_dict
        )

    def state_dict(self) -> dict[str, Any]:
        """The cursor as plain values: epoch, the epoch's quorum history, the config."""
        return {
            "version": _VERSION,
            "kind": _KIND,
            "sampler": self.sampler.kind,
            "config": self.sampler.full_config(),
            "seed": self.sampler.seed,
            "slots_per_group": self._slots_per_group(),
            "epoch": self.epoch,
            "epoch_start": self._epoch_start,
            "history": [list(h) for h in self._history],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Take the cursor a live peer sent (or a checkpoint held)."""
        if not isinstance(state, dict) or state.get("kind") != _KIND:
            raise StateDictError(
                f"state must be a {_KIND}.state_dict(), got {type(state).__name__} "
                f"with kind={getattr(state, 'get', lambda _k: None)('kind')!r}"
            )
        for name, mine in (
            ("version", _VERSION),
            ("sampler", self.sampler.kind),
            ("config", self.sampler.full_config()),
            ("seed", self.sampler.seed),
            ("slots_per_group", self._slots_per_group()),
        ):
            if state[name] != mine:
                raise StateDictError(
                    f"state[{name!r}]={state[name]!r} but this sampler has {name}={mine!r}; "
                    "every replica group must build the same sampler, group size and "
                    "items_per_rank"
                )
        self.epoch = int(state["epoch"])
        self._epoch_start = int(state["epoch_start"])
        self._history = [[int(k), int(s)] for k, s in state["history"]]
        self.sampler.set_epoch(self.epoch)
        self._deal = None
        self._quorum = None

    # -------------------------------------------------------------- dealing
    def _slots_per_group(self) -> int:
        return self.group_world_size * self.items_per_rank

    def _replay(self) -> Deal:
        """The deal of the epoch's last quorum, rebuilt from the history (pure)."""
        total = len(self.sampler.plan(self.epoch))
        spg = self._slots_per_group()
        k, start = self._history[0]
        deal = first_deal(total, range(k), spg, self.sampler.tail)  # type: ignore[arg-type]
        for k_next, start_next in self._history[1:]:
            done = start_next - start
            deal = redeal(deal, dict.fromkeys(deal.groups, done), range(k_next))
            start = start_next
        return deal

    def _steps_done(self, step: int) -> int:
        return step - self._history[-1][1]

    def step_items(self) -> list[Any] | None:
        """This rank's items of the current step (call after ``manager.start_quorum()``).

        Re-deals when the quorum changed, moves to the next epoch when this
        one is finished. Returns ``None`` when this group does not take part
        in the step (torchft's async quorum while it heals): it trains on
        nothing, its allreduce contributes zeros.
        """
        manager = self.manager
        group = manager.participating_rank()
        if group is None or not manager.is_participating():
            return None
        num_groups = int(manager.num_participants())
        step = int(manager.current_step())
        quorum = (getattr(manager, "_quorum_id", None), num_groups)
        if not self._history:
            self._epoch_start = step
            self._history = [[num_groups, step]]
            self._deal = None
        elif quorum != self._quorum and (
            num_groups != self._history[-1][0] or self._history[-1][1] != step
        ):
            if self._history[-1][1] == step:
                self._history[-1][0] = num_groups  # nothing committed under the last deal
            else:
                self._history.append([num_groups, step])
            self._deal = None
        self._quorum = quorum
        if self._deal is None:
            self._deal = self._replay()
        done = self._steps_done(step)
        if done >= self._deal.num_steps:
            self._next_epoch(step, num_groups)
            return self.step_items()
        begin = self.group_rank * self.items_per_rank
        offsets = self._deal.offsets(int(group), done)[begin : begin + self.items_per_rank]
        self.last_positions = self._deal.pool[offsets % max(1, len(self._deal.pool))]
        #: How many of this step's positions are declared padding (the last step's wrap).
        self.last_padded = int((offsets >= len(self._deal.pool)).sum())
        items: list[Any] = self.sampler.plan(self.epoch).items(self.last_positions)
        return items

    def _next_epoch(self, step: int, num_groups: int) -> None:
        self.epoch += 1
        self.sampler.set_epoch(self.epoch)
        self._epoch_start = step
        self._history = [[num_groups, step]]
        self._deal = None

    def num_dropped(self) -> int:
        """Plan positions of the epoch the current deal leaves out (``tail="drop"``)."""
        return 0 if self._deal is None else self._deal.num_dropped()

    def steps_left(self) -> int:
        """Steps left in the epoch under the current deal (``0`` before the first step)."""
        if self._deal is None:
            return 0
        return self._deal.num_steps - self._steps_done(int(self.manager.current_step()))
