"""Layer 4, migration: the engine that turns one file's text into its migration, the
prescan and the planner (its statement walk, decisions and hand-offs; the typing it
drives lives in `model.inference`) that decide what must change, the plan they write, the rule kinds
(`transforms`) that carry it out, and the capacity report built on the planner.

May import `check`, `model`, `rulebook`, `syntax` and `text`; nothing about files on
disk, processes or the command line.
"""
