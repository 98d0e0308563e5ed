"""What each command does once its options are parsed: one module per command.

`cli.lazy.dispatch` imports a command's module here only when the command runs, so each
imports at its top all it needs.
"""
