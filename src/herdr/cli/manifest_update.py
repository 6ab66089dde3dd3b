"""``herdr server update-agent-manifests``: check the catalog now, then reload.

As in herdr, the check runs in the CLI process (its network wait never touches the
server), then the server is asked to reload and its manifest status is printed. A
summary of the pass goes to stderr so stdout stays the server's JSON.
"""

from __future__ import annotations

import argparse
import os
import sys


def run_update_agent_manifests(args: argparse.Namespace) -> int:
    from herdr.cli.transport import call_and_print
    from herdr.detect.manifest.sources import ManifestDirs
    from herdr.detect.remote.catalog import catalog_url
    from herdr.detect.remote.check import run_check
    from herdr.server.manifest_updates import write_cache_file

    env = os.environ
    report = run_check(ManifestDirs.from_env(env), catalog_url(env), write_cache_file)
    for warning in report.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    for label, status in report.agents.items():
        if status.last_result == "failed" and status.last_error is not None:
            sys.stderr.write(f"{label}: failed: {status.last_error}\n")
    for label, version in report.updated:
        sys.stderr.write(f"{label}: updated to {version}\n")
    sys.stderr.write(f"manifest check: {report.last_result}\n")
    code = call_and_print(args, "server.reload_agent_manifests", {})
    return code if report.last_result == "checked" else max(code, 1)
