"""Layer 5, the compiler bridge: an installed pypto run in a child process per file (the
worker), its memory report and IR read back, and its verdict set beside the tool's own.

May import `migrate`, `interp`, `check`, `model` and `rulebook`; the child process itself
imports pypto, nothing of this package does.
"""
