"""``python -m fairshard``: the same CLI as the ``fairshard`` script."""

from ._cli import main

raise SystemExit(main())
