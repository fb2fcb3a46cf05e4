"""`python -m pyapp`."""

from pyapp.cli import main

raise SystemExit(main())
