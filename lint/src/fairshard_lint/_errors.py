"""The linter's one exception: a usage error (unknown rule code, a path that is not a file).

The linter imports nothing beyond the standard library, so it cannot use
fairshard's exceptions; like them, this one subclasses ``ValueError`` and
its message names the argument, its value and the fix.
"""

from __future__ import annotations

__all__ = ["LintConfigError"]


class LintConfigError(ValueError):
    """An argument of the linter has an invalid value (the message says which and why)."""
