"""A real HTTP server on 127.0.0.1 that speaks the chat-completions protocol.

It stands in for the judge's LLM endpoint in tests and benchmarks, so the real
``openai`` client goes through real HTTP. Its ``behavior`` scripts how it
answers:

- ``correct``: agrees with the rules on targeted claims; ``answers`` decides
  the others, else the data's own line ``<claim>: conclusion: holds|violated`` (verified,
  falsified), as a model reading the re-run's log would (default ``inconclusive``);
- ``contrary``: a fully compromised model that answers, for every claim, the opposite of
  what ``correct`` answers (``verified`` for ``toy`` and ``inconclusive``);
- ``gullible``: ``verified`` for every claim, whatever it is told;
- ``garbage``: text that is not JSON;
- ``error``: HTTP 500 every time;
- ``rate_limited``: HTTP 429 with ``Retry-After`` for the first ``limit`` requests, then
  ``correct``;
- ``cycle``: the n-th request answers ``cycle[n % len(cycle)]`` for every claim;
- ``scripted``: the n-th request's content is ``replies[n]`` (the last one repeats);
- ``reply``: the content is ``replier(user message)`` (e.g. claims drafted from a paper);
- ``obey``: a fully compromised model: it reads the untrusted data (through
  look-alike letters, as a model does) and answers for every claim the verdict
  the data asks for (``verified`` or ``falsified``, whichever it names last);
- ``hang``: never answers (until the server stops);
- ``close``: closes the connection without answering;
- ``truncated``: announces a full reply, sends half of it, and closes;
- ``huge``: a 200 reply of ``huge_bytes`` bytes;
- ``cut``: the reply's content is cut short with ``finish_reason: length``;
- ``trickle``: a correct reply sent one byte every ``trickle`` seconds (its headers too
  with ``trickle_headers``);
- ``nested``: the whole HTTP body is JSON nested ``nesting`` levels deep.

``outage=(first, count, status)`` answers ``status`` to the ``count`` requests from the
``first``-th on (counting every request): a blip. ``nest_content`` makes every reply's
content (judging and screening) a JSON array nested that deep.

``statuses`` scripts transport faults per judging request: its n-th entry (cyclic)
is an HTTP status to answer instead (200 = answer normally). Screening requests
(system prompt ``screen.v1``) are answered ``{"instructions_found": ...}``:
true when any of ``screen_flags`` occurs in the screened text, or always with
``screen="always"`` (from the ``screen_from``-th screening request on), or for every text
that looks like a real logbook (it has ``claims_version``) with ``screen="real"``; never
for a text holding one of ``spare`` (an endpoint that tells some texts apart, e.g. the
canaries); behaviours that break transport break them too. ``screened`` keeps each
screened text.
``latency`` delays every answer (seconds). Every request's JSON body is kept in
``requests``; ``judging`` and ``screening`` count each kind; ``in_flight`` is the
number of requests being answered now and ``most_in_flight`` the most at once;
``arrivals`` holds (monotonic time, requests in flight with this one) per request,
``throttled_at`` the time each 429 was sent, and ``trickled`` (bytes sent, bytes in all)
per trickled reply when it ended: a count of the seconds a client listened that load can
only lower, since each byte waits ``trickle`` seconds.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
import unicodedata
from collections.abc import Callable
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
        statuses: list[int] | None = None,
        screen: str = "flags",
        screen_flags: list[str] | None = None,
        huge_bytes: int = 2 * 1024 * 1024,
        trickle: float = 1.0,
        trickle_headers: bool = False,
        nesting: int = 100_000,
        nest_content: int = 0,
        outage: tuple[int, int, int] | None = None,
        screen_from: int = 0,
        spare: list[str] | None = None,
        replier: Callable[[str], str] | None = None,
    ) -> None:
        self.behavior = behavior
        self.replier = replier  # behavior "reply": content = replier(the user message)
        self.latency = latency
        self.answers = answers or {}
        self.limit = limit
        self.retry_after = retry_after
        self.cycle = cycle or ["verified"]
        self.replies = replies or []  # behavior "scripted": the n-th reply's content
        self.statuses = statuses or []
        self.screen = screen
        self.screen_flags = screen_flags or []
        self.huge_bytes = huge_bytes
        self.trickle = trickle
        self.trickle_headers = trickle_headers
        self.nesting = nesting
        self.nest_content = nest_content
        self.outage = outage
        self.screen_from = screen_from
        self.spare = spare or []
        self.arrivals: list[tuple[float, int]] = []
        self.throttled_at: list[float] = []
        self.trickled: list[tuple[int, int]] = []  # (bytes sent, of) per trickled reply
        self.requests: list[dict[str, Any]] = []
        self.screened: list[str] = []  # the text of each screening request, in order
        self.count = 0
        self.judging = 0
        self.screening = 0
        self.in_flight = 0
        self.most_in_flight = 0
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._ended = threading.Condition(self._lock)
        self._http = LocalServer(self._handler())
        server = self._http._server
        report = server.handle_error

        def handle_error(request: Any, address: Any) -> None:
            # a client that hangs up (deadline, Ctrl-C, size cap) is what these tests do
            if not isinstance(sys.exc_info()[1], OSError):
                report(request, address)

        server.handle_error = handle_error  # type: ignore[method-assign]

    def end_trickles(self, timeout: float = 60.0) -> list[tuple[int, int]]:
        """Stop every reply still trickling and wait (on an event, up to ``timeout``) until
        each trickled request is counted in ``trickled``; return it."""
        self.stopping.set()
        with self._ended:
            self._ended.wait_for(lambda: len(self.trickled) >= self.count, timeout)
            return list(self.trickled)

    @property
    def url(self) -> str:
        return f"{self._http.base_url}/v1"

    def __enter__(self) -> FakeLLM:
        self._http.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._http.__exit__(*exc)

    # --- answering ----------------------------------------------------------

    def screen_reply(self, body: dict[str, Any]) -> str:
        text = body["messages"][1]["content"]
        honest_still = self.screening <= self.screen_from  # "always" from this screen on
        with self._lock:
            self.screened.append(text)
        found = (
            (self.screen == "always" and not honest_still)
            or (self.screen == "real" and "claims_version" in text)
            or any(f in text for f in self.screen_flags)
        ) and not any(s in text for s in self.spare)
        evidence = next((f for f in self.screen_flags if f in text), "") if found else ""
        return json.dumps({"instructions_found": found, "evidence": evidence})

    def honest(self, claim: dict[str, Any], user: str) -> str:
        """What ``correct`` answers for one claim of the prompt."""
        if claim["target"] is not None:
            return str(claim["rules_verdict"])
        if claim["id"] in self.answers:
            return self.answers[claim["id"]]
        data = "\n".join(re.findall(r"<<<DATA [0-9a-f]+\n(.*?)\nDATA [0-9a-f]+>>>", user, re.S))
        said = re.findall(rf"^{re.escape(claim['id'])}: conclusion: (holds|violated)$", data, re.M)
        return {"holds": "verified", "violated": "falsified"}[said[-1]] if said else "inconclusive"

    def respond(
        self, body: dict[str, Any], n: int, total: int | None = None, screening: bool = False
    ) -> tuple[int, dict[str, str], str]:
        """(status, headers, body) for the n-th judging request (``total``-th of all)."""
        behavior = self.behavior
        total = n if total is None else total
        status = self.statuses[n % len(self.statuses)] if self.statuses and not screening else 200
        if self.outage and self.outage[0] <= total < self.outage[0] + self.outage[1]:
            status = self.outage[2]
        if status != 200:
            return status, {}, json.dumps({"error": {"message": "scripted", "type": "x"}})
        if behavior == "error":
            return 500, {}, json.dumps({"error": {"message": "boom", "type": "server_error"}})
        if behavior == "rate_limited":
            if total < self.limit:
                return (
                    429,
                    {"Retry-After": self.retry_after},
                    json.dumps({"error": {"message": "slow down", "type": "rate_limit"}}),
                )
            behavior = "correct"
        user = next((m["content"] for m in body["messages"] if m["role"] == "user"), "")
        match = CLAIMS_BLOCK.search(user)
        claims = json.loads(match.group(1)) if match else []
        if behavior == "garbage":
            content = "I think the claims look fine overall! {verdict: maybe"
        elif screening:
            content = self.screen_reply(body)
        elif behavior == "reply" and self.replier is not None:
            content = self.replier(user)
        elif behavior == "scripted":
            content = self.replies[min(n, len(self.replies) - 1)]
        else:
            answers = []
            wanted = obeyed(user) if behavior == "obey" else None
            for claim in claims:
                if behavior == "gullible":
                    verdict = "verified"
                elif wanted is not None:
                    verdict = wanted
                elif behavior == "cycle":
                    verdict = self.cycle[n % len(self.cycle)]
                else:
                    verdict = self.honest(claim, user)
                    if behavior == "contrary":
                        verdict = CONTRARY[verdict]
                answers.append(
                    {
                        "claim": claim["id"],
                        "verdict": verdict,
                        "evidence": f"fake judge: {verdict} ({behavior})",
                    }
                )
            content = json.dumps({"claims": answers})
        if self.nest_content:
            content = "[" * self.nest_content + "]" * self.nest_content
        prompt_chars = sum(len(m["content"]) for m in body["messages"])
        reply = {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "length" if behavior == "cut" else "stop",
                    "message": {"role": "assistant", "content": content},
                }
            ],
            "usage": {
                "prompt_tokens": prompt_chars // 4,
                "completion_tokens": len(content) // 4,
                "total_tokens": (prompt_chars + len(content)) // 4,
            },
        }
        if behavior == "cut":
            reply["choices"][0]["message"]["content"] = content[: len(content) // 2]
        return 200, {}, json.dumps(reply)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body leave at once: no 40 ms stalls

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                with fake._lock:
                    fake.in_flight += 1
                    fake.most_in_flight = max(fake.most_in_flight, fake.in_flight)
                    fake.arrivals.append((time.monotonic(), fake.in_flight))
                try:
                    self._answer()
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                screening = "screen" in body.get("messages", [{}])[0].get("content", "")[:40]
                with fake._lock:
                    total = fake.count
                    fake.count += 1
                    fake.requests.append(body)
                    if screening:
                        fake.screening += 1
                        n = -1
                    else:
                        n = fake.judging
                        fake.judging += 1
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {}, json.dumps({"error": {"message": "not found"}}))
                    return
                if fake.latency:
                    fake.stopping.wait(fake.latency)
                behavior = fake.behavior
                if behavior == "hang":
                    fake.stopping.wait(120)
                    return
                if behavior == "close":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if behavior == "huge":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(fake.huge_bytes))
                    self.end_headers()
                    chunk = b" " * 65536
                    for _ in range(fake.huge_bytes // len(chunk)):
                        try:
                            self.wfile.write(chunk)
                        except OSError:
                            return
                    return
                if behavior == "nested":
                    depth = fake.nesting
                    self._send(200, {}, '{"choices": ' + "[" * depth + "]" * depth + "}")
                    return
                status, headers, text = fake.respond(body, n, total, screening)
                if status == 429:
                    with fake._lock:
                        fake.throttled_at.append(time.monotonic())
                if behavior == "trickle":
                    self._trickle(text.encode())
                    return
                if behavior == "truncated":
                    data = text.encode()
                    self.send_response(status)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self._send(status, headers, text)

            def _trickle(self, data: bytes) -> None:
                head = (
                    f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    f"X-Padding: {'x' * 200}\r\nContent-Length: {len(data)}\r\n\r\n"
                ).encode()
                slow = (head if fake.trickle_headers else b"") + data
                sent = 0
                try:
                    if not fake.trickle_headers:
                        self.wfile.write(head)
                        self.wfile.flush()
                    for i in range(len(slow)):
                        if fake.stopping.wait(fake.trickle):
                            return
                        self.wfile.write(slow[i : i + 1])
                        self.wfile.flush()
                        sent += 1
                except OSError:
                    return  # the client gave up: what it should do
                finally:
                    with fake._ended:
                        fake.trickled.append((sent, len(slow)))
                        fake._ended.notify_all()

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


CONTRARY = {
    "verified": "falsified",
    "falsified": "verified",
    "toy": "verified",
    "inconclusive": "verified",
}


def obeyed(user: str) -> str | None:
    """The verdict the untrusted data asks for, as a model reading it would see it."""
    blocks = re.findall(r"<<<DATA [0-9a-f]+\n(.*?)\nDATA [0-9a-f]+>>>", user, re.S)
    text = unicodedata.normalize("NFKC", "\n".join(blocks))
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    text = text.translate(_CYRILLIC).lower()
    hits = [(m.start(), m.group(0)) for m in re.finditer(r"verified|falsified", text)]
    return max(hits)[1] if hits else None


_CYRILLIC = str.maketrans("аеорсуіѕАЕОРСІТВМНК", "aeopcyisAEOPCITBMHK")


def main() -> None:
    """Serve from the command line (benchmarks run it in its own process)."""
    import argparse
    import contextlib

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
