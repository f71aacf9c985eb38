"""reproaudit: a git-native, claim-by-claim audit of a conference's papers."""

__version__ = "0.1.0"
