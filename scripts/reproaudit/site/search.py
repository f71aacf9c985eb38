"""Site search: Pagefind indexes the built HTML into small fragments.

A query loads only the index chunks and fragments it needs, so search scales to
tens of thousands of pages without one big download (a lunr index of every paper
would be tens of megabytes). What gets indexed is marked in the HTML:
``data-pagefind-body`` on paper pages, contributor pages and hand-written pages;
``data-pagefind-ignore`` on parts that would only add noise (badge snippets,
citations).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..problems import Problem, ReproauditError

BUNDLE = "pagefind"


def index_site(site: Path) -> None:
    """Write the Pagefind bundle into ``site/pagefind/`` (the PyPI wheel ships the binary)."""
    try:
        from pagefind.service import _must_get_executable

        binary = str(_must_get_executable())
    except (ImportError, FileNotFoundError) as exc:
        raise ReproauditError(
            Problem(
                "invalid_value",
                "pyproject.toml",
                None,
                None,
                f"the search index needs Pagefind, which is not installed ({exc})",
                hint='pip install "pagefind[bin]" (a dependency of reproaudit)',
            )
        ) from None
    argv = [binary, "--site", str(site), "--output-subdir", BUNDLE, "--silent"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ReproauditError(
            Problem(
                "invalid_value",
                "site",
                None,
                None,
                f"Pagefind failed to index the site (exit {done.returncode}): "
                + (done.stderr or done.stdout).strip()[-500:],
            )
        )
