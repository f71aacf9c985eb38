"""A total time per reply, which httpx does not have: one clock for connect, write and read.

httpx's timeouts apply to each socket operation, so a server that sends one byte
a second, in the headers or in the body, is never cut. Here the httpcore network
backend of each of a client's connection pools is wrapped: while ``reply_clock(end)``
is active in a thread, every connect, read and write done by that thread gets only
the time left until ``end``, and fails at once when none is left. httpcore's sync
pool does its I/O in the calling thread, so a thread-local is the reply's clock.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpcore
import httpx

_reply = threading.local()  # .end: monotonic time the reply being read must be done by


def _left(timeout: float | None, kind: type[Exception]) -> float | None:
    end = getattr(_reply, "end", None)
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise kind("the reply's time is up")
    return left if timeout is None else min(timeout, left)


class _BoundedStream(httpcore.NetworkStream):
    """A connection whose every read and write ends by the current reply's end time."""

    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _BoundedStream(self._stream.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _BoundedBackend(httpcore.NetworkBackend):
    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _BoundedStream(
            self._backend.connect_tcp(host, port, left, local_address, socket_options)
        )

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _BoundedStream(self._backend.connect_unix_socket(path, left, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def bound_reads(client: httpx.Client) -> None:
    """Give every connection pool of ``client`` (proxies from the environment included)
    the per-reply clock. httpx offers no public way to pass a network backend."""
    transports = [client._transport, *client._mounts.values()]
    for transport in transports:
        if transport is None:
            continue
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if pool is None or backend is None:
            raise RuntimeError(f"cannot bound reads of {type(transport).__name__}: httpx changed")
        if not isinstance(backend, _BoundedBackend):
            pool._network_backend = _BoundedBackend(backend)


@contextlib.contextmanager
def reply_clock(end: float) -> Iterator[None]:
    """Every socket operation of this thread ends by ``end`` (monotonic seconds)."""
    _reply.end = end
    try:
        yield
    finally:
        _reply.end = None
