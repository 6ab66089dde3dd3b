"""``python -m herdr`` runs the CLI; only the light CLI module is imported here."""

from __future__ import annotations

from herdr.cli.main import main

raise SystemExit(main())
