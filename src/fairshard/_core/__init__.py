"""Layer 2, the core: plan x partition x cursor, the sealed state, the world.

``plans`` (what an epoch yields, a pure function of seed, epoch and config),
``partition`` (which plan positions each rank takes), ``base`` (the thin
sampler class that joins them and owns the cursor and ``state_dict``),
``state`` (the versioned, sealed state protocol), ``world`` (rank and world
size resolution, seed agreement, collectives), ``verify`` and the shared
input readers. Imports only ``_errors`` and ``_random``.
"""
