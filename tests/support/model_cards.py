"""A model card and its history on the fake Hub: the running example of the Hub tests.

`acme-ai/tiny-chat-7b` is committed six times; the card itself changes three times (its
first version, the evaluation table, the rewritten Limitations section, the last
commit), the other commits upload files and leave README.md as it was. A dataset card,
`acme-ai/chat-pairs`, has one commit.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from support.fake_hub import FakeHub, HubCommit

MODEL = "acme-ai/tiny-chat-7b"
MODEL_URL = f"https://huggingface.co/{MODEL}"
DATASET = "acme-ai/chat-pairs"
DATASET_URL = f"https://huggingface.co/datasets/{DATASET}"

FRONT_MATTER = """\
---
license: apache-2.0
language:
- en
pipeline_tag: text-generation
tags:
- chat
- llama
base_model: acme-ai/tiny-base-7b
---
"""
INTRO = (
    "Tiny Chat 7B is a 7-billion-parameter chat model fine-tuned from Tiny Base 7B "
    "on 1.2 million public instruction pairs."
)
LIMITS_BEFORE = "The model was trained on English data only and performs poorly on other languages."
LIMITS_AFTER = (
    "The model was trained mostly on English data; French and German work for short exchanges only."
)
EVALUATION = """\
## Evaluation

| Benchmark | Score |
|-----------|-------|
| MT-Bench  | 6.9   |
| MMLU      | 58.2  |
"""
FRONT_MATTER_ONLY = "pipeline_tag: text-generation"
"""Written in the card's front matter, nowhere in its body: metadata, not a quote."""


def card(*, limits: str = LIMITS_BEFORE, evaluation: bool = False) -> str:
    """The card's README.md: front matter, then the Markdown a reader sees."""
    body = f"""
# Tiny Chat 7B

{INTRO}

## Intended uses

The model is intended for research on dialogue systems and for building English chat
assistants. It is not intended for medical, legal or financial advice.

## Limitations

{limits}
It may produce factually incorrect statements and should not be relied on as a source
of facts.

## Training data

The instruction pairs were collected from permissively licensed public datasets and
deduplicated against the evaluation sets.
"""
    return FRONT_MATTER + body + (f"\n{EVALUATION}" if evaluation else "")


def at(day: str, hour: int = 12) -> dt.datetime:
    return dt.datetime.fromisoformat(day).replace(hour=hour, tzinfo=dt.UTC)


@dataclass(frozen=True)
class History:
    """The commits of the model card, oldest first, by what they did."""

    initial: HubCommit
    weights: HubCommit
    evaluation: HubCommit
    tokenizer: HubCommit
    config: HubCommit
    limitations: HubCommit

    @property
    def all(self) -> list[HubCommit]:
        return [
            self.initial,
            self.weights,
            self.evaluation,
            self.tokenizer,
            self.config,
            self.limitations,
        ]


def publish(hub: FakeHub) -> History:
    """Commit the model card's history (and the dataset card) to the hub."""
    before, evaluated = card(), card(evaluation=True)
    history = History(
        initial=hub.commit(MODEL, before, title="Initial model card", date=at("2024-01-10")),
        weights=hub.commit(MODEL, before, title="Upload model.safetensors", date=at("2024-02-01")),
        evaluation=hub.commit(
            MODEL, evaluated, title="Add evaluation results", date=at("2024-03-05")
        ),
        tokenizer=hub.commit(MODEL, evaluated, title="Upload tokenizer", date=at("2024-04-02")),
        config=hub.commit(MODEL, evaluated, title="Update config.json", date=at("2024-05-20")),
        limitations=hub.commit(
            MODEL,
            card(limits=LIMITS_AFTER, evaluation=True),
            title="Rewrite the Limitations section",
            author="maintainer-b",
            date=at("2024-06-01", hour=9),
        ),
    )
    hub.commit(
        DATASET,
        "---\nlicense: cc-by-4.0\ntask_categories:\n- text-generation\n---\n\n"
        "# Chat pairs\n\nTwelve thousand English instruction and answer pairs, written by "
        "volunteers and reviewed twice.\n",
        title="Initial dataset card",
        date=at("2024-01-05"),
        repo_type="dataset",
    )
    return history
