"""The rule kinds any step's records may name: call patterns, renames of ops, members and
keywords, flags. Each registers itself with `@kind`."""
