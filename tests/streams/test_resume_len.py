"""``len()`` of a resumed stream is the epoch's, and a resumed pass cut short says so.

For every stream family of the catalog (``tests/catalog.py``), as the
sampler contract checks it for the samplers: after ``load_state_dict`` in
the middle of an epoch on the same shape, ``len()`` is the whole epoch's and
the pass yields ``len() - consumed``; a resumed pass left with unread items
when ``set_epoch`` moves on warns once with the count; one read to its end
does not.
"""

from __future__ import annotations

import warnings

import pytest

from fairshard import DegenerateConfigWarning
from tests.catalog import CATALOG

STREAMS = [f.name for f in CATALOG.values() if f.items == "stream"]
N = 61


def _resumed(name: str, k: int) -> tuple[list[int], list[int], object]:
    make = CATALOG[name].make
    full = list(make(N, 0, 2))
    s = make(N, 0, 2)
    it = iter(s)
    head = [next(it) for _ in range(k)]
    fresh = make(N, 0, 2)
    fresh.load_state_dict(s.state_dict())
    return full, head, fresh


@pytest.mark.parametrize("name", STREAMS)
def test_len_of_a_resumed_stream_is_the_whole_epoch(name: str) -> None:
    full, head, fresh = _resumed(name, 7)
    assert len(fresh) == len(full)  # type: ignore[arg-type]
    rest = list(fresh)  # type: ignore[call-overload]
    assert head + rest == full and len(rest) == len(full) - 7
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh.set_epoch(1)  # type: ignore[attr-defined]  # read to its end: nothing to say


@pytest.mark.parametrize("name", STREAMS)
def test_a_resumed_stream_pass_cut_short_warns_with_the_count(name: str) -> None:
    full, _, fresh = _resumed(name, 7)
    next(iter(fresh))  # type: ignore[call-overload]
    with pytest.warns(DegenerateConfigWarning, match=f"{len(full) - 8} of the epoch's {len(full)}"):
        fresh.set_epoch(1)  # type: ignore[attr-defined]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        next(iter(fresh))  # type: ignore[call-overload]  # epoch 1 was not resumed
        fresh.set_epoch(2)  # type: ignore[attr-defined]
