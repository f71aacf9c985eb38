"""The report on checked logbooks, outside the CI layer: ``reproaudit check`` needs no GitHub.

``artifact.py`` the pull request's result file and the report's items; ``model.py``
the ``Report``; ``markdown.py`` and ``terminal.py`` its two renderings;
``markdown_text.py`` untrusted text made safe for Markdown. ``ci/report.py``
only publishes (the sticky comment, the check run).
"""
