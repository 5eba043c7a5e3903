"""Helpers for using fairshard samplers inside training frameworks.

Each helper lives in a small module and imports its framework lazily (or not
at all), so ``import fairshard.integrations`` never requires one.

* ``check_lightning(trainer)``: raises when Lightning has wrapped a fairshard
  sampler in its own distributed sampler (``use_distributed_sampler=True``,
  the default), which shards every rank's share a second time.
* ``check_accelerate(loader)``: raises when ``Accelerator.prepare`` wrapped a
  DataLoader around a fairshard sampler (it always shards it again; prepare
  the model and optimizer only).
"""

from .accelerate import check_accelerate
from .lightning import check_lightning

__all__ = ["check_accelerate", "check_lightning"]
