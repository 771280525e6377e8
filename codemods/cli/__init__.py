"""Layer 7, the command line: click commands, interactive review, the output formats
(text, JSON, SARIF, GitHub annotations), the console, exit codes and rule pages.

The top: it may import any layer; nothing imports it.
"""
