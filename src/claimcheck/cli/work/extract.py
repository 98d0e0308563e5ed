"""What `claimcheck extract` does: write an article's claims as a claim file."""

from __future__ import annotations

import sys
from pathlib import Path

from claimcheck.claims.article import (
    ArticleError,
    article_media,
    claim_file_text,
    not_utf8_article,
    read_article,
)
from claimcheck.claims.edit import write_claim_file
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import UsageError
from claimcheck.utf8 import NotUtf8Error, decode_utf8


def extract(*, articles: list[Path], output: Path | None) -> int:
    """The work of `claimcheck extract`, given its parsed options: its exit code."""
    if len(articles) > 1 and output is None:
        raise UsageError(
            "several articles make several claim files",
            hint="give a folder to write them in with --output",
        )
    problems: list[str] = []
    written: list[tuple[str, str]] = []
    for path in articles:
        name = path.as_posix()
        media = article_media(name)
        if media is None:
            raise UsageError(
                f"{name}: not an article (*.md, *.markdown, *.html, *.htm)",
                hint="claim files are YAML already; `claimcheck list` shows their claims",
            )
        try:
            text = decode_utf8(path.read_bytes())
        except NotUtf8Error as exc:
            problems.append(not_utf8_article(name, exc))
            continue
        except OSError as exc:
            problems.append(f"{name}:1: cannot read: {exc}")
            continue
        try:
            article = read_article(name, text, media, read=read_document)
        except ArticleError as exc:
            problems.extend(exc.problems)
            continue
        if not article.claims:  # as `verify` refuses it: no claim file says nothing
            problems.append(
                f"no claims found in {name}: no link carries a text directive (#:~:text=...)"
            )
            continue
        yaml_text = claim_file_text(article)
        back = parse_claims([(name, yaml_text)], read=read_document)
        fields = ("id", "page", "claim", "source", "anchor", "checked")
        if [c.model_dump(include=set(fields)) for c in back] != [
            c.model_dump(include=set(fields)) for c in article.claims
        ]:  # pragma: no cover - a bug in claim_file_text
            raise UsageError(f"{name}: the claim file would not read back as the article")
        written.append((article.page, yaml_text))
    if problems:
        raise ArticleError(problems)
    if output is None:
        sys.stdout.write(written[0][1])
    elif len(articles) == 1 and not output.is_dir():
        output.parent.mkdir(parents=True, exist_ok=True)
        write_claim_file(output, written[0][1])
    else:
        output.mkdir(parents=True, exist_ok=True)
        pages = [page for page, _ in written]
        twice = sorted({page for page in pages if pages.count(page) > 1})
        if twice:
            raise UsageError(f"several articles are the page {', '.join(twice)}")
        for page, yaml_text in written:
            write_claim_file(output / f"{page}.yaml", yaml_text)
    return 0
