"""What a Redis failure means to a caller: the one mapping of redis-py's
exceptions to domain errors, used by the server's error mapper.

The client learns only what failed ("the store is unavailable"); the server
log keeps the exception class and its message (which may name an address).
"""

from __future__ import annotations

import redis.exceptions as rex
import structlog

from services.common.errors import ResourceExhausted, ServiceError, Unavailable

log = structlog.get_logger()

# Everything redis-py raises: RedisError and the cluster client's own base class.
FAULTS = (rex.RedisError, rex.RedisClusterException)
# The same, and what the OS or a wait_for may raise around a command.
FAULTS_AND_TIMEOUTS = (rex.RedisError, rex.RedisClusterException, OSError, TimeoutError)


def logged(fault: Exception, method: str) -> ServiceError:
    """`to_service_error`, with what really happened kept in the server's log."""
    log.warning("store_fault", method=method, fault=type(fault).__name__, detail=str(fault))
    return to_service_error(fault)


def to_service_error(fault: Exception) -> ServiceError:
    """The status a call that hit `fault` ends with."""
    if isinstance(fault, rex.MaxConnectionsError):
        # This process's own pool is full: the caller may retry shortly.
        return ResourceExhausted("too many calls waiting for the store; retry shortly", "store.busy")
    if isinstance(fault, rex.BusyLoadingError):
        return Unavailable("the store is starting up; retry shortly", "store.loading")
    if isinstance(fault, rex.TimeoutError):
        return Unavailable("the store did not answer in time", "store.timeout")
    return Unavailable("the store is unavailable", "store.unavailable")
