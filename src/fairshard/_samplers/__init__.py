"""Layer 4, index samplers: distributed, weighted, class-balanced, hard-example, the wrapper.

Each family is a plan over dataset indices under the core's partition and
state. Imports ``_core``, ``_distributed`` and ``_random``; never ``_batching`` or ``_streams``.
"""
