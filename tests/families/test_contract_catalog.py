"""The sampler contract (``tests/contract.py``) for every sampler family of the catalog.

One ``SamplerContract`` subclass per ``tests.catalog`` sampler entry, built
from the entry's small configuration: a family added to the catalog is
under the contract without another line. The per-family modules
(``tests/samplers/``, ``tests/batching/``) add further configurations of
their own.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.catalog import Family, sampler_families

from ..contract import SamplerContract

# A small dataset split evenly by no family: the tails (and their warnings) are exercised.
pytestmark = pytest.mark.filterwarnings("ignore:.*split evenly")
N = 61


def _contract(family: Family) -> type[SamplerContract]:
    def make(self: SamplerContract, rank: int, world_size: int, **kwargs: Any) -> Any:
        return family.make(N, rank, world_size, **kwargs)

    attrs: dict[str, Any] = {
        "make": make,
        "epochs_differ": family.shuffled,
        "elastic": family.elastic,
        "__doc__": f"The contract for {family.name!r}.",
    }
    if not family.auto_epoch:  # the constructor takes no auto_epoch (tested in its module)
        attrs["test_auto_epoch_advances"] = None
    name = "TestContract" + "".join(p.capitalize() for p in family.name.split("-"))
    return type(name, (SamplerContract,), attrs)


for _family in sampler_families():
    _cls = _contract(_family)
    globals()[_cls.__name__] = _cls
del _family, _cls
