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
  again), before any batch is drawn; the sampler itself refuses at the
  first batch.
* ``fairshard.integrations.accelerate``: ``prepare_data_loader(accelerator,
  loader)`` (accelerate's ``DataLoaderShard`` without the second sharding)
  and ``scheduler_steps``.
* ``fairshard.integrations.transformers``: ``FairshardTrainer``, a
  ``transformers.Trainer`` on fairshard samplers that keeps the shares and
  resumes mid-epoch from the saved loader state instead of skipping batches.
* ``fairshard.integrations.lightning``: ``ExactResume``, a callback for exact
  mid-epoch resume of a plain DataLoader.
* ``fairshard.integrations.ray``: ``prepare_data_loader(loader)``, Ray
  Train's call with ``add_dist_sampler=False`` and the world checked.
* ``fairshard.integrations.torchft``: ``ReplicaGroupSampler``, a sampler
  read by (replica group, rank) under torchft's ``Manager``; the epoch's
  unread positions are dealt again at each quorum change and the cursor
  travels with the model state to a joining group.
* ``fairshard.integrations.hf_datasets``: ``sharded_iterable(ids)``, a
  ``datasets.IterableDataset``'s shards as a ``ShardedIterable``.
"""

from .accelerate import check_accelerate
from .lightning import check_lightning

__all__ = ["check_accelerate", "check_lightning"]
