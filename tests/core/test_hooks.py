"""The hooks docs/architecture.md names are the base class's hooks, and they exist."""

from __future__ import annotations

import re
from pathlib import Path

from fairshard._core.base import PlannedSampler

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def _documented() -> dict[str, bool]:
    """``{hook: required}`` from the table under "The hooks a family writes"."""
    section = DOC.read_text(encoding="utf-8").split("## The hooks a family writes", 1)[1]
    rows = re.findall(r"^\| `(_\w+)` \| (yes|no) \|", section, flags=re.MULTILINE)
    return {name: required == "yes" for name, required in rows}


def test_the_documented_hooks_are_the_base_class_hooks() -> None:
    documented = _documented()
    assert documented, "the hooks table in docs/architecture.md is missing"
    required = {name for name, req in documented.items() if req}
    optional = {name for name, req in documented.items() if not req}
    assert required == set(PlannedSampler.REQUIRED_HOOKS)
    assert optional == set(PlannedSampler.OPTIONAL_HOOKS)


def test_every_hook_exists_and_only_the_required_ones_are_abstract() -> None:
    hooks = PlannedSampler.REQUIRED_HOOKS + PlannedSampler.OPTIONAL_HOOKS
    for name in hooks:
        assert callable(getattr(PlannedSampler, name, None)), name
    abstract = {n for n in hooks if getattr(getattr(PlannedSampler, n), "__isabstractmethod__", 0)}
    assert abstract == set(PlannedSampler.REQUIRED_HOOKS)


def test_weighted_sampler_uses_the_hooks_not_the_base_internals() -> None:
    """The staged weights ride on _on_epoch_change / _load_config (issue 22.2)."""
    from fairshard import WeightedSampler

    own = vars(WeightedSampler)
    assert "_on_epoch_change" in own and "_load_config" in own
    assert "_epoch_for_pass" not in own and "set_epoch" not in own
