"""Layer 4, batch samplers: class batches, length buckets, token budgets, batch sharding.

Each family is a plan over whole batches (CSR arrays) under the core's
partition and state. Imports ``_core``, ``_distributed`` and ``_random``; never ``_samplers``
or ``_streams``.
"""
