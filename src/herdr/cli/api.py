"""``herdr api schema [--json] [--output P]``: the socket API's JSON schema."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from herdr.cli.main import CliError


def run_schema(args: argparse.Namespace) -> int:
    from herdr.api.schema import build_schema, summary

    doc = build_schema()
    if args.output:
        path = Path(args.output).expanduser()
        try:
            path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {path}: {exc}") from None
        return 0
    if args.json:
        sys.stdout.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(summary(doc) + "\n")
    return 0


def run_snapshot(args: argparse.Namespace) -> int:
    from herdr.cli.transport import call_and_print

    return call_and_print(args, "session.snapshot", {})
