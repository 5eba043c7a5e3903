"""Layer 2, the job: the process world a sampler lives in and the tools that run a job.

``world`` (rank and world size resolution, seed agreement), ``groups`` (the
data-parallel group of ``group=``: a process group or a device mesh),
``model_parallel`` (the model-parallel groups a process belongs to, and the
rules that refuse them as a sampler's world), ``collectives``
(the few collectives fairshard makes, and the rule for when it may),
``local_rank`` (the multi-node ``rank=LOCAL_RANK`` check), ``launch``
(elastic process groups), ``checkpoint`` (atomic saves), ``verify`` (ranks
compare fingerprints) and ``digest`` (the one stable hash). Nothing here knows
a sampler family: samplers are read through their public protocol, so the
core above can call in and nothing here calls up. Imports only ``_errors`` and
``_random``.
"""
