"""The expected failures of reproaudit, by kind; the command line turns each into one message.

An expected failure is one the user can fix (bad input, a refused call, an
unreachable endpoint): the library raises a subclass of ``ReproauditError`` and
the single handler in ``reproaudit.cli`` prints its text and exits 1. Anything
else is a bug and keeps its traceback (exit 3). The library never prints.

This module imports nothing from the package, so every module may import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .problems import Problem


def _with_hint(message: str, hint: str | None) -> str:
    return f"{message}\n  hint: {hint}" if hint else message


def _problems_text(problems: list[Problem]) -> str:
    # the same order as problems.format_problems (by file, line, field, code)
    ordered = sorted(problems, key=lambda p: (p.path, p.line or 0, p.field or "", p.code))
    return "\n".join(p.format_text() for p in ordered)


class ReproauditError(Exception):
    """An expected failure the user can fix: its text says what went wrong and how to fix it.

    ``problems`` is empty except for ``InputError``. Passing ``Problem``s here
    still works for code written before the hierarchy (it behaves as an input
    error); new code raises ``InputError``.
    """

    def __init__(self, message: str | Problem | Iterable[Problem], hint: str | None = None) -> None:
        self.hint = hint
        if isinstance(message, str):
            self.problems: list[Problem] = []
            super().__init__(_with_hint(message, hint))
        else:
            self.problems = [message] if hasattr(message, "code") else list(message)  # type: ignore[arg-type]
            super().__init__(_problems_text(self.problems))


class InputError(ReproauditError):
    """Input files have problems; each ``Problem`` names the file, line and field."""

    def __init__(self, problems: Problem | Iterable[Problem]) -> None:
        super().__init__([problems] if hasattr(problems, "code") else list(problems))  # type: ignore[list-item]


class SettingError(ReproauditError):
    """An option or environment setting has a value that cannot work (named in the message)."""


class UsageError(SettingError):
    """Options that cannot work together; the command line reports it as a usage error (exit 2)."""


class EndpointError(ReproauditError):
    """A remote service (the LLM endpoint, the Hugging Face Hub or Jobs) failed or refused."""


class GitHubError(ReproauditError):
    """A GitHub API call that failed for good (after retries)."""

    def __init__(self, status: int, method: str, path: str, message: str) -> None:
        self.status = status
        super().__init__(f"GitHub API {method} {path} failed ({status}): {message}")


class GitError(ReproauditError):
    """A git command the workflow needs failed (an unknown commit, a shallow clone, a push)."""


class ReadOnlyError(ReproauditError):
    """A write attempted by a read-only (dry-run) GitHub client."""


class ArtifactError(ReproauditError):
    """An untrusted artifact (a workflow's result file, a re-run record, an event) is malformed.

    The message names the file and what is wrong with it; the artifact's own
    text is never shown as an instruction.
    """

    def __init__(self, path: object, message: str, hint: str | None = None) -> None:
        self.path = str(path)
        self.detail = message
        super().__init__(f"{path}: {message}", hint)

    def at(self, path: object) -> ArtifactError:
        """The same error, naming the file the artifact was read from."""
        return ArtifactError(path, self.detail, self.hint)
