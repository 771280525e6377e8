"""Layer 6, runs over many files: discovery, configuration, the runner (read, migrate,
diff, write), the results cache, the worker pool and patches.

May import every layer below it (`compiler`, `interp`, `migrate`, `check`, ...); never
`cli`.
"""
