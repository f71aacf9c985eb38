"""A real HTTP server on 127.0.0.1 standing in for the GitHub REST API.

It serves the handful of endpoints the workflows' commands use, from plain
dictionaries a test fills in, records every request, and can fail the first
requests with a 502 to exercise retries. Lists are paginated with ``Link``
headers like GitHub's (``page_size`` items per page).
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlparse

from tests.localserver import LocalServer

MAX_LISTED_FILES = 3000  # the pull-request files endpoint lists no more


class FakeGitHub:
    def __init__(self, repo: str = "Codertocat/Hello-World", page_size: int = 2) -> None:
        self.repo = repo
        self.page_size = page_size
        self.permissions: dict[str, str] = {}  # login -> role name
        self.pulls: dict[int, dict[str, Any]] = {}  # number -> {"head": {"sha": ...}}
        self.files: dict[int, list[str]] = {}
        self.contents: dict[tuple[str, str], str] = {}  # (path, ref) -> text
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.check_runs: list[dict[str, Any]] = []
        self.dispatches: list[dict[str, Any]] = []
        self.runs: list[dict[str, Any]] = []  # items of GET /actions/runs
        self.timelines: dict[int, list[dict[str, Any]]] = {}
        self.requests: list[tuple[str, str, Any]] = []
        self.fail_first = 0
        self.after: list[Any] = []  # callables (method, path) run after each answer
        self._ids = 1000
        self._lock = threading.Lock()
        self._http = LocalServer(self._handler())

    @property
    def url(self) -> str:
        return self._http.base_url

    def __enter__(self) -> FakeGitHub:
        self._http.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.__exit__(*exc)

    def writes(self) -> list[tuple[str, str]]:
        return [(m, p) for m, p, _ in self.requests if m != "GET"]

    # --- routing ----------------------------------------------------------------

    def route(
        self, method: str, path: str, query: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        r = re.escape(self.repo)
        if m := re.fullmatch(rf"/repos/{r}/collaborators/([^/]+)/permission", path):
            login = m.group(1)
            if login not in self.permissions:
                return 404, {"message": "Not Found"}, {}
            role = self.permissions[login]
            legacy = {"maintain": "write", "triage": "read"}.get(role, role)
            return 200, {"permission": legacy, "role_name": role, "user": {"login": login}}, {}
        if m := re.fullmatch(rf"/repos/{r}/pulls/(\d+)/files", path):
            names = [
                {"filename": f, "status": "modified"} for f in self.files.get(int(m.group(1)), [])
            ]
            return self._page(path, query, names[:MAX_LISTED_FILES])  # GitHub's cap
        if m := re.fullmatch(rf"/repos/{r}/actions/workflows/([^/]+)/runs", path):
            runs = [x for x in self.runs if x.get("path", "").endswith("/" + m.group(1))]
            return 200, {"total_count": len(runs), "workflow_runs": runs}, {}
        if path == f"/repos/{self.repo}/actions/runs":
            runs = [
                r
                for r in self.runs
                if all(str(r.get(k)) == query[k][0] for k in ("head_sha", "event") if k in query)
            ]
            return 200, {"total_count": len(runs), "workflow_runs": runs}, {}
        if m := re.fullmatch(rf"/repos/{r}/issues/(\d+)/timeline", path):
            return self._page(path, query, self.timelines.get(int(m.group(1)), []))
        if m := re.fullmatch(rf"/repos/{r}/pulls/(\d+)", path):
            pull = self.pulls.get(int(m.group(1)))
            return (200, pull, {}) if pull else (404, {"message": "Not Found"}, {})
        if path == f"/repos/{self.repo}/pulls" and method == "POST":
            number = max([*self.pulls, 0]) + 1
            self.pulls[number] = {
                "number": number,
                "html_url": f"https://github.com/{self.repo}/pull/{number}",
                "head": {"ref": body["head"], "sha": "0" * 40},
                "base": {"ref": body["base"]},
                "title": body["title"],
                "body": body["body"],
            }
            return 201, self.pulls[number], {}
        if path == f"/repos/{self.repo}/pulls" and method == "GET":
            return self._page(path, query, [{"number": n, **p} for n, p in self.pulls.items()])
        if m := re.fullmatch(rf"/repos/{r}/contents/(.+)", path):
            ref = query.get("ref", [""])[0]
            text = self.contents.get((m.group(1), ref))
            return (200, text, {}) if text is not None else (404, {"message": "Not Found"}, {})
        if m := re.fullmatch(rf"/repos/{r}/issues/(\d+)/comments", path):
            number = int(m.group(1))
            if method == "POST":
                with self._lock:
                    self._ids += 1
                    comment = {
                        "id": self._ids,
                        "body": body["body"],
                        "user": {"login": "github-actions[bot]", "type": "Bot"},
                    }
                self.comments.setdefault(number, []).append(comment)
                return 201, comment, {}
            return self._page(path, query, self.comments.get(number, []))
        if m := re.fullmatch(rf"/repos/{r}/issues/comments/(\d+)", path):
            for comments in self.comments.values():
                for comment in comments:
                    if comment["id"] == int(m.group(1)):
                        comment["body"] = body["body"]
                        return 200, comment, {}
            return 404, {"message": "Not Found"}, {}
        if path == f"/repos/{self.repo}/check-runs" and method == "POST":
            self.check_runs.append(body)
            return 201, {"id": len(self.check_runs), **body}, {}
        if m := re.fullmatch(rf"/repos/{r}/actions/workflows/([^/]+)/dispatches", path):
            self.dispatches.append({"workflow": m.group(1), **body})
            return 204, None, {}
        return 404, {"message": f"no route {method} {path}"}, {}

    def _page(
        self, path: str, query: dict[str, list[str]], items: list[Any]
    ) -> tuple[int, Any, dict[str, str]]:
        page = int(query.get("page", ["1"])[0])
        start = (page - 1) * self.page_size
        chunk = items[start : start + self.page_size]
        headers = {}
        if start + self.page_size < len(items):
            headers["Link"] = f'<{self.url}{path}?page={page + 1}>; rel="next"'
        return 200, chunk, headers

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: object) -> None:
                pass

            def _serve(self, method: str) -> None:
                parsed = urlparse(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                with fake._lock:
                    fake.requests.append((method, parsed.path, body))
                    failing = fake.fail_first > 0
                    if failing:
                        fake.fail_first -= 1
                if failing:
                    status, payload, headers = 502, {"message": "Bad Gateway"}, {}
                else:
                    status, payload, headers = fake.route(
                        method, parsed.path, parse_qs(parsed.query), body
                    )
                data = (
                    b""
                    if payload is None
                    else (
                        payload.encode()
                        if isinstance(payload, str)
                        else json.dumps(payload).encode()
                    )
                )
                for hook in fake.after:
                    hook(method, parsed.path)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

            def do_PATCH(self) -> None:
                self._serve("PATCH")

        return Handler
