"""Run claimcheck as `python -m claimcheck`."""

from claimcheck.cli.app import main

main()
