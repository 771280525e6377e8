"""Layer 0, syntax: LibCST helpers every higher layer reads trees with: fast traversal,
node spelling, positions from one code generation, and answers memoised per file.

Knows nothing of pypto; imports LibCST and the standard library only.
"""
