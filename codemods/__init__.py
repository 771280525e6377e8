"""pypto-migrate: rules as data, one LibCST traversal, reviewable diffs."""

__version__ = "0.1.0"
