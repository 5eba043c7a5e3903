"""Fault-injection harness: real torchrun jobs killed with SIGKILL, then replayed.

``controller`` launches ``tests/fault/train.py`` under torchrun, kills ranks
at planned steps, shrinks the job 4 -> 3 -> 2 and finally ``replay`` checks
the ranks' ledgers: every sample of every epoch exactly once, beyond declared
padding and drops, with the redo window counted separately. ``elastic`` does
the same on two node agents (``tests/multinode.py``) whose membership
changes: a whole node lost, the job shrunk to 2 ranks, grown back to 4.
``probe`` measures whether a process group rejoins after a restart. Sampler
families come from the test catalog (``tests/catalog.py``) through
``families.REGISTRY``.
"""
