"""Layer 1, the rulebook: loading and validating the data in `codemods/rules/` (rule records and the
API table of a pypto version), and the call-pattern language rule records are written in.

May import `syntax`; nothing above it.
"""
