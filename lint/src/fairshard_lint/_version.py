"""The linter's version: released together with fairshard, always the same number."""

__version__ = "0.1.0"
