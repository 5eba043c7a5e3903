"""The contract every fairshard sampler passes.

Subclass ``SamplerContract`` in a ``test_*.py`` module and define ``make``
(and optionally the class attributes). pytest collects the subclass as
``Test...``; the base itself is not collected (its name has no ``Test``
prefix).

Checked for every sampler:
- ``len()`` equals the number of items (or batches) yielded, on every rank;
- after ``load_state_dict`` in the middle of an epoch, ``len()`` is still the
  whole epoch's, constant through the resumed pass, which yields
  ``len() - consumed`` (``remaining``), also on another world size;
- a pass begun from a loaded state and left with unread items when
  ``set_epoch`` moves on warns once, naming the count; reading it to its
  end, a pass not resumed, or a new ``iter()`` of the epoch do not warn;
- every rank takes the same number of steps (unless ``uneven``);
- the union of all ranks' shares is the plan (plus declared padding, minus
  declared drops), so shares are disjoint beyond declared padding;
- same (seed, epoch) gives the same order; ``set_epoch`` changes it;
- ``state_dict`` round trips at several midpoints: the resumed iteration is
  exactly the rest of the interrupted one, also through JSON;
- a sampler pickles mid-pass (what a spawn-started process receives) and
  the copy knows where the pass stands;
- elastic resume (4 ranks -> 3) loses and repeats nothing beyond padding;
- a second pass over a completed epoch warns; ``auto_epoch`` advances;
- foreign, tampered and mismatched states are rejected.

``tests/families/test_contract_catalog.py`` runs it for every family of
the catalog (``tests/catalog.py``), which the tests that run one scenario
over every family parametrize over as well.
"""

from __future__ import annotations

import json
import pickle
import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest

from fairshard import (
    CoverageSegment,
    DegenerateConfigWarning,
    FairshardWarning,
    StateDictError,
    check_coverage,
)
from fairshard._core.plans import flatten_items


def flat(items: Any) -> list[int]:
    """Flatten indices, batches of indices or batches of rows into a list of ints."""
    return flatten_items(list(items))[0].tolist()


def quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, fairshard's warnings ignored (padding, small tails: on purpose)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairshardWarning)
        return fn(*args, **kwargs)


def plan_multiset(sampler: Any) -> Counter[int]:
    plan = sampler.plan()
    return Counter(flat(plan.items(np.arange(len(plan), dtype=np.int64))))


def plan_len(plan: Any) -> int:
    """Number of plan positions (items or batches) in one epoch."""
    return len(plan)


def declared_items(sampler: Any, which: str) -> int:
    """Items in the plan positions the partition declares padded or dropped.

    The position count itself for index plans; for batch plans, the items of
    those whole batches (padding recycles batches from the head of the
    remainder, dropping leaves out the last ones). Against the sampler's own
    plan; against the one-rank plan, add ``plan_padding_items``.
    """
    part, plan = sampler.partition(), sampler.plan()
    if which == "pad":
        positions = part.start + np.arange(part.num_padded(), dtype=np.int64)
    else:
        positions = np.arange(part.total - part.num_dropped(), part.total, dtype=np.int64)
    return len(flat(plan.items(positions)))


def plan_padding_items(sampler: Any) -> int:
    """Items of the batches a plan laid out for the world size recycles within itself.

    What the plan on ``W`` ranks holds beyond the one-rank plan of the same
    configuration (the reference the real-rank suites compare against).

    ``KeyBatchSampler(one_key_per_step=True)`` fills each key's last step
    with that key's first batches again; its plan is otherwise without
    repeats, so every repeated item is that padding. Checks the sampler
    declares exactly those batches (``num_padded_batches`` beyond the
    partition's). Other families: 0.
    """
    if not getattr(sampler, "one_key_per_step", False) or sampler.tail != "pad":
        return 0
    plan = sampler.plan()
    batches = [tuple(b) for b in plan.items(np.arange(len(plan), dtype=np.int64))]
    repeated = len(batches) - len(set(batches))
    assert repeated == sampler.num_padded_batches - sampler.partition().num_padded()
    return sum(c - 1 for c in Counter(i for b in batches for i in b).values() if c > 1)


class SamplerContract:
    """Base of the per-sampler contract tests."""

    world_size = 4
    epochs_differ = True  # set_epoch must change the order
    elastic = True  # a strided state resumes on another world size (else: refused, naming both)

    def make(self, rank: int, world_size: int, **kwargs: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def ranks(self, world_size: int | None = None, **kwargs: Any) -> list[Any]:
        w = self.world_size if world_size is None else world_size
        return [self.make(r, w, **kwargs) for r in range(w)]

    # ------------------------------------------------------------------ len
    def test_len_equals_items_yielded(self) -> None:
        for sampler in self.ranks():
            for epoch in (0, 1):
                sampler.set_epoch(epoch)
                assert len(sampler) == len(list(sampler))

    def test_equal_steps_on_every_rank(self) -> None:
        samplers = self.ranks()
        if samplers[0].tail == "uneven":
            pytest.skip("uneven tail: ranks differ by one by design")
        assert len({len(list(s)) for s in samplers}) == 1

    # ------------------------------------------------------------- coverage
    def test_union_of_shares_is_the_plan(self) -> None:
        samplers = self.ranks()
        for epoch in (0, 1):
            observed = []
            for s in samplers:
                s.set_epoch(epoch)
                observed.append(list(s))
            seen: Counter[int] = Counter(i for items in observed for i in flat(items))
            expected = plan_multiset(samplers[0])
            part = samplers[0].partition()
            # The public checker agrees: every rank on its positions, the only
            # repeats declared padding, equal steps unless the tail is uneven.
            verdict = check_coverage(
                samplers[0].plan(), [CoverageSegment(part, observed)], max(expected, default=0) + 1
            )
            assert not verdict["ranks_off_plan"] and verdict["positions_missing"] == (
                part.num_dropped()
            )
            assert verdict["positions_repeated"] == verdict["declared_padding"]
            assert verdict["equal_steps"] or part.tail == "uneven"
            if part.tail == "uneven":
                assert seen == expected
            elif part.tail == "drop":
                assert not seen - expected
                assert sum((expected - seen).values()) == declared_items(samplers[0], "drop")
            else:
                assert not expected - seen
                assert sum((seen - expected).values()) == declared_items(samplers[0], "pad")

    # ---------------------------------------------------------- determinism
    def test_same_seed_and_epoch_same_order(self) -> None:
        a, b = self.make(0, self.world_size), self.make(0, self.world_size)
        a.set_epoch(3)
        b.set_epoch(3)
        assert list(a) == list(b)

    def test_set_epoch_changes_order(self) -> None:
        if not self.epochs_differ:
            pytest.skip("this configuration has no randomness")
        s = self.make(0, self.world_size)
        s.set_epoch(0)
        first = list(s)
        s.set_epoch(1)
        assert list(s) != first

    # ---------------------------------------------------------------- state
    def test_state_round_trip_at_midpoints(self) -> None:
        full = list(self.make(1, self.world_size))
        for k in sorted({0, 1, len(full) // 3, len(full) // 2, max(0, len(full) - 1), len(full)}):
            s = self.make(1, self.world_size)
            it = iter(s)
            head = [next(it) for _ in range(k)]
            state = json.loads(json.dumps(s.state_dict()))
            fresh = self.make(1, self.world_size)
            fresh.load_state_dict(state)
            rest = list(fresh) if k < len(full) else []
            assert head + rest == full, f"resume at {k} of {len(full)}"
            if k < len(full):
                assert len(rest) == len(full) - k

    def test_len_is_the_whole_epoch_through_a_resumed_pass(self) -> None:
        full = list(self.make(0, 2))
        for k in sorted({1, len(full) // 2, max(1, len(full) - 1), len(full)}):
            s = self.make(0, 2)
            it = iter(s)
            head = [next(it) for _ in range(k)]
            fresh = self.make(0, 2)
            fresh.load_state_dict(json.loads(json.dumps(s.state_dict(consumed=k))))
            if k == len(full):  # the end of epoch 0 is the start of epoch 1 ...
                nxt = self.make(0, 2)
                nxt.set_epoch(1)
                assert fresh.epoch == 1 and len(fresh) == fresh.remaining == len(nxt)
                fresh.set_epoch(0)  # ... unless the loop re-announces epoch 0: its end

            assert len(fresh) == len(full), f"len() after a resume at {k} of {len(full)}"
            assert fresh.remaining == len(full) - k
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", ".*yields nothing", DegenerateConfigWarning)
                rest, lengths = [], []
                for item in fresh:
                    rest.append(item)
                    lengths.append(len(fresh))
            assert head + rest == full and len(rest) == len(full) - k
            assert set(lengths) <= {len(full)}, "len() changed during the resumed pass"
            assert len(fresh) == len(full) and fresh.remaining == 0

    def test_abandoned_resumed_pass_warns_once_with_the_count(self) -> None:
        w = 2 if len(self.make(0, 2)) >= 3 else 1  # three steps at least to cut one short
        full = len(self.make(0, w))
        s = self.make(0, w)
        it = iter(s)
        for _ in range(1):
            next(it)
        state = json.loads(json.dumps(s.state_dict(consumed=1)))
        fresh = self.make(0, w)
        fresh.load_state_dict(state)
        it = iter(fresh)
        next(it)  # the loop stops after one step: full - 2 never read
        unread = f"{full - 2} of the epoch's {full}"
        with pytest.warns(DegenerateConfigWarning, match=f"{unread} .* never read"):
            fresh.set_epoch(1)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.filterwarnings("ignore", ".*split evenly", DegenerateConfigWarning)
            list(fresh)  # epoch 1, not resumed: nothing to say
            fresh.set_epoch(2)
            for correct in range(3):
                again = self.make(0, w)
                again.load_state_dict(state)
                if correct == 0:  # read to the end
                    list(again)
                elif correct == 1:  # a probe, then the pass from the resume point again
                    next(iter(again))
                    assert len(list(again)) == full - 1
                else:  # a pass not resumed, cut short
                    again = self.make(0, w)
                    next(iter(again))
                again.set_epoch(1)

    def test_pickles_mid_pass(self) -> None:
        """A copy sent to a spawn-started process: same state, same rest of the pass."""
        full = list(self.make(1, self.world_size))
        for k in sorted({0, len(full) // 2}):
            s = self.make(1, self.world_size)
            it = iter(s)
            head = [next(it) for _ in range(k)]
            twin = pickle.loads(pickle.dumps(s))
            assert twin.state_dict() == s.state_dict()
            fresh = pickle.loads(pickle.dumps(self.make(1, self.world_size)))
            fresh.load_state_dict(twin.state_dict())
            assert head + list(fresh) == full, f"pickled at {k} of {len(full)}"

    def test_elastic_resume_four_to_three(self) -> None:
        """4 ranks consume a third of the epoch, 3 ranks finish it: exact accounting.

        Every item yielded is the plan's item at a position the partitions
        assign, and in position space the only gaps are the new partition's
        declared drops and the only repeats its declared padding (plus any
        padding the old ranks had already reached): nothing is tolerated
        beyond what the partitions declare.
        """
        old = self.ranks(4)
        if old[0].layout != "strided":
            pytest.skip("elastic resume needs the strided layout")
        iters = [iter(s) for s in old]
        steps = max(1, len(old[0]) // 3)
        observed: Counter[int] = Counter()
        for it in iters:
            observed.update(flat(next(it) for _ in range(steps)))
        state = json.loads(json.dumps(old[0].state_dict()))
        if not self.elastic:  # a plan laid out for the world size: refused, naming both
            with pytest.raises(StateDictError, match="num_replicas=4.*num_replicas=3"):
                self.ranks(3)[0].load_state_dict(state)
            return
        plan, old_part = old[0].plan(), old[0].partition()
        new = self.ranks(3)
        for s in new:
            s.load_state_dict(state)
            if s.epoch == 1:  # a tiny plan, over after a third: the state is epoch 1's start
                s.set_epoch(0)  # re-announced, epoch 0 is its end (what this test reads)
        new_part = new[0].partition()  # the remainder of the epoch, re-partitioned over 3
        assert new_part.world_size == 3 and new_part.start > 0
        for r, s in enumerate(new):  # the epoch's len: the steps taken plus those left
            assert len(s) == steps + new_part.num_items(r) and s.remaining == len(s) - steps
        with warnings.catch_warnings():
            # A tiny plan can be over after a third of it: the new ranks' empty pass
            # then says why (pinned in tests/core/test_resume_defects.py).
            warnings.filterwarnings("ignore", ".*yields nothing", DegenerateConfigWarning)
            for s in new:
                observed.update(flat(s))
        old_positions = np.concatenate([old_part.positions(r, 0, steps) for r in range(4)])
        new_positions = np.concatenate(
            [new_part.positions(r, 0, new_part.num_items(r)) for r in range(3)]
        )
        positions = np.concatenate([old_positions, new_positions])
        assert observed == Counter(flat(plan.items(positions))), "a rank strayed from its share"
        distinct = len(np.unique(positions))
        old_repeats = len(old_positions) - len(np.unique(old_positions))
        assert plan_len(plan) - distinct == new_part.num_dropped(), "a sample was lost"
        assert len(positions) - distinct == old_repeats + new_part.num_padded(), (
            "samples repeated beyond declared padding"
        )

    def test_next_epoch_after_a_resume_is_the_uninterrupted_one(self) -> None:
        reference = self.make(1, self.world_size)
        list(reference)
        reference.set_epoch(1)
        expected = list(reference)
        full = len(self.make(1, self.world_size))
        for k in sorted({0, full // 2, full}):
            s = self.make(1, self.world_size)
            it = iter(s)
            for _ in range(k):
                next(it)
            fresh = self.make(1, self.world_size)
            fresh.load_state_dict(json.loads(json.dumps(s.state_dict())))
            if k == full:  # the loaded state ended the epoch: it is the next one's start
                assert fresh.epoch == 1 and list(fresh) == expected, f"the boundary of {full}"
                fresh.load_state_dict(json.loads(json.dumps(s.state_dict())))
                fresh.set_epoch(0)  # re-announcing the finished epoch: its end, empty
                with pytest.warns(DegenerateConfigWarning, match="yields nothing"):
                    assert list(fresh) == []
            else:
                list(fresh)
            fresh.set_epoch(1)
            assert list(fresh) == expected, f"the epoch after a resume at {k} of {full}"

    def test_state_from_other_config_rejected(self) -> None:
        s = self.make(0, self.world_size)
        state = s.state_dict()
        bad = dict(state)
        bad["config"] = {**state["config"], "tail": "__other__"}
        with pytest.raises(StateDictError, match="checksum"):
            s.load_state_dict(bad)
        with pytest.raises(StateDictError, match="not a fairshard sampler state"):
            s.load_state_dict({"yielded": 3})
        with pytest.raises(StateDictError, match="must be a dict"):
            s.load_state_dict([1, 2])  # type: ignore[arg-type]

    # --------------------------------------------------------------- epochs
    def test_repeated_epoch_warns_once(self) -> None:
        s = self.make(0, self.world_size)
        list(s)
        with pytest.warns(DegenerateConfigWarning, match="set_epoch"):
            list(s)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            list(s)  # warned once already

    def test_auto_epoch_advances(self) -> None:
        s = self.make(0, self.world_size, auto_epoch=True)
        first = list(s)
        second = list(s)
        assert s.epoch == 1
        ref = self.make(0, self.world_size)
        ref.set_epoch(1)
        assert second == list(ref)
        if self.epochs_differ:
            assert first != second
