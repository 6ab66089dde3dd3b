"""The server's validator needs only the request section of the schema: it is built
alone at start-up (the results and events sections wait for ``herdr api schema``), and
it is the very section the whole document exports."""

from __future__ import annotations

import subprocess
import sys

from herdr.api import schema


def test_request_defs_are_the_documents_request_section() -> None:
    doc = schema.build_schema()
    request = doc["schemas"]["request"]
    assert schema.request_defs() == request["$defs"]
    refs = schema.method_params_refs()
    assert {branch["properties"]["method"]["const"] for branch in request["oneOf"]} == set(refs)


def test_validator_defs_do_not_build_the_whole_document() -> None:
    code = (
        "from herdr.api import schema\n"
        "schema.request_defs(); schema.method_params_refs()\n"
        "print(schema._built.cache_info().currsize)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"
