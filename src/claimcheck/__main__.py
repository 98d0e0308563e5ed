"""Run claimcheck as `python -m claimcheck`."""

from claimcheck.cli.quick import main

if __name__ == "__main__":  # not when a worker process imports the parent's main module
    main()
