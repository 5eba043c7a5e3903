"""``python -m fairshard``: the same CLI as the ``fairshard`` script."""

from ._cli.main import main

raise SystemExit(main())
