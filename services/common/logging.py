"""structlog JSON logs; match_id, seat and command_id ride in contextvars."""

from __future__ import annotations

import logging
import sys

import structlog

from services.common import tracing


def configure(service: str, level: str = "info") -> None:
    """JSON lines on stderr, one per event, stamped with the service name (and, while
    tracing is on, with the trace_id and span_id of the span they were written in)."""
    logging.basicConfig(stream=sys.stderr, level=level.upper(), format="%(message)s")
    traced = [tracing.add_trace_ids] if tracing.ENABLED else []
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            *traced,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    structlog.contextvars.bind_contextvars(service=service)


def get(name: str = "tabletop") -> structlog.typing.FilteringBoundLogger:
    return structlog.get_logger(name)  # type: ignore[no-any-return]


_CONTEXT_FIELDS = ("match_id", "seat", "command_id", "ticket_id")


def bind_request(request: object) -> None:
    """Put the ids a request carries (match, seat, command, ticket) into the log context of
    this call: a call of its own (grpc_server.py), or one of a batch or an Exchange stream."""
    fields = {}
    descriptor = getattr(request, "DESCRIPTOR", None)
    if descriptor is not None:
        for name in _CONTEXT_FIELDS:
            if name in descriptor.fields_by_name:
                fields[name] = getattr(request, name)
    structlog.contextvars.bind_contextvars(**fields)
