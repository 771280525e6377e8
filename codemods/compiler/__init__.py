"""Layer 5, the compiler bridge: an installed pypto run in a child process per file (the
worker), its memory report (2026-03) or memory map (2026-08) and IR read back, and its
verdict set beside the tool's own. The child may run in another Python than the tool's
(`installed`), so what it imports of this package is standard library only (`worker`,
`head`, `ir_audit`, `memory_report`, `interp.sources`, `rulebook.loading`).

May import `migrate`, `interp`, `check`, `model` and `rulebook`; the child process itself
imports pypto, nothing of this package does.
"""
