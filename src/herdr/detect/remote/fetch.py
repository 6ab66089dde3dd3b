"""Download one catalog or manifest with the limits herdr's ``curl`` call uses.

Standard-library ``urllib`` is enough: plain GET, redirects, a timeout and a byte cap
are all it needs, and it keeps the download path free of extra dependencies. It
blocks, so the server calls it from a worker thread. ``urllib.request`` (with
``http.client`` and ``email``: ~11 ms) is imported on the first download, not at the
server's start.
"""

from __future__ import annotations

import hashlib

MAX_BYTES = 262_144  # curl --max-filesize 262144
TIMEOUT_S = 15.0  # curl --max-time 15 (per socket operation here)


class FetchError(Exception):
    """Any failure to get a usable body; the message is reported, never raised further."""


def fetch_text(
    url: str, *, timeout_s: float = TIMEOUT_S, max_bytes: int = MAX_BYTES, sha256: str | None = None
) -> str:
    """The UTF-8 body at ``url``; larger than ``max_bytes``, non-2xx or wrong hash fail."""
    if not url.startswith(("http://", "https://", "file://")):
        raise FetchError(f"failed to fetch {url}: unsupported URL scheme")
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": "herdr-py manifest update"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            status = getattr(response, "status", None)
            if status is not None and not 200 <= status < 300:
                raise FetchError(f"failed to fetch {url}: HTTP {status}")
            body: bytes = response.read(max_bytes + 1)
    except FetchError:
        raise
    except urllib.error.HTTPError as exc:
        raise FetchError(f"failed to fetch {url}: HTTP {exc.code}") from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FetchError(f"failed to fetch {url}: {reason}") from exc
    if len(body) > max_bytes:
        raise FetchError(f"failed to fetch {url}: file is larger than {max_bytes} bytes")
    if sha256 is not None:
        actual = hashlib.sha256(body).hexdigest()
        if actual != sha256:
            raise FetchError(f"checksum mismatch for {url}: expected {sha256}, got {actual}")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FetchError(f"failed to fetch {url}: body is not valid UTF-8") from exc
