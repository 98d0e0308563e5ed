"""Every command of the claimcheck app, found as a user finds them: through `--help`.

The app builds its commands lazily (`cli/group.py`), so its typer object no longer lists
them; the built root group does, and so does each group below it.
"""

from __future__ import annotations

import typer.main

from claimcheck.cli.app import app


def command_paths(*, groups: bool = False) -> list[list[str]]:
    """Each command's words after `claimcheck` (`["verify"]`, `["report", "merge"]`).

    With `groups`, a group's own words (`["report"]`) come before its commands'.
    """
    root = typer.main.get_command(app)
    context = root.make_context("claimcheck", ["--help"], resilient_parsing=True)
    paths: list[list[str]] = []
    for name in root.list_commands(context):  # type: ignore[attr-defined]
        command = root.get_command(context, name)  # type: ignore[attr-defined]
        if hasattr(command, "list_commands"):
            if groups:
                paths.append([name])
            paths += [[name, sub] for sub in command.list_commands(context)]
        else:
            paths.append([name])
    return paths
