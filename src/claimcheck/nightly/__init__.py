"""Nightly runs: the scheduler, one nightly cycle, and the files `claimcheck init` writes."""
