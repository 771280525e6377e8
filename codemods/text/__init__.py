"""Layer 0, texts: reading source files losslessly, writing them atomically, diffing them,
and the hunks of a diff.

Knows nothing of Python syntax or of pypto; imports the standard library and unidiff only.
"""
