"""Helpers for using fairshard samplers inside training frameworks.

Each helper lives in a small module and imports its framework lazily (or not
at all), so ``import fairshard.integrations`` never requires one.

* ``check_lightning(trainer)``: Lightning's default flags keep fairshard's
  index samplers as built (they are ``torch.utils.data.DistributedSampler``
  subclasses); this raises for the mistakes that remain silent -- a sampler
  wrapped by hand in Lightning's ``DistributedSamplerWrapper``, or built for
  another world than the trainer's.
* ``check_accelerate(loader)``: raises when ``Accelerator.prepare`` wrapped a
  DataLoader around a multi-rank fairshard sampler (it always shards it
  again; prepare the model and optimizer only), before any batch is drawn;
  the sampler itself refuses at the first batch.
"""

from .accelerate import check_accelerate
from .lightning import check_lightning

__all__ = ["check_accelerate", "check_lightning"]
