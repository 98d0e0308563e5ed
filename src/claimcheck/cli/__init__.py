"""The `claimcheck` command line: the typer app and one module per command family.

A run is a short-lived process that builds hundreds of thousands of small objects that
live to its end (claims, snapshots' records, results, the report) and almost no
reference cycles. Python's default collector thresholds (700 allocations) walk that
growing heap again and again: a quarter of a 10,000-claim offline run went to it, for
nothing to collect. The command line raises the thresholds before its imports; cycles
are still collected, less often. Importing the library (not the command line) leaves
the collector as it is.
"""

import gc

GC_THRESHOLDS = (10_000, 50, 1_000)
"""Young-generation allocations per collection, then how many younger collections
trigger each older one."""

gc.set_threshold(*GC_THRESHOLDS)
