"""A NumPy reference interpreter of the pl DSL, and the `verify` command built on it.

It runs kernel files eagerly, without pypto installed, in one of two profiles: `old` (the
pre-2026-03 DSL) and `2026-03` (the strict Tile/Tensor API, with the structural checks the
idioms file demands). `verify` runs an original in the first and its migration in the
second on the same inputs and compares what they write.

Layer 2, beside `model`: it may import `rulebook` only, so that it stays an independent
judge of what the migration layers wrote.
"""
