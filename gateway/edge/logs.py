"""uvicorn's logs as the edge's own JSON lines (structlog), like every other process's.

uvicorn logs through the standard library ("uvicorn.error" for the server,
"uvicorn.access" for each request); this handler hands each record to
structlog, an access record as its fields (client, method, path, status).
"""

from __future__ import annotations

import logging

from services.common import logging as tlog

UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")


class ToStructlog(logging.Handler):
    """A stdlib handler that writes each record as one structlog event."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            fields = _fields(record)
            log = tlog.get(record.name)
            level = record.levelname.lower()
            method = getattr(log, level if level in ("debug", "info", "warning", "error", "critical") else "info")
            if record.exc_info:
                fields["exc_info"] = record.exc_info
            method(fields.pop("event"), **fields)
        except Exception:  # noqa: BLE001 (a log line must never take the server down)
            self.handleError(record)


def _fields(record: logging.LogRecord) -> dict[str, object]:
    if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) == 5:
        client, method, path, version, status = record.args
        return {"event": "request", "client": client, "method": method, "path": path, "http": version,
                "status": status}
    return {"event": record.getMessage(), "logger": record.name}


def route_uvicorn() -> None:
    """Send uvicorn's loggers to structlog only (not also to the root's plain-text handler)."""
    handler = ToStructlog()
    for name in UVICORN_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False
