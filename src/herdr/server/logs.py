"""Server logs: JSON lines in the state dir, size-capped, warnings echoed to stderr."""

from __future__ import annotations

import io
import json
import logging
import logging.handlers
import os
import time
from pathlib import Path

from herdr.config import safe_paths

LOG_NAME = "server.log"
MAX_BYTES = 2 * 1024 * 1024
BACKUPS = 2

_STANDARD = frozenset(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, plus any ``extra`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, object] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": record.process,
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                doc[key] = value
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, default=str, ensure_ascii=False)


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log that never writes through a planted symlink or to a file that is
    not ours (rotation renames, which never follow links)."""

    def _open(self) -> io.TextIOWrapper:
        fd = safe_paths.open_private_append(self.baseFilename)
        return open(fd, "a", encoding=self.encoding or "utf-8", errors=self.errors)


def setup(state_dir: Path, level_name: str | None = None) -> Path:
    """Log to ``<state_dir>/server.log``; ``$HERDR_LOG`` (debug, info, ...) sets the level.

    ``state_dir`` was checked by the caller (ours, private). Raises ``UnsafePathError``
    when the log file itself is a planted link or a foreign file.
    """
    path = state_dir / LOG_NAME
    level = getattr(logging, (level_name or os.environ.get("HERDR_LOG") or "info").upper(), None)
    # A full disk under the log must not print a traceback per record to stderr.
    logging.raiseExceptions = False
    root = logging.getLogger("herdr")
    root.setLevel(level if isinstance(level, int) else logging.INFO)
    root.propagate = False
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    file_handler = PrivateRotatingFileHandler(
        path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
    )
    file_handler.setFormatter(JsonFormatter())
    root.addHandler(file_handler)
    console = logging.StreamHandler()
    console.setLevel(logging.WARNING)
    console.setFormatter(logging.Formatter("herdr server: %(levelname)s: %(message)s"))
    root.addHandler(console)
    return path
