"""The one place the version is written.

``pyproject.toml`` reads it from here, and the linter's distribution
(``lint/``) releases under the same number: ``lint/src/fairshard_lint/_version.py``
is a link to this file, so its sdist and wheel carry this text.
"""

__version__ = "0.3.0"
