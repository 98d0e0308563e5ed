"""pdfminer.six against pypdf on the PDFs the tests write: reading order, ligatures, speed.

Which library reads a PDF's text for claimcheck (`judge/pdf.py`) was chosen by
this script. For each reader it prints the text it gives of a two-column page written
row by row across the columns (`tests/support/pdfs.py`), then a table:

- reading order: is column 1 read whole before column 2 (its broken word "infer-" is
  followed by "ence", not by a line of the other column)?
- ligatures: does "ﬁ" come out as the ligature U+FB01, as "fi", or lost?
- time: the median of `--runs` readings of a 20-page two-column PDF (`--pages`), and
  the peak of memory Python allocated for one (tracemalloc).

    python bench/pdf_text.py
    python bench/pdf_text.py --pages 50 --runs 3 --show

Import convention: the script puts `tests/` on `sys.path` itself, to write the PDFs
with the tests' own writer.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import pypdf
from pdfminer.high_level import extract_text
from pdfminer.layout import LAParams

from support import pdfs

Reader = Callable[[bytes], str]


def pdfminer_layout(body: bytes) -> str:
    """pdfminer.six with its layout analysis (the defaults): text boxes in reading order."""
    return extract_text(io.BytesIO(body), laparams=LAParams())


def pypdf_plain(body: bytes) -> str:
    """pypdf's default extraction: the content stream's order."""
    reader = pypdf.PdfReader(io.BytesIO(body))
    return "\n".join(page.extract_text() for page in reader.pages)


def pypdf_layout(body: bytes) -> str:
    """pypdf's layout mode: the page drawn as fixed-width text."""
    reader = pypdf.PdfReader(io.BytesIO(body))
    return "\n".join(page.extract_text(extraction_mode="layout") for page in reader.pages)


READERS: dict[str, Reader] = {
    "pdfminer.six (layout)": pdfminer_layout,
    "pypdf (plain)": pypdf_plain,
    "pypdf (layout)": pypdf_layout,
}


def in_reading_order(text: str) -> bool:
    """Column 1's broken word is followed by its own next line, and column 1's last
    paragraph comes before column 2's first line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    broken = next((n for n, line in enumerate(lines) if line.endswith("infer-")), None)
    if broken is None or broken + 1 >= len(lines) or not lines[broken + 1].startswith("ence"):
        return False
    first_right = next((n for n, line in enumerate(lines) if "Paged attention" in line), -1)
    last_left = next((n for n, line in enumerate(lines) if "when full." in line), -1)
    return 0 <= last_left < first_right


def ligatures(text: str) -> str:
    """How the ligature glyph of "finds" came out."""
    if "\ufb01nds" in text:
        return "kept (U+FB01)"
    if "finds" in text:
        return 'unfolded ("fi")'
    return "lost"


def timed(reader: Reader, body: bytes, runs: int) -> float:
    """The median seconds of `runs` readings."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        reader(body)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_memory(reader: Reader, body: bytes) -> int:
    """The peak bytes Python allocated while reading once."""
    tracemalloc.start()
    try:
        reader(body)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pages", type=int, default=20, help="pages of the long PDF")
    parser.add_argument("--runs", type=int, default=5, help="readings timed, median taken")
    parser.add_argument("--show", action="store_true", help="print each reader's text")
    args = parser.parse_args()
    paper = pdfs.two_column_paper()
    long = pdfs.long_paper(args.pages)
    print(f"two-column paper: {len(paper):,} bytes; long paper: {args.pages} pages, "
          f"{len(long):,} bytes")  # fmt: skip
    rows = []
    for name, reader in READERS.items():
        text = reader(paper)
        if args.show:
            print(f"\n--- {name} ---\n{text.strip()}\n")
        seconds = timed(reader, long, args.runs)
        rows.append(
            (
                name,
                "yes" if in_reading_order(text) else "NO",
                ligatures(text),
                f"{seconds * 1000:,.0f} ms",
                f"{seconds * 1000 / args.pages:,.1f} ms",
                f"{peak_memory(reader, long) / 2**20:,.1f} MiB",
            )
        )
    header = ("reader", "reading order", "ligature", f"{args.pages} pages", "a page", "peak")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)))


if __name__ == "__main__":
    main()
