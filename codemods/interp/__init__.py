"""A NumPy reference interpreter of the pl DSL, and the `verify` command built on it.

It runs kernel files eagerly, without pypto installed, in one of two profiles: `old` (the
pre-2026-03 DSL) and `2026-03` (the strict Tile/Tensor API, with the structural checks the
idioms file demands). `verify` runs an original in the first and its migration in the
second on the same inputs and compares what they write.

Layer 2, beside `model`: it may import `rulebook` only, so that it stays an independent
judge of what the migration layers wrote.
"""

import os

# The interpreter multiplies small matrices thousands of times; OpenBLAS's threads gain nothing
# there and, on a machine whose cores are busy, contend: a DeepSeek-V4 layer ran 30 s with them
# and 9 s without (two shared cores). Read when NumPy loads, so only where it has not yet; a
# user's own setting stays.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
