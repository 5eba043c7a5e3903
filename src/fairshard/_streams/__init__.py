"""Layer 3, iterable datasets: sharded streams, coordinated stops, seeded splits.

Imports ``_core`` and ``_random``; never ``_samplers`` or ``_batching``.
"""
