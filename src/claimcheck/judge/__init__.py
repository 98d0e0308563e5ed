"""The pure judgement: what a reader sees, its blocks, where a quote stands, and the verdict.

Nothing here does I/O or imports an HTTP, CLI or scheduler library: every function takes
what it needs (texts, snapshots, `today`) as arguments, so the whole judgement is testable
with plain values. `tests/test_house_rules.py` keeps it so.
"""
