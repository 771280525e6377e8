"""The step to pypto 2026-03 (c39fe714a, 2026-03-09): `pl.view` removed, Tensors and Tiles
strictly apart. Its kinds carry out the planner's decisions (`planned.py`) and put tile code
left in orchestration into a kernel region (`regions.py`)."""
