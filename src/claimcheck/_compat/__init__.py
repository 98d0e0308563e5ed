"""Every use of a dependency's private internals, one module per dependency.

Outside this package claimcheck uses only the public API of what it depends on
(`tests/test_house_rules.py` holds it to that). Each module here reaches one private
part, says what for, and checks the installed version of the dependency against the
range the patch was written for (`versions.supported`): outside that range it falls
back to the dependency's public path, which gives the same results.

- `httpx_cli`: httpx's command line, left out of the process;
- `cmark`: cmark-gfm's C functions, to free what its binding leaks.
"""
