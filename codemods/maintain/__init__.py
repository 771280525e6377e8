"""Layer 6, beside `run`: what a maintainer runs to add the next pypto version. `measure`
reads an installed pypto's API in a child process (`probe`, standard library only, in the
compiler's own Python) and writes it as an API table; `table_diff` compares two tables and
prints the catalogue of changes; `stubs` writes a rule record for each mechanical one.

May import what `run` may (`compiler`, `migrate`, `rulebook`, ...), never `run` or `cli`;
the child process imports pypto, nothing of this package does. Only `cli` imports it.
"""
