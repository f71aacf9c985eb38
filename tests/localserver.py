"""A threaded HTTP server on 127.0.0.1, port chosen by the OS, for stand-in services."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # benchmarks open 64 connections at once
    allow_reuse_address = True


class LocalServer:
    """Serves ``handler`` (a handler class, or a partial of one such as a
    ``SimpleHTTPRequestHandler`` with its ``directory``) from a background thread while used
    as a context manager."""

    def __init__(self, handler: Callable[..., BaseHTTPRequestHandler]) -> None:
        self._server = _Server(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> LocalServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
