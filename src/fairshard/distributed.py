"""``fairshard.distributed``: the tools that run a job on many processes.

Checking that the ranks agree (:func:`verify`), starting a process group
that survives elastic restarts (:func:`init_elastic_process_group`),
checkpointing atomically (:func:`save_atomic`) and saving a sampler's state
behind a ``DataLoader`` whose workers prefetch (:func:`loader_state_dict`).
The same objects are importable from ``fairshard`` itself.
"""

from ._core.registry import set_public_path as _set_public_path
from ._core.resume import loader_state_dict
from ._distributed.checkpoint import save_atomic
from ._distributed.launch import init_elastic_process_group
from ._distributed.verify import verify

__all__ = ["init_elastic_process_group", "loader_state_dict", "save_atomic", "verify"]

for _name in __all__:  # the public path, in reprs, pickles and docs
    _set_public_path(globals()[_name], __name__)
del _name
