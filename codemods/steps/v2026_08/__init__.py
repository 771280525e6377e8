"""The step to pypto 2026-08 (e2d0f78ae, 2026-08-21): the 28 changes after March, three of
them silent. `base.py` is what every kind of this step shares (scan, decide, rewrite, flag),
`infer.py` its typing of the code as it was written; one module per family of changes."""
