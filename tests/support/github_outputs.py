"""Reading a `$GITHUB_OUTPUT` file as the Actions runner reads it, to see which keys a
step really wrote."""

from __future__ import annotations


def read_outputs(text: str) -> dict[str, str]:
    """A `$GITHUB_OUTPUT` file read as the runner reads it: `name=value` lines and
    `name<<DELIMITER` ... `DELIMITER` blocks. A key written twice fails (a forged key
    would overwrite the action's own)."""
    values: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for inside in lines:
                if inside == delimiter:
                    break
                body.append(inside)
            else:
                raise AssertionError(f"{name}: no closing delimiter")
            value = "\n".join(body)
        else:
            name, value = line.split("=", 1)
        assert name not in values, f"{name} written twice"
        values[name] = value
    return values
