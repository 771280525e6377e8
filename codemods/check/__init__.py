"""Layer 3, checks: the independent strict check of code against a target API table, the
findings a person must still decide (read off the output), the errors a narrowed rule set
introduces, and the plain data a migration gives (edits, findings, errors).

May import `model`, `rulebook`, `syntax` and `text`; it never changes code.
"""
