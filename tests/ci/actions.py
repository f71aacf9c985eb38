"""A workflow's jobs replayed locally: each ``run:`` step through bash, as GitHub runs it.

The loop test reads the jobs it replays from ``.github/workflows/*.yml`` itself, so a
changed command line, option or condition there is what the test runs. ``${{ }}``
expressions in ``if:``, ``env:`` and ``with:`` are evaluated against the context the test
gives (the event, the repository; variables and secrets unset, as in a fork's run or a
repository without them). The few actions the workflows use are played by their
documented effect: ``actions/checkout`` clones the local origin with the step's ``ref``,
``fetch-depth`` (1 unless given: a shallow clone) and ``filter``;
``upload-artifact``/``download-artifact`` copy folders within one workflow run;
``setup-python``, Pages and the ``Install`` steps are skipped (this interpreter has the
package, installed from the worktree). Every other step's script runs with ``bash
--noprofile --norc -eo pipefail`` in the checkout, with GitHub's default variables
(``GITHUB_EVENT_PATH``, ``RUNNER_TEMP``, ``GITHUB_OUTPUT``...) and the step's ``env:``
only: no token unless the step names one, as on GitHub.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
_TOKEN = re.compile(
    r"\s+|(?P<str>'(?:[^']|'')*')|(?P<op>&&|\|\||==|!=|[!(),])|(?P<num>\d+(?:\.\d+)?)"
    r"|(?P<name>[A-Za-z_][\w\-]*(?:\.[\w\-*]+)*)"
)
_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)


class ExpressionError(Exception):
    pass


def _tokens(text: str) -> list[tuple[str, str]]:
    out, at = [], 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            raise ExpressionError(f"cannot read {text[at:]!r} in {text!r}")
        at = match.end()
        kind = match.lastgroup
        if kind is not None:
            out.append((kind, match.group(kind)))
    return out


def _truthy(value: Any) -> bool:
    return value not in (None, "", 0, False)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()  # GitHub compares strings case-insensitively
    return a == b


@dataclass
class Expression:
    """The subset of GitHub's expression language the workflows use."""

    context: dict[str, Any]
    status: str = "success"  # what success(), failure() and cancelled() see

    def evaluate(self, text: str) -> Any:
        self._tokens, self._at = _tokens(text), 0
        value = self._or()
        if self._at != len(self._tokens):
            raise ExpressionError(f"unexpected {self._tokens[self._at][1]!r} in {text!r}")
        return value

    def _peek(self) -> str | None:
        return self._tokens[self._at][1] if self._at < len(self._tokens) else None

    def _take(self) -> tuple[str, str]:
        token = self._tokens[self._at]
        self._at += 1
        return token

    def _or(self) -> Any:
        value = self._and()
        while self._peek() == "||":
            self._take()
            right = self._and()
            value = value if _truthy(value) else right
        return value

    def _and(self) -> Any:
        value = self._compare()
        while self._peek() == "&&":
            self._take()
            right = self._compare()
            value = right if _truthy(value) else value
        return value

    def _compare(self) -> Any:
        value = self._unary()
        if self._peek() in ("==", "!="):
            op = self._take()[1]
            right = self._unary()
            return _equal(value, right) == (op == "==")
        return value

    def _unary(self) -> Any:
        if self._peek() == "!":
            self._take()
            return not _truthy(self._unary())
        return self._primary()

    def _primary(self) -> Any:
        kind, text = self._take()
        if text == "(":
            value = self._or()
            self._take()
            return value
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind == "num":
            return float(text)
        if text in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[text]
        if self._peek() == "(":
            self._take()
            args = []
            while self._peek() != ")":
                args.append(self._or())
                if self._peek() == ",":
                    self._take()
            self._take()
            return self._call(text, args)
        value: Any = self.context
        for part in text.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return value

    def _call(self, name: str, args: list[Any]) -> Any:
        if name == "always":
            return True
        if name == "success":
            return self.status == "success"
        if name == "failure":
            return self.status == "failure"
        if name == "cancelled":
            return False
        if name == "contains":
            return str(args[1]).casefold() in str(args[0]).casefold()
        if name == "startsWith":
            return str(args[0]).casefold().startswith(str(args[1]).casefold())
        if name == "fromJSON":
            return json.loads(str(args[0]))
        raise ExpressionError(f"the replay knows no function {name}()")


# a step that is one ``reproaudit`` command line: no redirection, pipe, list or substitution
ONE_COMMAND = re.compile(r"reproaudit\s[^\n;&|<>`]*")


def _bash(script: Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def _reproaudit(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """``reproaudit ARGV`` in this process, in ``cwd``, with exactly the environment ``env``."""
    from click.testing import CliRunner

    from reproaudit.cli import cli

    overlay: dict[str, str | None] = {k: None for k in os.environ if k not in env}
    overlay |= env
    before = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner(env=overlay).invoke(cli, argv)
    finally:
        os.chdir(before)
    output = result.output
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        output += "".join(traceback.format_exception(result.exception))
    return result.exit_code, output


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def interpolate(text: Any, expression: Expression) -> str:
    """A ``with:`` or ``env:`` value: YAML scalars as GitHub writes them, expressions filled."""
    if not isinstance(text, str):
        return _text(text)
    return _EXPR.sub(lambda m: _text(expression.evaluate(m.group(1))), text)


def condition(text: str | None, expression: Expression) -> bool:
    """A job's or step's ``if:`` (``success()`` when there is none)."""
    if text is None:
        return expression.status == "success"
    body = str(text).strip()
    if body.startswith("${{") and body.endswith("}}"):
        body = body[3:-2]
    uses_status = re.search(r"\b(always|success|failure|cancelled)\(", body)
    if not uses_status and expression.status != "success":
        return False
    return _truthy(expression.evaluate(body))


@dataclass
class Step:
    name: str
    outcome: str  # success, failure, skipped
    seconds: float
    output: str = ""


@dataclass
class Job:
    name: str
    result: str  # success, failure, skipped
    steps: list[Step] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    workspace: Path | None = None

    def log(self) -> str:
        return "\n".join(f"--- {s.name} ({s.outcome})\n{s.output}" for s in self.steps)

    def step(self, name_part: str) -> Step:
        (found,) = [s for s in self.steps if name_part in s.name]
        return found


@dataclass
class WorkflowRun:
    workflow: str
    jobs: dict[str, Job]
    seconds: float

    def __getitem__(self, name: str) -> Job:
        return self.jobs[name]


@dataclass
class Actions:
    """Runs jobs of this repository's workflows against a local origin and API stand-in."""

    origin: Path
    api_url: str
    repo: str
    tmp: Path
    default_branch: str = "main"
    token: str = "ghs_job_token"
    runs: list[WorkflowRun] = field(default_factory=list)
    _count: int = 0

    def run(
        self,
        workflow: str,
        event_name: str,
        event: dict[str, Any],
        *,
        jobs: list[str],
        ref: str | None = None,
        before_job: Callable[[str], None] | None = None,
    ) -> WorkflowRun:
        """Run ``jobs`` of ``workflow`` (in the order of their ``needs``) for one event."""
        doc = yaml.safe_load((ROOT / ".github" / "workflows" / workflow).read_text())
        self._count += 1
        folder = self.tmp / f"run-{self._count}-{workflow.removesuffix('.yml')}"
        folder.mkdir(parents=True)
        event_path = folder / "event.json"
        event_path.write_text(json.dumps(event))
        ref = ref or self.default_branch
        github = {
            "token": self.token,
            "repository": self.repo,
            "ref": f"refs/heads/{ref}",
            "ref_name": ref,
            "event_name": event_name,
            "event": event,
            "run_id": str(1000 + self._count),
        }
        done: dict[str, Job] = {}
        artifacts: dict[str, Path] = {}
        started = time.monotonic()
        for name in jobs:
            spec = doc["jobs"][name]
            needs = spec.get("needs") or []
            needs = [needs] if isinstance(needs, str) else needs
            missing = [n for n in needs if n not in done]
            assert not missing, f"{workflow} job {name} needs {missing}: replay them first"
            context = {
                "github": github,
                "vars": {},
                "secrets": {},
                "inputs": event.get("inputs") or {},
                "needs": {n: {"result": done[n].result, "outputs": done[n].outputs} for n in needs},
            }
            status = "success" if all(done[n].result == "success" for n in needs) else "failure"
            expression = Expression(context, status)
            if not condition(spec.get("if"), expression):
                done[name] = Job(name, "skipped")
                continue
            if before_job is not None:
                before_job(name)
            done[name] = self._job(name, spec, context, folder / name, event_path, artifacts)
        result = WorkflowRun(workflow, done, time.monotonic() - started)
        self.runs.append(result)
        return result

    def _job(
        self,
        name: str,
        spec: dict[str, Any],
        context: dict[str, Any],
        folder: Path,
        event_path: Path,
        artifacts: dict[str, Path],
    ) -> Job:
        temp, home = folder / "runner-temp", folder / "home"
        temp.mkdir(parents=True)
        home.mkdir()
        workspace = folder / "workspace"
        job = Job(name, "success", workspace=workspace)
        steps: dict[str, Any] = {}
        context = context | {"steps": steps, "runner": {"temp": str(temp)}}
        base_env = {
            "PATH": f"{BIN}{os.pathsep}/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "TMPDIR": str(temp),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_API_URL": self.api_url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": self.repo,
            "GITHUB_EVENT_NAME": str(context["github"]["event_name"]),
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REF_NAME": str(context["github"]["ref_name"]),
            "GITHUB_RUN_ID": str(context["github"]["run_id"]),
            "GITHUB_WORKSPACE": str(workspace),
            "RUNNER_TEMP": str(temp),
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        for index, spec_step in enumerate(spec.get("steps", [])):
            expression = Expression(context, job.result)
            label = spec_step.get("name") or spec_step.get("uses") or f"step {index}"
            if not condition(spec_step.get("if"), expression):
                job.steps.append(Step(label, "skipped", 0.0))
                continue
            started = time.monotonic()
            outcome, output, outputs = self._step(
                spec_step, expression, base_env, workspace, temp, artifacts
            )
            job.steps.append(Step(label, outcome, time.monotonic() - started, output))
            if "id" in spec_step:
                steps[spec_step["id"]] = {"outputs": outputs, "outcome": outcome}
            if outcome == "failure":
                job.result = "failure"
        expression = Expression(context, job.result)
        job.outputs = {
            k: interpolate(v, expression) for k, v in (spec.get("outputs") or {}).items()
        }
        return job

    def _step(
        self,
        step: dict[str, Any],
        expression: Expression,
        base_env: dict[str, str],
        workspace: Path,
        temp: Path,
        artifacts: dict[str, Path],
    ) -> tuple[str, str, dict[str, str]]:
        given = {k: interpolate(v, expression) for k, v in (step.get("with") or {}).items()}
        uses = str(step.get("uses", "")).split("@")[0]
        if uses == "actions/checkout":
            return self._checkout(given, workspace), "", {}
        if uses in ("actions/setup-python", "actions/deploy-pages"):
            return "success", "skipped by the replay", {}
        if uses in ("actions/upload-artifact", "actions/upload-pages-artifact"):
            source = workspace / given["path"]  # relative paths are the workspace's
            if not source.exists() or (source.is_dir() and not any(source.iterdir())):
                return "failure", f"no files at {source}", {}
            artifacts[given.get("name", "github-pages")] = source
            return "success", "", {}
        if uses == "actions/download-artifact":
            shutil.copytree(artifacts[given["name"]], workspace / given["path"], dirs_exist_ok=True)
            return "success", "", {}
        if uses:
            raise ExpressionError(f"the replay does not play {uses}")
        if str(step.get("name", "")).startswith("Install"):
            return "success", "skipped by the replay (the package is installed)", {}
        output_file = temp / f"output-{time.monotonic_ns()}"
        output_file.touch()
        env = base_env | {"GITHUB_OUTPUT": str(output_file)}
        env |= {k: interpolate(v, expression) for k, v in (step.get("env") or {}).items()}
        script = temp / f"script-{time.monotonic_ns()}.sh"
        command = str(step["run"]).strip()
        if ONE_COMMAND.fullmatch(command) and "$(" not in command:
            # bash expands the words; the command runs in this process (no second start-up)
            script.write_text("printf '%s\\0'" + command[len("reproaudit") :] + "\n")
            words = _bash(script, workspace, env)
            if words.returncode != 0:
                return "failure", words.stderr, {}
            code, output = _reproaudit(words.stdout.split("\0")[:-1], env, workspace)
        else:
            script.write_text(command + "\n")
            done = _bash(script, workspace, env)
            code, output = done.returncode, done.stdout + done.stderr
        outputs = {}
        for line in output_file.read_text().splitlines():
            if "=" in line:
                key, value = line.split("=", 1)
                outputs[key] = value
        return ("success" if code == 0 else "failure"), output, outputs

    def _checkout(self, given: dict[str, str], workspace: Path) -> str:
        assert given.get("persist-credentials") == "false"
        args = ["git", "clone", "--quiet", "--no-tags"]
        depth = given.get("fetch-depth", "1")
        if depth != "0":
            args += ["--depth", depth]  # a shallow clone, like the action's default
        if given.get("filter"):
            args.append(f"--filter={given['filter']}")
        branch = given.get("ref") or self.default_branch
        args += ["--branch", branch, f"file://{self.origin}", str(workspace)]
        done = subprocess.run(args, capture_output=True, text=True)
        return "success" if done.returncode == 0 else "failure"
