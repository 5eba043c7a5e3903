"""The fault-injection harness: its replay rule, its fault plans, and a real run.

The replay tests feed hand-written ledgers to ``replay_records`` so that each
way of getting it wrong (a lost sample, a repeat, a redo window counted as a
repeat, an unfinished job) is shown to be caught. The slow test runs the real
thing: torchrun on gloo, SIGKILLs, restarts and an elastic shrink 4 -> 3 -> 2.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.catalog import sampler_families
from tests.fault.controller import JobSpec, plan_faults, run_job
from tests.fault.families import REGISTRY, Family
from tests.fault.replay import replay_records

FOUR = Family("four", lambda n, w, r, s: None, lambda n, s, e: Counter(range(4)))


def start(launch: int, gen: int, rank: int, resume: int) -> dict[str, Any]:
    return {"t": "start", "launch": launch, "gen": gen, "rank": rank, "resume_step": resume}


def items(launch: int, gen: int, rank: int, step: int, *indices: int) -> dict[str, Any]:
    return {
        "t": "items",
        "launch": launch,
        "gen": gen,
        "rank": rank,
        "epoch": 0,
        "step": step,
        "indices": list(indices),
    }


def segment(launch: int, gen: int, step: int, padded: int = 0) -> dict[str, Any]:
    return {
        "t": "segment",
        "launch": launch,
        "gen": gen,
        "rank": 0,
        "epoch": 0,
        "step": step,
        "padded": padded,
        "dropped": 0,
    }


def done(launch: int, gen: int, rank: int) -> dict[str, Any]:
    return {"t": "done", "launch": launch, "gen": gen, "rank": rank, "step": 99}


def history(resume: int, redo: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Two ranks: gen 0 does steps 1-2 (+ ``redo``), is killed; gen 1 resumes at ``resume``."""
    return [
        start(0, 0, 0, 0),
        start(0, 0, 1, 0),
        segment(0, 0, 0),
        items(0, 0, 0, 1, 0),
        items(0, 0, 1, 1, 1),
        *redo,
        {"t": "kill", "launch": 0, "gen": 0, "rank": 1, "step": 2},
        start(0, 1, 0, resume),
        start(0, 1, 1, resume),
        segment(0, 1, resume),
        items(0, 1, 0, 2, 2),
        items(0, 1, 1, 2, 3),
        done(0, 1, 0),
        done(0, 1, 1),
    ]


def test_exact_history_with_redo_window() -> None:
    redone = [items(0, 0, 0, 2, 2)]  # done after the checkpoint at step 1, then killed
    result = replay_records(history(1, redone), FOUR, 4, 0, 1)
    assert result.ok, result
    assert (result.redo, result.kills, result.generations) == (1, 1, 2)
    assert result.epochs[0].consumed == 4


def test_resuming_behind_the_checkpoint_is_a_repeat() -> None:
    # Gen 0 checkpointed step 2 (index 2 by rank 0 committed, rank 1 was killed
    # first); a sampler that resumes one item too early yields index 2 again.
    records = [
        start(0, 0, 0, 0),
        start(0, 0, 1, 0),
        segment(0, 0, 0),
        items(0, 0, 0, 1, 0),
        items(0, 0, 1, 1, 1),
        items(0, 0, 0, 2, 2),
        start(0, 1, 0, 2),
        start(0, 1, 1, 2),
        segment(0, 1, 2),
        items(0, 1, 0, 3, 2),
        items(0, 1, 1, 3, 3),
        done(0, 1, 0),
        done(0, 1, 1),
    ]
    result = replay_records(records, FOUR, 4, 0, 1)
    assert (result.lost, result.repeated, result.redo, result.ok) == (0, 1, 0, False)


def test_lost_sample_detected() -> None:
    records = [r for r in history(1, []) if r.get("indices") != [3]]
    result = replay_records(records, FOUR, 4, 0, 1)
    assert result.lost == 1 and not result.ok


def test_declared_padding_is_exact() -> None:
    records = [*history(1, []), items(0, 1, 0, 3, 0)]
    assert replay_records(records, FOUR, 4, 0, 1).repeated == 1  # undeclared duplicate
    records = [
        r if r["t"] != "segment" or r["gen"] != 1 else segment(0, 1, 1, padded=1) for r in records
    ]
    assert replay_records(records, FOUR, 4, 0, 1).ok  # the same duplicate, declared


def test_unfinished_job_and_foreign_index_flagged() -> None:
    records = [r for r in history(1, []) if not (r["t"] == "done" and r["rank"] == 1)]
    assert "never finished" in " ".join(replay_records(records, FOUR, 4, 0, 1).problems)
    foreign = [*history(1, []), items(0, 1, 1, 3, 17)]
    assert replay_records(foreign, FOUR, 4, 0, 1).repeated == 1


@pytest.mark.parametrize("seed", range(20))
def test_fault_plans_fit_and_increase(seed: int) -> None:
    spec = JobSpec(REGISTRY["distributed-pad-lazy"], kills=6, seed=seed)
    plan = plan_faults(spec, random.Random(seed))
    events = sorted(
        [(k["step"], "kill", k["launch"]) for k in plan["kills"]]
        + [(h["step"], "halt", h["launch"]) for h in plan["halts"]]
    )
    steps = [e[0] for e in events]
    assert steps == sorted(set(steps)) and steps[-1] <= spec.min_steps()
    assert [e[2] for e in events] == sorted(e[2] for e in events)  # launches in order
    assert sum(plan["restarts"]) == 6 and len(plan["halts"]) == 2
    for kill in plan["kills"]:
        assert 0 <= kill["rank"] < spec.worlds[kill["launch"]]
        assert kill["phase"] != "mid-checkpoint" or kill["rank"] == 0


def test_families_declare_every_index_once() -> None:
    for family in REGISTRY.values():
        if family.expected is None:
            continue  # plan-defined families: see the next test
        sampler = family.build(53, 1, 0, 3)
        assert family.expected_epoch(53, 3, 1) == Counter(range(53))
        assert sorted(int(i) for i in sampler) == list(range(53))
        assert family.declared(sampler) == {"padded": 0, "dropped": 0}


@pytest.mark.filterwarnings("ignore:.*split evenly")  # a padding tail, declared and checked
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_declared_tail_matches_what_the_ranks_take(name: str) -> None:
    """The padding/drops a family declares are exactly the gap between plan and shares."""
    family = REGISTRY[name]
    for world in (1, 3, 4):
        samplers = [family.build(53, world, r, 3) for r in range(world)]
        for s in samplers:
            s.set_epoch(1)
        declared = family.declared(samplers[0])
        seen: Counter[int] = Counter()
        for s in samplers:
            for item in s:
                seen.update(item if isinstance(item, list) else [item])
        expected = family.expected_epoch(53, 3, 1)
        assert sum((seen - expected).values()) == declared["padded"], (name, world)
        assert sum((expected - seen).values()) == declared["dropped"], (name, world)


def _one_per_kind() -> list[str]:
    """The first plan-defined, elastic catalog configuration of each kind (a job each is slow)."""
    names: dict[str, str] = {}
    for entry in sampler_families():
        family = REGISTRY[entry.name]
        if family.expected is None and family.elastic and family.equal_steps:
            names.setdefault(entry.kind, entry.name)
    return sorted(names.values())


# NOTE (suite time): a job is 10-15 s of real processes; one per kind is 13 jobs. `make test`
# runs these kinds (a batch plan, an index plan, a mixture that adapts online); the others
# carry the ``matrix`` marker and run in `make faults`, with the full fault matrix.
IN_MAKE_TEST = ("class-batch", "weighted", "online-mixture")


def _kill_and_shrink_params() -> list[Any]:
    return [
        pytest.param(name, marks=() if name in IN_MAKE_TEST else (pytest.mark.matrix,))
        for name in _one_per_kind()
    ]


def test_the_kinds_make_test_runs_are_catalog_kinds() -> None:
    assert set(IN_MAKE_TEST) <= set(_one_per_kind())


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*split evenly")  # a padding tail, declared and checked
@pytest.mark.parametrize("name", _kill_and_shrink_params())
def test_every_family_survives_a_kill_and_a_shrink(name: str, tmp_path: Path) -> None:
    spec = JobSpec(
        REGISTRY[name], kills=1, seed=5, worlds=(4, 3), dataset_size=23, epochs=2, every=2
    )
    job = run_job(spec, tmp_path)
    assert job.ok, (job.problems, job.replay)
    assert job.replay.kills == 1
    assert job.replay.lost == 0 and job.replay.repeated == 0


@pytest.mark.slow
def test_sigkills_and_elastic_shrink_lose_and_repeat_nothing(tmp_path: Path) -> None:
    spec = JobSpec(
        REGISTRY["distributed-pad-lazy"],
        kills=3,
        seed=11,
        worlds=(4, 3, 2),
        dataset_size=29,
        epochs=2,
        every=2,
    )
    job = run_job(spec, tmp_path)
    assert job.ok, (job.problems, job.replay)
    assert job.replay.kills == 3 and job.replay.halts == 2
    assert job.replay.generations == 3 + 3
    assert job.replay.lost == 0 and job.replay.repeated == 0
    assert [e.consumed for e in job.replay.epochs] == [
        29 + e.padded - e.dropped for e in job.replay.epochs
    ]
