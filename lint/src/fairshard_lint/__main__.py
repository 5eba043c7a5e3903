"""``python -m fairshard_lint``: the same program as ``fairshard-lint``."""

from .cli import main

raise SystemExit(main())
