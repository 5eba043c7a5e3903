"""Layer 1, random primitives: seeding, keyed permutations, counter hashes, alias tables.

Pure numpy; imports nothing of fairshard but ``_errors``. Every sequence these
produce is pinned by the golden files under ``tests/golden``.
"""
