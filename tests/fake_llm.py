"""A real HTTP server on 127.0.0.1 that speaks the chat-completions protocol.

It stands in for the judge's LLM endpoint in tests and benchmarks, so the real
``openai`` client goes through real HTTP. Its ``behavior`` scripts how it
answers:

- ``correct``: agrees with the rules on targeted claims; ``answers`` decides
  the others (default ``inconclusive``);
- ``gullible``: ``verified`` for every claim, whatever it is told;
- ``garbage``: text that is not JSON;
- ``error``: HTTP 500 every time;
- ``rate_limited``: HTTP 429 with ``Retry-After`` for the first ``limit`` requests, then
  ``correct``;
- ``cycle``: the n-th request answers ``cycle[n % len(cycle)]`` for every claim;
- ``scripted``: the n-th request's content is ``replies[n]`` (the last one repeats).

``latency`` delays every answer (seconds). Every request's JSON body is kept in
``requests``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

try:  # imported as tests.fake_llm, or run as a script by the benchmark
    from tests.localserver import LocalServer
except ImportError:  # pragma: no cover
    from localserver import LocalServer  # type: ignore[no-redef]

CLAIMS_BLOCK = re.compile(
    r"CLAIMS and RULE FINDINGS \(trusted, JSON\):\n(.*?)\n\nUNTRUSTED DATA", re.S
)


class FakeLLM:
    def __init__(
        self,
        behavior: str = "correct",
        *,
        latency: float = 0.0,
        answers: dict[str, str] | None = None,
        limit: int = 2,
        retry_after: str = "0.05",
        cycle: list[str] | None = None,
        replies: list[str] | None = None,
    ) -> None:
        self.behavior = behavior
        self.latency = latency
        self.answers = answers or {}
        self.limit = limit
        self.retry_after = retry_after
        self.cycle = cycle or ["verified"]
        self.replies = replies or []  # behavior "scripted": the n-th reply's content
        self.requests: list[dict[str, Any]] = []
        self.count = 0
        self._lock = threading.Lock()
        self._http = LocalServer(self._handler())

    @property
    def url(self) -> str:
        return f"{self._http.base_url}/v1"

    def __enter__(self) -> FakeLLM:
        self._http.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.__exit__(*exc)

    # --- answering ----------------------------------------------------------

    def respond(self, body: dict[str, Any], n: int) -> tuple[int, dict[str, str], str]:
        behavior = self.behavior
        if behavior == "error":
            return 500, {}, json.dumps({"error": {"message": "boom", "type": "server_error"}})
        if behavior == "rate_limited":
            if n < self.limit:
                return (
                    429,
                    {"Retry-After": self.retry_after},
                    json.dumps({"error": {"message": "slow down", "type": "rate_limit"}}),
                )
            behavior = "correct"
        user = next((m["content"] for m in body["messages"] if m["role"] == "user"), "")
        match = CLAIMS_BLOCK.search(user)
        claims = json.loads(match.group(1)) if match else []
        if behavior == "scripted":
            content = self.replies[min(n, len(self.replies) - 1)]
        elif behavior == "garbage":
            content = "I think the claims look fine overall! {verdict: maybe"
        else:
            answers = []
            for claim in claims:
                if behavior == "gullible":
                    verdict = "verified"
                elif behavior == "cycle":
                    verdict = self.cycle[n % len(self.cycle)]
                elif claim["target"] is not None:
                    verdict = claim["rules_verdict"]
                else:
                    verdict = self.answers.get(claim["id"], "inconclusive")
                answers.append(
                    {
                        "claim": claim["id"],
                        "verdict": verdict,
                        "evidence": f"fake judge: {verdict} ({behavior})",
                    }
                )
            content = json.dumps({"claims": answers})
        prompt_chars = sum(len(m["content"]) for m in body["messages"])
        reply = {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content},
                }
            ],
            "usage": {
                "prompt_tokens": prompt_chars // 4,
                "completion_tokens": len(content) // 4,
                "total_tokens": (prompt_chars + len(content)) // 4,
            },
        }
        return 200, {}, json.dumps(reply)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body leave at once: no 40 ms stalls

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    n = fake.count
                    fake.count += 1
                    fake.requests.append(body)
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {}, json.dumps({"error": {"message": "not found"}}))
                    return
                if fake.latency:
                    time.sleep(fake.latency)
                self._send(*fake.respond(body, n))

            def _send(self, status: int, headers: dict[str, str], text: str) -> None:
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler


def main() -> None:
    """Serve from the command line (benchmarks run it in its own process)."""
    import argparse
    import contextlib
    import sys

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--behavior", default="correct")
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    with FakeLLM(args.behavior, latency=args.latency) as fake:
        print(fake.url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            sys.stdin.read()  # serve until the parent closes our stdin


if __name__ == "__main__":
    main()
