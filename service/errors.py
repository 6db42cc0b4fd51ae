"""Errors of the service and the one table that maps engine errors to gRPC status codes."""

from __future__ import annotations

import math

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from redis.exceptions import MaxConnectionsError, OutOfMemoryError, RedisError
import structlog

from hustings.engine import (
    EngineError,
    GameOverError,
    IllegalMoveError,
    InvalidOptionsError,
    MalformedMoveError,
    NotYourTurnError,
)
from hustings.service.logs import SparseLines

ERROR_DOMAIN = "hustings"
# Plain-text gRPC trailers of every refusal: its ErrorInfo reason, and a retry hint's delay in
# milliseconds (RetryInfo's), for clients that read no google.rpc.Status.
REASON_TRAILER = "hustings-reason"
RETRY_AFTER_TRAILER = "hustings-retry-after-ms"

_log = structlog.get_logger("hustings.store")

# The single mapping of engine exceptions to gRPC codes (most specific first).
ENGINE_ERROR_CODES: tuple[tuple[type[EngineError], grpc.StatusCode], ...] = (
    (InvalidOptionsError, grpc.StatusCode.INVALID_ARGUMENT),
    (MalformedMoveError, grpc.StatusCode.INVALID_ARGUMENT),
    (NotYourTurnError, grpc.StatusCode.FAILED_PRECONDITION),
    (GameOverError, grpc.StatusCode.FAILED_PRECONDITION),
    (IllegalMoveError, grpc.StatusCode.FAILED_PRECONDITION),
    (EngineError, grpc.StatusCode.FAILED_PRECONDITION),
)


class ServiceError(Exception):
    """A request that the service refuses, with a gRPC code and a machine-readable reason."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = dict(metadata or {})

    @classmethod
    def from_engine(cls, error: EngineError) -> "ServiceError":
        """The service error for an engine error, through ENGINE_ERROR_CODES."""
        for error_type, code in ENGINE_ERROR_CODES:
            if isinstance(error, error_type):
                return cls(code, error.reason, error.message)
        raise AssertionError("unreachable: EngineError is in the table")

    def status_proto(self) -> status_pb2.Status:
        """The google.rpc.Status: the code, the message and one ErrorInfo in its details."""
        info = error_details_pb2.ErrorInfo(
            reason=self.reason, domain=ERROR_DOMAIN, metadata=self.metadata
        )
        detail = any_pb2.Any()
        detail.Pack(info)
        return status_pb2.Status(
            code=getattr(code_pb2, self.code.name), message=self.message, details=[detail]
        )

    def to_status(self) -> grpc.Status:
        """A grpc.Status carrying ``status_proto()``, and the reason in plain text too (the
        ``hustings-reason`` trailer): a client whose gRPC library does not decode
        ``grpc-status-details-bin`` (Node's, among others) reads it without a protobuf decoder."""
        status = rpc_status.to_status(self.status_proto())
        return status._replace(trailing_metadata=(*status.trailing_metadata, *self.plain_trailers()))  # type: ignore[attr-defined]

    def plain_trailers(self) -> tuple[tuple[str, str], ...]:
        """The refusal's machine-readable parts as plain-text gRPC trailers."""
        return ((REASON_TRAILER, self.reason),)


class RetryLater(ServiceError):
    """A refusal that says when to try again: ``google.rpc.RetryInfo`` beside the ErrorInfo in
    the status details (gRPC's standard retry hint), and ``Retry-After`` over REST."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str, retry_after_s: float) -> None:
        super().__init__(code, reason, message)
        self.retry_after_s = retry_after_s

    def status_proto(self) -> status_pb2.Status:
        """The google.rpc.Status: ErrorInfo, then RetryInfo."""
        status = super().status_proto()
        delay = duration_pb2.Duration()
        delay.FromMilliseconds(math.ceil(self.retry_after_s * 1000))
        status.details.add().Pack(error_details_pb2.RetryInfo(retry_delay=delay))
        return status

    def plain_trailers(self) -> tuple[tuple[str, str], ...]:
        """The reason, and the retry hint in whole milliseconds (as ``RetryInfo`` gives it)."""
        return (*super().plain_trailers(), (RETRY_AFTER_TRAILER, str(math.ceil(self.retry_after_s * 1000))))

    def retry_after_header(self) -> str:
        """``Retry-After`` in whole seconds (HTTP has no finer unit), rounded up, at least 1."""
        return str(max(1, math.ceil(self.retry_after_s)))


def invalid(reason: str, message: str) -> ServiceError:
    """INVALID_ARGUMENT: the request is malformed."""
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, reason, message)


def not_found(reason: str, message: str) -> ServiceError:
    """NOT_FOUND."""
    return ServiceError(grpc.StatusCode.NOT_FOUND, reason, message)


def precondition(reason: str, message: str) -> ServiceError:
    """FAILED_PRECONDITION: not allowed in the current state."""
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, reason, message)


def unauthenticated(reason: str, message: str) -> ServiceError:
    """UNAUTHENTICATED: a seat token is required or was not recognised."""
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, reason, message)


def aborted(reason: str, message: str, metadata: dict[str, str] | None = None) -> ServiceError:
    """ABORTED: the request was made against an old version."""
    return ServiceError(grpc.StatusCode.ABORTED, reason, message, metadata)


# The retry hints of the store's refusals. Unreachable: the replica pings Redis once a second
# (service/readiness.py), so a second is the soonest it could know better; a failover of Redis
# takes seconds, and a hinted retry is paced by the hint rather than counted against the
# client's few backoff attempts, so clients ride it out within their call's budget. Busy: the
# call already waited for a connection of the bounded pool; one is usually free again soon.
STORE_UNAVAILABLE_RETRY_S = 1.0
STORE_BUSY_RETRY_S = 0.1


def store_unavailable() -> RetryLater:
    """UNAVAILABLE ``STORE_UNAVAILABLE``: Redis cannot be reached; retry in a second."""
    return RetryLater(
        grpc.StatusCode.UNAVAILABLE,
        "STORE_UNAVAILABLE",
        "the game store is unreachable; retry",
        STORE_UNAVAILABLE_RETRY_S,
    )


def store_error(error: RedisError) -> ServiceError:
    """The answer to a failed store call, by its cause (which is logged, never sent): a full
    Redis is RESOURCE_EXHAUSTED ``STORE_FULL``; a pool with no free connection in time is
    UNAVAILABLE ``STORE_BUSY``; anything else that reaches Redis or not is UNAVAILABLE
    ``STORE_UNAVAILABLE``. All of them may be retried with the same request id; the two
    UNAVAILABLE ones carry a retry hint. A full store has none: it frees memory as finished
    games expire or an operator acts, not within a call's budget, so the caller hears of it."""
    result: ServiceError
    if isinstance(error, OutOfMemoryError) or "OOM command not allowed" in str(error):
        result = ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_FULL", "the game store is full; retry later")
    elif isinstance(error, MaxConnectionsError) or "No connection available" in str(error):
        result = RetryLater(grpc.StatusCode.UNAVAILABLE, "STORE_BUSY", "the game store is busy; retry", STORE_BUSY_RETRY_S)
    else:
        result = store_unavailable()
    _log_store_error(result.reason, type(error).__name__, str(error)[:120])
    return result


# While Redis is away every call fails alike: a line per failure would be thousands a second
# (16 clients made 2,111 lines in 5 s on one replica). One line a second for each reason and
# cause, counting the failures alike that it stands for since the line before.
_store_errors = SparseLines(interval_s=1.0)


def _log_store_error(reason: str, cause: str, detail: str) -> None:
    """Log a failed store call, at most once a second for each reason and cause."""
    left_out = _store_errors.due((reason, cause))
    if left_out is not None:
        # The cause's class and Redis's own first words name it; they never carry game data.
        _log.warning("store_error", reason=reason, cause=cause, detail=detail, alike_not_logged=left_out)


def internal() -> ServiceError:
    """INTERNAL, with a fixed message: an unexpected failure never shows its own text."""
    return ServiceError(grpc.StatusCode.INTERNAL, "INTERNAL", "internal error")


def exhausted(reason: str, message: str) -> ServiceError:
    """RESOURCE_EXHAUSTED: over a limit."""
    return ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, reason, message)
