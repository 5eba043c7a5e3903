"""``fairshard.diagnostics``: see what a sampler configuration does before a job runs it.

Simulating every rank of every epoch in one process (:func:`simulate`,
:class:`SimulationReport`, :func:`plot_simulation`), checking what ranks
took against the plan (:func:`check_coverage`, :class:`CoverageSegment`)
and measuring how evenly batch costs fall on the ranks of a step
(:func:`step_imbalance`). The same objects are importable from ``fairshard``
itself.
"""

from ._batching.cost_balance import step_imbalance
from ._core.registry import set_public_path as _set_public_path
from ._diagnostics.coverage import CoverageSegment, check_coverage
from ._diagnostics.plot import plot_simulation
from ._diagnostics.simulate import SimulationReport, simulate

__all__ = [
    "CoverageSegment",
    "SimulationReport",
    "check_coverage",
    "plot_simulation",
    "simulate",
    "step_imbalance",
]

for _name in __all__:  # the public path, in reprs, pickles and docs
    _set_public_path(globals()[_name], __name__)
del _name
