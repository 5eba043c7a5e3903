"""Layer 4, iterable datasets: sharded streams, coordinated stops, seeded splits.

Imports ``_core``, ``_distributed`` and ``_random``; never ``_samplers`` or ``_batching``.
"""
