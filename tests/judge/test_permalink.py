"""Where a quote stands in a Markdown file, and the links a citation is made of.

The Markdown is written here with its line numbers known by construction.
"""

from __future__ import annotations

from claimcheck.judge.permalink import github_blob_url, quote_lines
from claimcheck.models import Anchor

README = """\
# Engine

Fast inference
for **every** model.

- 4-bit and
  8-bit quantization
- CUDA

| Backend | Target |
| --- | --- |
| Metal | Apple Silicon |

```sh
make -j
```
"""


def test_a_quote_is_placed_on_its_blocks_lines_however_the_markdown_writes_it() -> None:
    assert quote_lines(README, Anchor(quote="fast inference for every model")) == (3, 4)
    assert quote_lines(README, Anchor(quote="8-bit quantization")) == (6, 7)
    assert quote_lines(README, Anchor(quote="CUDA")) == (8, 8)
    assert quote_lines(README, Anchor(quote="Apple Silicon")) == (12, 12)
    assert quote_lines(README, Anchor(quote="make -j")) == (14, 16)
    assert quote_lines(README, Anchor(quote="not in the file")) is None


def test_a_range_quote_runs_from_its_start_to_its_end() -> None:
    anchor = Anchor(quote="Fast inference", quote_end="CUDA")
    assert quote_lines(README, anchor) == (3, 8)


def test_the_links() -> None:
    assert github_blob_url("o", "r", "abc123", "docs/READ ME.md", (3, 4)) == (
        "https://github.com/o/r/blob/abc123/docs/READ%20ME.md#L3-L4"
    )
    assert github_blob_url("o", "r", "abc123", "README.md", (8, 8)).endswith("#L8")
    assert github_blob_url("o", "r", "abc123", "README.md", None).endswith("/README.md")
