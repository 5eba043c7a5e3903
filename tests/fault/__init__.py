"""Fault-injection harness: real torchrun jobs killed with SIGKILL, then replayed.

``controller`` launches ``tests/fault/train.py`` under torchrun, kills ranks
at planned steps, shrinks the job 4 -> 3 -> 2 and finally ``replay`` checks
the ranks' ledgers: every sample of every epoch exactly once, beyond declared
padding and drops, with the redo window counted separately. Sampler families
are one entry each in ``families.REGISTRY``.
"""
