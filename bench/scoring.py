"""The yardstick of bench/extraction_eval.py: when a predicted item or fact counts as the gold
one. Kept apart from the engine on purpose: changing the engine's words must not move it.

An item's *main text* is its ``name`` (people), ``description`` (tasks), ``what`` (decisions),
``who`` + " " + ``what`` (waiting on), ``question`` (questions), a fact's its sentence. Its
*content words* are the lower-cased words (contractions whole: "I'll" is one word, a stopword;
a currency sign is not part of its amount) without stopwords, titles and one-letter words, each
cut to a crude stem ("tiles"/"tile", "booked"/"book").

A prediction matches a gold entry of the same type when their content words overlap with a Dice
coefficient of at least 0.5 (2 × shared / (predicted + gold)): the household gold is written in
full ("clear the cupboard under the stairs, where the fuse box is, before Sian's visit on 3
March 2026") where people say less ("clear the cupboard under the stairs"), so a prediction that
says the gist and nothing else matches, a one-word one does not, and neither does a sentence
that merely contains the words. ``strict`` is the older rule, at least half of the words of the
longer of the two; the report prints it too. Each gold entry is matched at most once, best
pairs first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

THRESHOLD = 0.5
MAIN_TEXT = {
    "people": ("name",),
    "tasks": ("description",),
    "decisions": ("what",),
    "waiting_on": ("who", "what"),
    "questions_opened": ("question",),
    "facts": ("text",),
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
    for word in re.findall(r"[a-z0-9£$€']+", (text or "").casefold().replace("’", "'")):
        word = word.strip("'").lstrip("£$€")  # "£400" and "400" are one amount
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


def share(predicted: str, gold: str, *, strict: bool = False) -> float:
    left, right = words(predicted), words(gold)
    if not left or not right:
        return 0.0
    shared = len(left & right)
    if strict:
        return shared / max(len(left), len(right))
    return 2 * shared / (len(left) + len(right))


def match(predicted: list[str], gold: list[str], *, strict: bool = False) -> list[tuple[int, int]]:
    """Greedy one-to-one pairs (predicted index, gold index) sharing at least THRESHOLD."""
    scores = {
        (i, j): share(p, g, strict=strict)
        for i, p in enumerate(predicted)
        for j, g in enumerate(gold)
    }
    pairs = sorted((-score, i, j) for (i, j), score in scores.items() if score >= THRESHOLD)
    used_p, used_g, kept = set(), set(), []
    for _, i, j in pairs:
        if i not in used_p and j not in used_g:
            used_p.add(i)
            used_g.add(j)
            kept.append((i, j))
    return kept


@dataclass
class Count:
    predicted: int = 0
    gold: int = 0
    matched: int = 0

    def add(self, predicted: int, gold: int, matched: int) -> None:
        self.predicted += predicted
        self.gold += gold
        self.matched += matched

    def plus(self, other: Count) -> None:
        self.add(other.predicted, other.gold, other.matched)

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

    def row(self, name: str) -> str:
        return (
            f"| {name} | {self.gold} | {self.predicted} | {self.matched} | "
            f"{self.precision:.2f} | {self.recall:.2f} | {self.f1:.2f} |"
        )


HEADER = (
    "| type | gold | predicted | matched | precision | recall | F1 |\n|---|---|---|---|---|---|---|"
)
