"""The hooks docs/architecture.md names are the base class's hooks, and they exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fairshard._core.base import PlannedSampler

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def _documented() -> dict[str, str]:
    """``{hook: yes|no|migrating}`` from the table under "The hooks a family writes"."""
    section = DOC.read_text(encoding="utf-8").split("## The hooks a family writes", 1)[1]
    rows = re.findall(r"^\| `(_\w+)` \| (yes|no|migrating) \|", section, flags=re.MULTILINE)
    return dict(rows)


def test_the_documented_hooks_are_the_base_class_hooks() -> None:
    documented = _documented()
    assert documented, "the hooks table in docs/architecture.md is missing"
    by_kind = {k: {n for n, v in documented.items() if v == k} for k in ("yes", "no", "migrating")}
    assert by_kind["yes"] == set(PlannedSampler.REQUIRED_HOOKS)
    assert by_kind["no"] == set(PlannedSampler.OPTIONAL_HOOKS)
    assert by_kind["migrating"] == set(PlannedSampler.MIGRATION_HOOKS)


def test_every_hook_exists_and_only_the_required_ones_are_abstract() -> None:
    hooks = PlannedSampler.REQUIRED_HOOKS + PlannedSampler.OPTIONAL_HOOKS
    for name in hooks:
        assert callable(getattr(PlannedSampler, name, None)), name
    abstract = {n for n in hooks if getattr(getattr(PlannedSampler, n), "__isabstractmethod__", 0)}
    assert abstract == set(PlannedSampler.REQUIRED_HOOKS)


def test_the_migration_hooks_have_no_default_and_every_migrating_family_writes_them() -> None:
    """No default fits a family's resume on changed data, so the base has none."""
    import fairshard
    from fairshard._core.registry import families

    for public in fairshard.__all__:  # the package imports its families lazily
        getattr(fairshard, public)
    for name in PlannedSampler.MIGRATION_HOOKS:
        assert not hasattr(PlannedSampler, name), name
    migrating = [c for c in families().values() if getattr(c, "_data_keys", ())]
    assert migrating, "no family migrates: the catalog lost migrate="
    for cls in migrating:
        for name in PlannedSampler.MIGRATION_HOOKS:
            assert callable(getattr(cls, name, None)), (cls.__name__, name)


@pytest.mark.parametrize("missing", ["_old_plan_length", "_rest_plan"])
def test_a_family_that_migrates_without_a_hook_is_refused_at_class_definition(missing: str) -> None:
    hooks = {
        "_old_plan_length": lambda self, change, saved, epoch: 0,
        "_rest_plan": lambda self, change, consumed, epoch: None,
    }
    del hooks[missing]
    namespace = {"_data_keys": ("n",), **hooks}
    with pytest.raises(TypeError, match=f"_data_keys=.*does not define {missing}.*both hooks"):
        type("HalfMigrating", (PlannedSampler,), namespace, register=False)


def test_weighted_sampler_uses_the_hooks_not_the_base_internals() -> None:
    """The staged weights ride on _on_epoch_change / _load_config (issue 22.2)."""
    from fairshard import WeightedSampler

    own = vars(WeightedSampler)
    assert "_on_epoch_change" in own and "_load_config" in own
    assert "_epoch_for_pass" not in own and "set_epoch" not in own
