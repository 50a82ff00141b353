"""Offline answers to the household questions (issues 13 and 22): accuracy, the current value
first, and abstention where nothing answers.

    .venv/bin/python bench/answers.py [--split dev|test|both] [--verbose] [--via messages|import]
                                      [--order as-lived|all-first] [--households h1,h9]

Each household of tests/data/households/ is lived through the app as bench/household_recall.py
does (its transcripts, closed, compressed offline, the review confirmed as it comes: what is
ticked by default is accepted, nothing else), and every question of questions.json is put to the
chat's offline answer (``conversations.answers``) by the member who asks it, at the date it is
asked, from what ``recall()`` finds for them. A question is asked once the conversations had
before it are lived, and before any had after it (``--order as-lived``, from the ninth round
on): a household cannot be told what it has not yet said. Rounds one to eight asked every
question after every conversation (``--order all-first``), so an answer could draw on what was
said weeks after the question.

**Grading**, fixed before any tuning of issue 22 (and before issue 13's, with two changes then,
both about how a right answer may be written: numbers written as words count as numbers, because
"two till four" states 2 to 4; and the year a question is asked in may go unsaid, as in "On 3
Feb"). Issue 22 moved its words and stems into bench/scoring.py, so that changing the engine's
own words cannot move the yardstick, and added the current-first rule:

- a **decline** question (nothing answers it) is right when the reply says there is no memory
  of it;
- any other question is right when the reply answers (does not decline) and holds the gold
  answer's key: its head (the words before the first " (", " — ", ":", ";" or ", because") gives
  the numbers it names (every one must appear among the reply's numbers) and its proper nouns
  (every one must appear); a head with neither needs at least half of its content words (by
  stem), or of the whole gold answer's when the head has none ("No");
- **current first**, for a knowledge-update question that names the value it replaced
  (``before``): the reply is right and holds the answer's key before (in reading order) it holds
  the replaced value's, if it holds that at all.

The key does not check that a day is the right one ("Friday 19 September 2025" holds the 19
and September of "Saturday 19 September 2026"), so each split also prints, of the answers
graded right whose gold answer and whose reply's lead both give a full date, how many lead with
another day than the gold's: a second, stricter look, not part of the grade. Likewise, of the
right answers to a question that names the value replaced, how many also say that value (the
current one first, "with what it replaced").

Per split it prints accuracy by kind, current first, abstention (declines declined, and
answerable questions wrongly declined), where the answers missed were (held by one of the
memories and messages recall found, only by several of them together, or by none: what the
answer stage could have given against what recall never surfaced; by the same key as the
grading; of those no hit held, whether one text holds it further down recall's top 60, in a text
recall did not reach, or in no one text at all) and the offline answer's time per question.
``--verbose`` prints every dev question with the reply; the test split's replies are never
printed.
"""

from __future__ import annotations

import argparse
import calendar
import re
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from household_recall import HOUSEHOLDS, asked_at, lived, setup
from scoring import words as content_words

_NUMBER = re.compile(r"\d+(?:[:.]\d+)?")
_PROPER = re.compile(r"(?<=[\w,;] )[A-Z][\w'’-]+")
_HEAD_END = re.compile(r" \(| — |: |; |, because")


_SPELLED = dict(
    zip(
        "one two three four five six seven eight nine ten eleven twelve".split(),
        range(1, 13),
        strict=True,
    )
)


def _spelled(text: str) -> str:
    return re.sub(
        r"\b(" + "|".join(_SPELLED) + r")\b",
        lambda m: str(_SPELLED[m.group(1).lower()]),
        text,
        flags=re.I,
    )


def numbers(text: str) -> set[str]:
    """The numbers a text names, written in digits or as words ("two till four")."""
    return {n.rstrip(".") for n in _NUMBER.findall(_spelled(text).replace(",", ""))}


def key_of(answer: str) -> tuple[set[str], set[str], set[str]]:
    """(numbers, proper nouns, content stems) the reply must hold."""
    head = _HEAD_END.split(answer, maxsplit=1)[0]
    proper = set().union(*(content_words(w) for w in _PROPER.findall(head)))
    return numbers(head), proper, content_words(head) or content_words(answer)


def holds(key: tuple[set[str], set[str], set[str]], said: str, asked_year: str) -> bool:
    wanted_numbers, proper, stems = key
    wanted_numbers = wanted_numbers - {asked_year}  # "On 3 Feb": this year goes unsaid
    if wanted_numbers or proper:
        return wanted_numbers <= numbers(said) and proper <= content_words(said)
    return len(stems & content_words(said)) >= max(1, len(stems) / 2)


def held_at(key, said: str, asked_year: str) -> int | None:
    """How far into ``said`` one must read before it holds ``key`` (None: it never does)."""
    if not holds(key, said, asked_year):
        return None
    low, high = 1, len(said)
    while low < high:  # the shortest prefix that holds it
        middle = (low + high) // 2
        if holds(key, said[:middle], asked_year):
            high = middle
        else:
            low = middle + 1
    return low


_FULL_DATE = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)? ({'|'.join(calendar.month_name[1:])}) (\d{{4}})\b"
)


def other_day(question: dict, reply) -> bool | None:
    """For a reply graded right: whether its lead (before its first " — ") gives a full date
    other than the one the gold answer's head gives; None when either gives none."""
    gold = _FULL_DATE.search(_HEAD_END.split(question["answer"], maxsplit=1)[0])
    lead = _FULL_DATE.search(reply.text.split(" — ", 1)[0].split("\n", 1)[0])
    if gold is None or lead is None:
        return None
    return gold.groups() != lead.groups()


def grade(question: dict, reply) -> bool:
    if question["kind"] == "decline":
        return reply.kind == "no_memory"
    if reply.kind != "answer":
        return False
    return holds(key_of(question["answer"]), reply.text, question["asked_on"][:4])


def current_first(question: dict, reply) -> bool | None:
    """None for a question that names no replaced value; else whether the current one comes
    first."""
    if question["kind"] != "knowledge-update" or not question.get("before"):
        return None
    if not grade(question, reply):
        return False
    year = question["asked_on"][:4]
    now = held_at(key_of(question["answer"]), reply.text, year)
    before = held_at(key_of(question["before"]), reply.text, year)
    return before is None or now <= before


def says_replaced(question: dict, reply) -> bool | None:
    """For a right answer to a question that names the value it replaced (``before``): whether
    the reply also says that value ("… before: 3pm"); None for any other question. A second
    look, not part of the grade."""
    if question["kind"] != "knowledge-update" or not question.get("before"):
        return None
    if not grade(question, reply):
        return None
    return holds(key_of(question["before"]), reply.text, question["asked_on"][:4])


# How far down recall's list a missed answer is looked for, when the hits the answer read hold
# none of it.
WIDE_K = 60


def _where_it_was(question: dict, found) -> str:
    """For an answer missed: whether what recall found held it, in one memory or message
    ("one"), only in several together ("several"), or not at all ("none")."""
    key, year = key_of(question["answer"]), question["asked_on"][:4]
    texts = [hit.memory.content for hit in found.strong]
    if any(holds(key, text, year) for text in texts):
        return "one"
    return "several" if holds(key, " ".join(texts), year) else "none"


def _beyond_the_hits(question: dict, owner, at) -> str:
    """For an answer no hit held: whether one text holds it further down recall's list (its top
    ``WIDE_K``), in a text recall did not reach, or in no one text the member said or kept
    before the question (a sum, or words only several texts give together)."""
    from conversations.questions import recalled_for
    from memories.models import Memory
    from memories.recall import recall

    key, year = key_of(question["answer"]), question["asked_on"][:4]
    wide = recall(owner, recalled_for(question["question"]), k=WIDE_K, at=at)
    if any(holds(key, hit.memory.content, year) for hit in wide.hits):
        return "further"
    said = Memory.everything.filter(owner=owner, created_at__lte=at).values_list(
        "content", flat=True
    )
    return "unreached" if any(holds(key, text, year) for text in said) else "in no one text"


def ask(household: Path, split: dict, verbose: bool, via: str, order: str) -> None:
    from conversations.answers import answer_question, hits_to_recall
    from conversations.questions import recalled_for
    from memories.recall import recall

    for users, question in lived(household, via, order):
        owner = users[question["member"]]
        at = asked_at(question)
        started = time.perf_counter()
        k = hits_to_recall()  # as the chat asks
        found = recall(owner, recalled_for(question["question"]), k=k, at=at)
        reply = answer_question(owner, question["question"], found, now=at)
        split["ms"].append(1000 * (time.perf_counter() - started))
        right = grade(question, reply)
        first = current_first(question, reply)
        if first is not None:
            split["current_first"][0] += first
            split["current_first"][1] += 1
        replaced = says_replaced(question, reply)
        if replaced is not None:
            split["says_replaced"][0] += replaced
            split["says_replaced"][1] += 1
        wrong_day = other_day(question, reply) if right else None
        if wrong_day is not None:
            split["other_day"][0] += wrong_day
            split["other_day"][1] += 1
        kind = question["kind"]
        split["by_kind"].setdefault(kind, [0, 0])
        split["by_kind"][kind][0] += right
        split["by_kind"][kind][1] += 1
        if kind != "decline" and reply.kind == "no_memory":
            split["wrongly_declined"] += 1
        where = _where_it_was(question, found) if kind != "decline" and not right else ""
        if where:
            split["missed"][where] += 1
        if where == "none":
            split["beyond"][_beyond_the_hits(question, owner, at)] += 1
        if verbose:
            mark = "ok " if right else "NO "
            held = f" (recall held it: {where})" if where else ""
            print(f"{mark}[{household.name} {kind}] {question['question']}{held}")
            print(f"      gold: {question['answer'][:110]}")
            print(f"      said: {reply.text[:300]}".replace("\n", "\n            "))
            print(f"      why:  {reply.reason}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both")
    parser.add_argument("--verbose", action="store_true", help="every dev question and reply")
    parser.add_argument(
        "--via",
        choices=("messages", "import"),
        default="messages",
        help="typed message by message (send_message's path), or imported with their dates",
    )
    parser.add_argument(
        "--order",
        choices=("as-lived", "all-first"),
        default="as-lived",
        help="each question asked once what was said before it is had, and nothing after it "
        "(as a household lives); or every question after every conversation (rounds one to "
        "eight)",
    )
    parser.add_argument(
        "--households",
        default="",
        help="only these households, comma-separated (h1,h9); the split's figures are theirs",
    )
    args = parser.parse_args(argv)
    only = {name for name in args.households.split(",") if name}
    print(f"$ {' '.join(sys.argv)}  ({datetime.now():%Y-%m-%d %H:%M})\n")
    with tempfile.TemporaryDirectory(prefix="talkingrock-answers-") as data_dir:
        setup(data_dir)
        for name in ("dev", "test") if args.split == "both" else (args.split,):
            split = {
                "by_kind": {},
                "wrongly_declined": 0,
                "ms": [],
                "current_first": [0, 0],
                "missed": {"one": 0, "several": 0, "none": 0},
                "beyond": {"further": 0, "unreached": 0, "in no one text": 0},
                "other_day": [0, 0],
                "says_replaced": [0, 0],
            }
            for household in sorted(p for p in (HOUSEHOLDS / name).iterdir() if p.is_dir()):
                if only and household.name not in only:
                    continue
                verbose = args.verbose and name == "dev"
                ask(household, split, verbose, args.via, args.order)
            right = sum(a for a, _ in split["by_kind"].values())
            total = sum(b for _, b in split["by_kind"].values())
            declines = split["by_kind"].get("decline", [0, 0])
            answerable = total - declines[1]
            print(f"### {name} split: {right} of {total} right ({right / max(total, 1):.0%})")
            print(
                "  by kind: "
                + ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(split["by_kind"].items()))
            )
            first = split["current_first"]
            print(f"  current value first: {first[0]} of {first[1]}")
            replaced = split["says_replaced"]
            print(
                f"  right answers to a changed value that also say what it replaced: "
                f"{replaced[0]} of {replaced[1]}"
            )
            print(
                f"  declined when nothing answers: {declines[0]} of {declines[1]}; "
                f"declined although a memory answers: {split['wrongly_declined']} of {answerable}"
            )
            dated = split["other_day"]
            print(
                f"  right answers leading with another day than the gold's: {dated[0]} of the "
                f"{dated[1]} whose gold and lead both give a full date"
            )
            missed = split["missed"]
            print(
                f"  answers missed, where recall's memories held them: in one {missed['one']}, "
                f"only in several together {missed['several']}, in none {missed['none']}"
            )
            beyond = split["beyond"]
            print(
                f"    of those in none: in one text further down the top {WIDE_K} "
                f"{beyond['further']}, in one text recall did not reach {beyond['unreached']}, "
                f"in no one text (a sum, or several texts together) {beyond['in no one text']}"
            )
            ms = sorted(split["ms"])
            print(
                f"  recall + answer per question: p50 {statistics.median(ms):.0f} ms, "
                f"max {ms[-1]:.0f} ms\n"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
