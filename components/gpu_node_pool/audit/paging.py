"""One list call of the live audit, bounded: a whole-request deadline, a size cap, retries, a page limit.

The ``kubernetes`` client's ``_request_timeout`` bounds the connection and each socket read, not
the request: a server that sends one byte every second never trips it. :func:`fetch` runs the
call and reads its body in a worker thread and waits at most ``timeout`` seconds for the whole
answer (headers and body); past it the request is abandoned (the worker is a daemon thread and
the audit ends) and :class:`RequestTimeout` raised. A body larger than :data:`MAX_PAGE_BYTES` is
refused (:class:`PageTooLarge`) as it arrives, never buffered whole.

429 (Too Many Requests) and 503 (Service Unavailable) are retried, as client-go retries them
(``k8s.io/client-go/rest/with_retry.go``: a 429 or 5xx answer with ``Retry-After`` is retried,
at most 10 times by default): the wait is the answer's ``Retry-After`` seconds when it gives
one, else 1, 2, 4... s; each wait at most :data:`MAX_RETRY_WAIT` s and :data:`MAX_ATTEMPTS`
attempts in all. Other statuses are raised to the caller as the client raised them.

:func:`pages` follows ``metadata.continue`` (``limit`` + ``continue``,
https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks)
and stops with :class:`PagingError` on a token it was already given (a server that never
ends the list) or after :data:`MAX_PAGES` pages.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["MAX_ATTEMPTS", "MAX_PAGES", "MAX_PAGE_BYTES", "MAX_RETRY_WAIT", "PageTooLarge", "PagingError",
           "RequestTimeout", "fetch", "pages", "retry_wait"]

#: Pages one list may take (at the default 500 objects a page: a million objects).
MAX_PAGES = 2000
#: Largest body of one page, in bytes.
MAX_PAGE_BYTES = 256 * 1024 * 1024
#: Attempts of one request when the server answers 429 or 503.
MAX_ATTEMPTS = 5
#: Longest wait between two attempts, in seconds (a larger ``Retry-After`` is cut to it).
MAX_RETRY_WAIT = 10.0
_RETRIED = (429, 503)
_CHUNK = 1024 * 1024


class RequestTimeout(Exception):
    """The whole request (connect, headers, body) took longer than its deadline."""


class PageTooLarge(Exception):
    """One page's body is larger than :data:`MAX_PAGE_BYTES`."""


class PagingError(Exception):
    """The ``continue`` chain does not end: a repeated token, or more than :data:`MAX_PAGES` pages."""


def retry_wait(headers: Any, attempt: int) -> float:
    """Seconds to wait before attempt ``attempt + 1`` (``attempt`` counts from 1): ``Retry-After``
    (whole seconds, as the API server sends it) when ``headers`` carry a readable one, else
    ``2 ** (attempt - 1)``; never more than :data:`MAX_RETRY_WAIT`, never negative."""
    value = None
    if headers is not None:
        try:
            value = headers.get("Retry-After")
        except AttributeError:
            value = None
    try:
        wait = float(str(value).strip()) if value is not None else float(2 ** (attempt - 1))
    except ValueError:
        wait = float(2 ** (attempt - 1))  # an HTTP date or junk: back off as without one
    if wait != wait:  # NaN
        wait = 1.0
    return min(max(wait, 0.0), MAX_RETRY_WAIT)


def _read_body(response: Any) -> bytes:
    body = bytearray()
    read = getattr(response, "read1", None) or response.read
    while True:
        chunk = read(_CHUNK)
        if not chunk:
            return bytes(body)
        body += chunk
        if len(body) > MAX_PAGE_BYTES:
            raise PageTooLarge(f"the answer is larger than {MAX_PAGE_BYTES // (1024 * 1024)} MiB")


def _once(call: Callable[..., Any], kwargs: dict[str, Any], timeout: float) -> bytes:
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            response = call(**kwargs)
            try:
                box["body"] = _read_body(response)
            finally:
                getattr(response, "release_conn", lambda: None)()
        except BaseException as err:  # noqa: BLE001 - handed to the waiting thread, raised there
            box["error"] = err

    worker = threading.Thread(target=work, name="gpupool-audit-request", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise RequestTimeout(f"no complete answer within {timeout:g} s")
    if "error" in box:
        raise box["error"]
    return box["body"]


def _wait(seconds: float) -> None:
    time.sleep(seconds)


def fetch(call: Callable[..., Any], kwargs: dict[str, Any], timeout: float) -> bytes:
    """The body of ``call(**kwargs)`` (a ``kubernetes`` client list method with ``_preload_content=False``).

    Raises:
        RequestTimeout: one attempt took longer than ``timeout`` seconds.
        PageTooLarge: the body is larger than :data:`MAX_PAGE_BYTES`.
        kubernetes.client.exceptions.ApiException: any refusal but a 429/503 that a retry cured
            (the last one after :data:`MAX_ATTEMPTS`).
        urllib3.exceptions.HTTPError: no connection.
    """
    from kubernetes.client.exceptions import ApiException

    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            return _once(call, kwargs, timeout)
        except ApiException as err:
            if err.status not in _RETRIED or attempt == MAX_ATTEMPTS:
                raise
            _wait(retry_wait(err.headers, attempt))
    raise AssertionError("unreachable")  # pragma: no cover


def pages(call: Callable[..., Any], timeout: float, page: int) -> Iterator[list[Any]]:
    """Each page's ``items`` (a list; a missing or non-list ``items`` is ``[]``), as it arrives.

    Raises:
        PagingError: a ``continue`` token came twice, or the list took more than :data:`MAX_PAGES` pages.
        json.JSONDecodeError: a page is not JSON. And what :func:`fetch` raises.
    """
    token: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        kwargs: dict[str, Any] = {"limit": page, "_preload_content": False, "_request_timeout": timeout}
        if token:
            kwargs["_continue"] = token
        body = json.loads(fetch(call, kwargs, timeout) or b"{}")
        if not isinstance(body, dict):
            raise json.JSONDecodeError("the answer is not a JSON object", "", 0)
        items = body.get("items")
        yield items if isinstance(items, list) else []
        meta = body.get("metadata")
        token = meta.get("continue") if isinstance(meta, dict) else None
        if not token:
            return
        token = str(token)
        if token in seen:
            raise PagingError(f"the server sent the continue token {token[:40]!r} twice; the list never ends")
        seen.add(token)
    raise PagingError(f"the list did not end after {MAX_PAGES} pages of {page}")
