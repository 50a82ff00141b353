"""How well the offline engine reads real household talk: items, facts, and what it costs.

    .venv/bin/python bench/extraction_eval.py                # both splits
    .venv/bin/python bench/extraction_eval.py --split dev --verbose   # dev misses, for debugging

Replays every household of tests/data/households/ (README there: the dev split h1–h4 may be read
and tuned on, the test split h5–h7 is frozen and only scored here) conversation by conversation,
each member in time order, the names the engine found in a member's earlier conversations known
to it as they would be in the app. Scores per type with bench/scoring.py. ``--verbose`` lists
misses and false positives of the dev split only: the test split's are never printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")

import django  # noqa: E402

django.setup()

from bench.scoring import (  # noqa: E402
    HEADER,
    Count,
    main_text,
    match,
    words,
)
from talkingrock import embeddings, nlp  # noqa: E402
from talkingrock.language.names import Known  # noqa: E402
from talkingrock.language.offline.changes import Earlier, resolutions, supersessions  # noqa: E402
from talkingrock.language.offline.pipeline import extract  # noqa: E402
from talkingrock.language.offline.route import ActProfile, route  # noqa: E402

HOUSEHOLDS = ROOT / "tests" / "data" / "households"
ITEM_KINDS = ("people", "tasks", "decisions", "waiting_on", "questions_opened")


def households(split: str) -> list[Path]:
    return sorted(path for path in (HOUSEHOLDS / split).iterdir() if path.is_dir())


def conversations(household: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((household / "conversations").glob("*.json"))]


class Split:
    def __init__(self, name: str):
        self.name = name
        self.counts = {kind: Count() for kind in (*ITEM_KINDS, "facts")}
        self.strict = {kind: Count() for kind in (*ITEM_KINDS, "facts")}
        self.to_assistant = Count()  # gold: questions put to the assistant; matched: kept as items
        self.resolves = Count()
        self.supersedes = Count()
        # Of those, the ones ticked on the review (``Proposal.sure``): one click confirms them.
        self.supersedes_ticked = Count()
        # The same stage given the gold items of the earlier conversations instead of the
        # engine's: how well it reads a change, apart from how well it read the earlier ones.
        self.resolves_given_gold = Count()
        self.supersedes_given_gold = Count()
        self.routed = 0
        self.routed_right = 0
        self.seconds: list[float] = []
        self.seconds_20: list[float] = []
        self.conversations = 0
        self.misses: list[str] = []
        self.extra: list[str] = []

    def items_overall(self) -> Count:
        total = Count()
        for kind in ITEM_KINDS:
            total.plus(self.counts[kind])
        return total


OPEN = {"tasks": "task", "waiting_on": "waiting_on", "questions_opened": "question_opened"}


class Member:
    """What the engine knows of one member between conversations: the open items and current
    decisions and facts it found, each with the gold entry it matched (if any)."""

    def __init__(self, acts: list[dict]):
        self.acts = [ActProfile(n, act["title"], act["description"]) for n, act in enumerate(acts)]
        self.story = ActProfile(None, "Your Story", "Who you are, across everything you do.")
        self.known: dict[str, Known] = {}
        self.open: list[Earlier] = []
        self.current: list[Earlier] = []
        self.gold_of: dict[tuple, tuple[str, str]] = {}  # key → (conversation id, gold text)
        self.gold_open: list[Earlier] = []  # the gold items of the earlier conversations
        self.gold_current: list[Earlier] = []


def covers(text: str, gold: str) -> bool:
    """The earlier entry the engine found is the one the gold names: half its words or more."""
    wanted = words(gold)
    return bool(wanted) and len(words(text) & wanted) / len(wanted) >= 0.5


def score_changes(split: Split, case: dict, found, member: Member) -> None:
    gold = case["gold"]
    proposed = resolutions(found, member.open)
    right = 0
    wanted = list(gold.get("resolves", []))
    for proposal in proposed:
        conversation, text = member.gold_of.get(proposal.key, ("", ""))
        hit = next(
            (g for g in wanted if g["conversation"] == conversation and covers(text, g["item"])),
            None,
        )
        if hit is not None:
            wanted.remove(hit)
            right += 1
        elif split.name == "dev":
            split.extra.append(
                f"{case['id']} resolves: {proposal.why}: {text or '?'} ← {proposal.evidence}"
            )
    split.resolves.add(len(proposed), len(gold.get("resolves", [])), right)
    split.misses += [f"{case['id']} resolves: {g['conversation']} {g['item']}" for g in wanted]
    replaced = supersessions(found, member.current)
    right = 0
    wanted = list(gold.get("supersedes", []))
    for proposal in replaced:
        conversation, text = member.gold_of.get(proposal.key, ("", ""))
        key_text = next((e.text for e in member.current if e.key == proposal.key), "")
        hit = next(
            (
                g
                for g in wanted
                if g["conversation"] == conversation
                and (covers(key_text, g["old"]) or covers(text, g["old"]))
            ),
            None,
        )
        if hit is not None:
            wanted.remove(hit)
            right += 1
        else:
            ticked = " [ticked]" if proposal.sure else ""
            split.extra.append(
                f"{case['id']} supersedes{ticked}: {key_text} → {proposal.replacement}"
            )
        if proposal.sure:
            split.supersedes_ticked.add(1, 0, int(hit is not None))
    split.supersedes.add(len(replaced), len(gold.get("supersedes", [])), right)
    split.misses += [
        f"{case['id']} supersedes: {g['conversation']} {g['old']} → {g['new']}" for g in wanted
    ]
    closed = {p.key for p in proposed} | {p.key for p in replaced}
    member.open = [e for e in member.open if e.key not in closed]
    member.current = [e for e in member.current if e.key not in closed]


def score_changes_given_gold(split: Split, case: dict, found, member: Member) -> None:
    """Resolutions and supersessions proposed against the earlier conversations' gold items: a
    proposal is right when it names the gold entry the gold change names."""
    gold = case["gold"]
    for proposals, wanted, count, field in (
        (resolutions(found, member.gold_open), gold.get("resolves", []), split.resolves_given_gold, "item"),
        (supersessions(found, member.gold_current), gold.get("supersedes", []), split.supersedes_given_gold, "old"),
    ):  # fmt: skip
        wanted = list(wanted)
        right = 0
        for proposal in proposals:
            conversation, text = proposal.key
            hit = next(
                (g for g in wanted if g["conversation"] == conversation and covers(text, g[field])),
                None,
            )
            if hit is not None:
                wanted.remove(hit)
                right += 1
            elif split.name == "dev":
                split.extra.append(
                    f"{case['id']} given gold, {proposal.change}: {text} ← {proposal.evidence}"
                )
        count.add(
            len(proposals),
            len(gold.get(f"{'resolves' if field == 'item' else 'supersedes'}", [])),
            right,
        )
    closed = {p.key for p in resolutions(found, member.gold_open)}
    member.gold_open = [e for e in member.gold_open if e.key not in closed]


def remember_gold(case: dict, member: Member) -> None:
    gold = case["gold"]
    for kind, item_type in OPEN.items():
        for row in gold.get(kind, []):
            text = main_text(kind, row)
            member.gold_open.append(
                Earlier((case["id"], text), item_type, text, who=row.get("who", ""))
            )
    for row in gold.get("decisions", []):
        member.gold_current.append(
            Earlier((case["id"], row["what"]), "decision", row["what"], relation="choice")
        )
    # The gold's subjects and relations are the labeller's words, not the engine's: left out.
    for row in gold.get("facts", []):
        member.gold_current.append(Earlier((case["id"], row["text"]), "fact", row["text"]))


def score_route(split: Split, case: dict, found, member: Member) -> None:
    said = " ".join(unit.text for unit in found.reading.units if unit.label != "small_talk")
    people = {person.name for unit in found.reading.units for person in unit.people}
    chosen = route(said, people, member.acts, member.story)
    split.routed += 1
    split.routed_right += chosen.title == case["route"]
    if chosen.title != case["route"] and split.name == "dev":
        split.extra.append(
            f"{case['id']} route: {chosen.title} ({chosen.reason}), not {case['route']}"
        )
    # Once reviewed, the member keeps it where it belongs: its facts describe that act.
    target = next((a for a in member.acts if a.title == case["route"]), member.story)
    target.memories[:0] = [fact.text for fact in found.facts]
    target.people |= people


def remember(case: dict, found, member: Member, pairs: dict[str, list[tuple[int, int]]]) -> None:
    """What this conversation leaves open or current, for the next ones."""
    gold = case["gold"]
    for kind, item_type in OPEN.items():
        matched = dict(pairs.get(kind, []))
        for index, row in enumerate(found.items.get(kind, [])):
            key = (case["id"], kind, index)
            member.open.append(
                Earlier(key, item_type, main_text(kind, row), who=row.get("who", ""))
            )
            if index in matched:
                member.gold_of[key] = (case["id"], main_text(kind, gold[kind][matched[index]]))
    matched = dict(pairs.get("decisions", []))
    for index, row in enumerate(found.items.get("decisions", [])):
        key = (case["id"], "decisions", index)
        member.current.append(Earlier(key, "decision", row["what"], relation="choice"))
        if index in matched:
            member.gold_of[key] = (case["id"], gold["decisions"][matched[index]]["what"])
    matched = dict(pairs.get("facts", []))
    for index, fact in enumerate(found.facts):
        key = (case["id"], "facts", index)
        member.current.append(
            Earlier(key, "fact", fact.text, subject=fact.subject, relation=fact.relation)
        )
        if index in matched:
            member.gold_of[key] = (case["id"], gold["facts"][matched[index]]["text"])


def score(split: Split, case: dict, found) -> dict[str, list[tuple[int, int]]]:
    gold = case["gold"]
    all_pairs = {}
    predicted_rows = {**found.items, "facts": [{"text": fact.text} for fact in found.facts]}
    for kind, count in split.counts.items():
        rows = gold.get(kind, [])
        predicted = [main_text(kind, row) for row in predicted_rows.get(kind, [])]
        wanted = [main_text(kind, row) for row in rows]
        pairs = match(predicted, wanted)
        all_pairs[kind] = pairs
        count.add(len(predicted), len(wanted), len(pairs))
        split.strict[kind].add(
            len(predicted), len(wanted), len(match(predicted, wanted, strict=True))
        )
        hit_p, hit_g = {i for i, _ in pairs}, {j for _, j in pairs}
        split.misses += [
            f"{case['id']} {kind}: {w}" for j, w in enumerate(wanted) if j not in hit_g
        ]
        split.extra += [
            f"{case['id']} {kind}: {p}" for i, p in enumerate(predicted) if i not in hit_p
        ]
    asked = gold.get("questions_to_assistant", [])
    held = [row["question"] for row in found.items.get("questions_opened", [])]
    split.to_assistant.add(len(held), len(asked), len(match(held, asked)))
    return all_pairs


def run(split_name: str) -> Split:
    split = Split(split_name)
    for household in households(split_name):
        info = json.loads((household / "household.json").read_text())
        names = {m["username"]: m["name"] for m in info["members"]}
        members = {
            username: Member([a for a in info["acts"] if a["member"] == username])
            for username in names
        }
        for case in conversations(household):
            member = names[case["member"]]
            transcript = [tuple(turn) for turn in case["transcript"]]
            started = time.perf_counter()
            found = extract(
                transcript,
                today=datetime.fromisoformat(case["started_at"]).date(),
                member=member,
                household=[member, *[n for n in names.values() if n != member]],
                known=list(members[case["member"]].known.values()),
            )
            elapsed = time.perf_counter() - started
            split.seconds.append(elapsed)
            if len(transcript) >= 20:
                split.seconds_20.append(elapsed)
            split.conversations += 1
            member_state = members[case["member"]]
            for person in found.reading.gazetteer.people:
                member_state.known.setdefault(person.name, person)
            pairs = score(split, case, found)
            score_changes(split, case, found, member_state)
            score_changes_given_gold(split, case, found, member_state)
            score_route(split, case, found, member_state)
            remember(case, found, member_state, pairs)
            remember_gold(case, member_state)
    return split


def report(split: Split) -> str:
    lines = [f"### {split.name} split: {split.conversations} conversations", "", HEADER]
    for kind in ITEM_KINDS:
        lines.append(split.counts[kind].row(kind))
    lines.append(split.items_overall().row("**items overall**"))
    lines.append(split.counts["facts"].row("facts"))
    strict_items = Count()
    for kind in ITEM_KINDS:
        strict_items.plus(split.strict[kind])
    asked = split.to_assistant
    lines += [
        "",
        f"resolutions proposed: {split.resolves.predicted}, right {split.resolves.matched} of "
        f"{split.resolves.gold} in the gold (precision {split.resolves.precision:.2f}, recall "
        f"{split.resolves.recall:.2f})",
        f"routing: {split.routed_right} of {split.routed} conversations to the right act",
        f"supersessions proposed: {split.supersedes.predicted}, right {split.supersedes.matched} "
        f"of {split.supersedes.gold} (precision {split.supersedes.precision:.2f}, recall "
        f"{split.supersedes.recall:.2f}); ticked on the review {split.supersedes_ticked.predicted}, "
        f"right {split.supersedes_ticked.matched}",
        f"given the gold items of the earlier conversations: resolutions right "
        f"{split.resolves_given_gold.matched} of {split.resolves_given_gold.gold} (precision "
        f"{split.resolves_given_gold.precision:.2f}), supersessions right "
        f"{split.supersedes_given_gold.matched} of {split.supersedes_given_gold.gold} (precision "
        f"{split.supersedes_given_gold.precision:.2f})",
        "",
        f"the strict rule (half the words of the longer): items P {strict_items.precision:.2f} "
        f"R {strict_items.recall:.2f} F1 {strict_items.f1:.2f}; facts F1 "
        f"{split.strict['facts'].f1:.2f}",
        "",
        f"questions put to the assistant kept as open items: {asked.matched} of {asked.gold}",
        f"offline cost per conversation: p50 {statistics.median(split.seconds) * 1000:.0f} ms, "
        f"p95 {_p95(split.seconds) * 1000:.0f} ms; 20+ messages: p50 "
        f"{statistics.median(split.seconds_20) * 1000:.0f} ms, p95 "
        f"{_p95(split.seconds_20) * 1000:.0f} ms ({len(split.seconds_20)} conversations)",
    ]
    return "\n".join(lines)


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both")
    parser.add_argument("--verbose", action="store_true", help="dev misses and false positives")
    args = parser.parse_args()
    print(f"$ {' '.join(sys.argv)}  ({datetime.now():%Y-%m-%d %H:%M})\n")
    started = time.perf_counter()
    nlp.pipeline()
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    embeddings.embed(["warm up"])
    print(
        f"spaCy pipeline loaded in {loaded:.2f} s, the embedding model in "
        f"{time.perf_counter() - started:.2f} s (both once per process; load average "
        f"{os.getloadavg()[0]:.2f})\n"
    )
    for name in ("dev", "test") if args.split == "both" else (args.split,):
        split = run(name)
        print(report(split) + "\n")
        if args.verbose and name == "dev":
            print("missed:\n" + "\n".join(f"  {line}" for line in split.misses))
            print("false positives:\n" + "\n".join(f"  {line}" for line in split.extra))


if __name__ == "__main__":
    main()
