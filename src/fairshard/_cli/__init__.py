"""Layer 7, the ``fairshard`` command line (one module per sub-command)."""

from .main import main

__all__ = ["main"]
