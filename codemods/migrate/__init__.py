"""Layer 4, migration: the engine that turns one file's text into its migration, the
prescan and the planner (its statement walk, decisions and hand-offs; the typing it
drives lives in `model.inference`) that decide what must change, the plan they write, and the
capacity report built on the planner; the rule kinds that carry the plan out are the steps'
(`codemods.steps`).

May import `steps`, `check`, `model`, `rulebook`, `syntax` and `text`; nothing about files on
disk, processes or the command line.
"""
