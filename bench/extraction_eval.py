"""Precision and recall of the offline entity rules on hand-written household transcripts.

    .venv/bin/python bench/extraction_eval.py            # the table (Markdown)
    .venv/bin/python bench/extraction_eval.py --verbose  # and every miss and false positive

Reads ``tests/data/transcripts/*.json`` (``{"title", "today", "transcript": [[role, content],
…], "gold": {<the keys of extract>}}``), runs ``conversations.offline.extract`` on each and
compares its items with the gold items of the same type.

Matching rule. An item's *main text* is its ``name`` (people), ``description`` (tasks),
``what`` (decisions, blockers cleared), ``who`` + " " + ``what`` (waiting on), ``question``
(questions resolved and opened) or ``insight`` (insights). Its *content words* are the
lower-cased words of the main text without stopwords, titles (Dr, Mrs…) and one-letter words,
each cut to a crude stem ("ies" → "y"; a trailing "s", "es", "ed" or "ing", then "e", removed,
so "tiles" and "tile" agree). A predicted item matches a gold item of the same type when they share at least
50 % of the content words of the *longer* of the two (shared / max(|predicted|, |gold|) ≥ 0.5),
so neither a one-word prediction nor a sentence-long one matches by accident. Each gold item is
matched at most once: pairs are taken greedily, best share first, ties in file order. Status,
priority, relation, why, since and answers are not scored. This module keeps its own word rules
on purpose: changing the engine's stemmer must not move the yardstick.

Precision = matched / predicted, recall = matched / gold, F1 their harmonic mean; "overall"
pools the items of every type (micro average). Standard library only, no Django, no database.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conversations.offline import KINDS, extract  # noqa: E402

TRANSCRIPTS = ROOT / "tests" / "data" / "transcripts"
THRESHOLD = 0.5

MAIN_TEXT = {
    "people": ("name",),
    "tasks": ("description",),
    "decisions": ("what",),
    "waiting_on": ("who", "what"),
    "questions_resolved": ("question",),
    "questions_opened": ("question",),
    "blockers_cleared": ("what",),
    "insights": ("insight",),
}
STOPWORDS = frozenset(
    """a an the and or but if of to in on at for with about from by as is are was were be been
    it its it's this that these those i i'm i've i'll i'd me my we we're we'll our you your he
    she they them his her their do does did don't have has had will would shall should can
    could may might must not no so just really very also too then than there here what which
    who whom when where why how all any some more most into up out only own such get got go
    going gonna let us one dr mr mrs ms mx prof""".split()
)


def words(text: str) -> set[str]:
    found = set()
    for word in re.findall(r"[a-z0-9£]+", (text or "").casefold().replace("’", "'")):
        if word in STOPWORDS or len(word) < 2:
            continue
        if len(word) > 4 and word.endswith("ies"):
            word = word[:-3] + "y"
        for suffix in ("ing", "ed", "es", "s"):
            if len(word) > len(suffix) + 2 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
        if len(word) > 3 and word.endswith("e"):
            word = word[:-1]
        found.add(word)
    return found


def main_text(kind: str, item: dict) -> str:
    return " ".join(str(item.get(key, "")) for key in MAIN_TEXT[kind])


def share(predicted: str, gold: str) -> float:
    left, right = words(predicted), words(gold)
    if not left or not right:
        return 0.0
    return len(left & right) / max(len(left), len(right))


@dataclass
class Count:
    predicted: int = 0
    gold: int = 0
    matched: int = 0

    def add(self, other: Count) -> None:
        self.predicted += other.predicted
        self.gold += other.gold
        self.matched += other.matched

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class Result:
    by_kind: dict[str, Count] = field(default_factory=lambda: {kind: Count() for kind in KINDS})
    by_transcript: dict[str, Count] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)

    @property
    def overall(self) -> Count:
        total = Count()
        for count in self.by_kind.values():
            total.add(count)
        return total


def match(predicted: list[str], gold: list[str]) -> list[tuple[int, int]]:
    """Greedy one-to-one pairs (predicted index, gold index) with a share of at least 0.5."""
    pairs = sorted(
        (
            (-share(p, g), i, j)
            for i, p in enumerate(predicted)
            for j, g in enumerate(gold)
            if share(p, g) >= THRESHOLD
        )
    )
    used_p, used_g, kept = set(), set(), []
    for _, i, j in pairs:
        if i not in used_p and j not in used_g:
            used_p.add(i)
            used_g.add(j)
            kept.append((i, j))
    return kept


def evaluate(folder: Path = TRANSCRIPTS) -> Result:
    result = Result()
    for path in sorted(folder.glob("*.json")):
        case = json.loads(path.read_text())
        entities = extract(
            [tuple(turn) for turn in case["transcript"]], today=date.fromisoformat(case["today"])
        )
        per_transcript = Count()
        for kind in KINDS:
            predicted = [main_text(kind, item) for item in entities[kind]]
            gold = [main_text(kind, item) for item in case["gold"].get(kind, [])]
            pairs = match(predicted, gold)
            count = Count(len(predicted), len(gold), len(pairs))
            result.by_kind[kind].add(count)
            per_transcript.add(count)
            hit_p, hit_g = {i for i, _ in pairs}, {j for _, j in pairs}
            result.misses += [
                f"{path.stem} {kind}: {g}" for j, g in enumerate(gold) if j not in hit_g
            ]
            result.false_positives += [
                f"{path.stem} {kind}: {p}" for i, p in enumerate(predicted) if i not in hit_p
            ]
        result.by_transcript[path.stem] = per_transcript
    return result


def table(result: Result) -> str:
    lines = [
        "| type | gold | predicted | matched | precision | recall | F1 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, count in [*result.by_kind.items(), ("**overall**", result.overall)]:
        lines.append(
            f"| {name} | {count.gold} | {count.predicted} | {count.matched} | "
            f"{count.precision:.2f} | {count.recall:.2f} | {count.f1:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list misses and false positives")
    args = parser.parse_args()
    result = evaluate()
    print(f"{len(result.by_transcript)} transcripts in {TRANSCRIPTS.relative_to(ROOT)}\n")
    print(table(result))
    print(
        "\nrecall per transcript: "
        + ", ".join(f"{name} {count.recall:.2f}" for name, count in result.by_transcript.items())
    )
    if args.verbose:
        print("\nmissed (gold, not found):")
        print("\n".join(f"  {line}" for line in result.misses))
        print("\nfalse positives (found, not in gold):")
        print("\n".join(f"  {line}" for line in result.false_positives))


if __name__ == "__main__":
    main()
