"""Retry policy for model calls: what is transient, how long to wait.

Rate limits (429, honouring ``Retry-After``), 5xx, 408/409, timeouts and connection
errors are retried with exponential backoff and full jitter (tenacity); anything else
(400, 401, 404...) fails at once. Only model requests are retried — never a tool call
and never a whole trial. After the last attempt the error becomes `ModelEndpointError`,
which the runner records as a system error.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from statebox.errors import ModelEndpointError
from statebox.llm._config import RetryPolicy

if TYPE_CHECKING:
    from tenacity import RetryCallState

__all__ = ["Attempted", "call_with_retry", "retry_after_s", "should_retry"]

log = logging.getLogger("statebox.llm")
T = TypeVar("T")
_RETRY_STATUS = frozenset({408, 409, 429})
_SDK_MODULES = frozenset({"openai", "anthropic", "httpx", "httpx2", "httpcore"})


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def should_retry(exc: BaseException) -> bool:
    """Whether a failed model call may be retried.

    Args:
        exc: The SDK's exception.

    Returns:
        True for 408, 409, 429, any 5xx, timeouts and connection errors.
    """
    status = _status(exc)
    if status is not None:
        return status in _RETRY_STATUS or status >= 500
    name = type(exc).__name__
    # SDK connection/timeout classes, plus the transport errors they wrap.
    return name in ("APIConnectionError", "APITimeoutError") or isinstance(
        exc, ConnectionError | TimeoutError
    )


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the server asked to wait (``retry-after-ms`` or ``Retry-After``), if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    from datetime import UTC, datetime

    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


class Attempted(NamedTuple):
    """A call's value and how many attempts it took."""

    value: Any
    attempts: int


def _describe(exc: BaseException) -> str:
    status = _status(exc)
    return f"HTTP {status}" if status is not None else type(exc).__name__


async def call_with_retry(
    fn: Callable[[], Awaitable[T]], policy: RetryPolicy, label: str
) -> Attempted:
    """Call ``fn`` under the retry policy.

    Args:
        fn: Makes one request.
        policy: Attempts and waits.
        label: Endpoint description for messages (never a key).

    Returns:
        The value and the number of attempts.

    Raises:
        ModelEndpointError: A non-retryable error, or the last retryable one.
    """
    from tenacity import AsyncRetrying, RetryError, retry_if_exception, stop_after_attempt

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        backoff = policy.initial_wait_s * 2 ** (state.attempt_number - 1)
        delay = random.uniform(0, min(backoff, policy.max_wait_s))  # full jitter
        asked = retry_after_s(exc) if exc is not None else None
        if asked is not None:
            delay = max(delay, asked)
        return min(delay, policy.max_wait_s)

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.warning(
            "%s: attempt %d failed (%s); retrying",
            label,
            state.attempt_number,
            _describe(exc) if exc else "?",
        )

    retrying = AsyncRetrying(
        stop=stop_after_attempt(policy.max_attempts),
        wait=wait,
        retry=retry_if_exception(should_retry),
        before_sleep=before_sleep,
        reraise=False,
    )
    attempts = 0
    try:
        async for attempt in retrying:
            with attempt:
                attempts = attempt.retry_state.attempt_number
                value = await fn()
            if not attempt.retry_state.outcome or not attempt.retry_state.outcome.failed:
                return Attempted(value, attempts)
    except RetryError as exc:
        last = exc.last_attempt.exception()
        raise ModelEndpointError(
            f"{label}: failed after {attempts} attempts ({_describe(last) if last else '?'}: "
            f"{str(last)[:200]}); check the endpoint and resume with --resume --retry-errors"
        ) from last
    except ModelEndpointError:
        raise
    except Exception as exc:
        if type(exc).__module__.split(".")[0] not in _SDK_MODULES:
            raise  # a bug, not an endpoint failure: keep its traceback
        raise ModelEndpointError(
            f"{label}: request rejected ({_describe(exc)}: {str(exc)[:200]})"
        ) from exc
    raise ModelEndpointError(f"{label}: no attempt was made")  # pragma: no cover
