"""The GitHub flow's fixtures (fake API, base checkout), shared with the re-run tests."""

from tests.ci.conftest import base_repo, github_api  # noqa: F401
