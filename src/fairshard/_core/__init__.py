"""Layer 3, the core: plan x partition x cursor and the sealed state.

``plans`` (what an epoch yields, a pure function of seed, epoch and config),
``partition`` (which plan positions each rank takes), ``base`` (the thin
sampler class that joins them and owns the cursor and ``state_dict``),
``state`` (the versioned, sealed state protocol), ``resume`` (loader-aware
resume points) and the shared input readers. Imports only ``_errors``,
``_random`` and ``_distributed`` (the process world the sampler lives in).
"""
