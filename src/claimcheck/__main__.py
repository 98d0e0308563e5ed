"""Run claimcheck as `python -m claimcheck`."""

from claimcheck.cli import main

main()
