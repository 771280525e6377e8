"""Layer 2, the model: what a kernel program is and what its values are. Program structure
(constants, kernel functions, kernel regions), which names mean `pypto.language`, value
kinds and shapes, the typing of expressions (what each value is after migration: the
planner's semantic model), liveness, and the compiler's buffer sharing and capacity replayed.

May import `syntax`, `rulebook` and `text`; never the layers that decide or change code.
"""
