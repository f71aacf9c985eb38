"""The public site: load and fold, build page contexts, render, build with mkdocs."""
