"""Would a learned picker choose the answering sentence better than the hand-set score?

    .venv/bin/python bench/answer_picker.py [--households h1,h9] [--dump /tmp/picks.json]
    .venv/bin/python bench/answer_picker.py --from /tmp/picks.json

An experiment on the **development households only** (the test split is never read). Each dev
household is lived as bench/answers.py lives it; for every question that something answers, the
sentences the offline answer weighs (``conversations.answers``: recall's hits cut into
sentences, with what was said next and the corrections) are taken with the signals the hand-set
score (``answers._score``) combines: how much of the question each covers, with and without the
words around it, whether it gives the kind of value asked for, recall's rank, where it comes
from, whether a later one replaced it, its similarity in meaning, how recent it is among them.
A sentence is labelled right when it holds the gold answer's key by the grade of
bench/answers.py.

Of the questions where some sentence is right, it prints how often the hand score puts a right
one first, and how often a logistic regression and a gradient-boosted model over the same signals
do, each trained with households held out (five folds grouped by household, fixed seed): the
figure that says whether learning the weights would carry to households it never saw. It also prints
how many of those questions the whole answer stage gets right (the first sentence is only where
it starts: the current value, the value asked for and the sums come after). It changes nothing
in the engine.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from answers import grade, holds, key_of
from household_recall import HOUSEHOLDS, asked_at, lived, setup

SEED = 7
KINDS = ("fact", "memory", "said", "reply", "narrative")


def features(candidate, asked, count: int, today, newest, oldest) -> list[float]:
    """The signals the hand score weighs, for one sentence, as numbers."""
    from conversations import answers as engine
    from conversations.candidates import coverage_of, is_narrative, time_only, told_only, value_of
    from conversations.choices import picked
    from conversations.kinds_asked import KINDS as WANTED

    memory = candidate.hit.memory
    kind = "narrative" if is_narrative(memory) else str(memory.kind).lower()
    has_value = bool(asked.wanted) and bool(value_of(candidate, asked))
    span = max((newest - oldest).total_seconds(), 1.0)
    row = [
        coverage_of(candidate, asked),
        asked.coverage(candidate.terms),
        float(not candidate.terms - asked.weights.keys()),
        float(has_value),
        float(has_value and told_only(candidate, asked)),
        float(has_value and time_only(candidate, asked)),
        float(bool(asked.options) and bool(picked(asked.options, candidate.sentence))),
        1 - candidate.rank / max(count, 1),
        float(memory.valid_to is not None),
        float(asked.at_another_place(candidate.sentence, candidate.terms)),
        float(engine._yet_to_come(candidate, asked, today)),
        candidate.hit.components.get("meaning", {}).get("similarity", 0.0),
        (candidate.said_on - oldest).total_seconds() / span,
        engine._score(candidate, asked, count),
    ]
    row += [float(kind == k) for k in KINDS]
    row += [float(asked.wanted == w) for w in WANTED] + [float(asked.wanted is None)]
    return row


def collect(only: set[str]) -> list[dict]:
    """For each dev question something answers: its sentences' signals and labels."""
    from django.conf import settings
    from django.utils import timezone

    from conversations.answers import answer_question, hits_to_recall
    from conversations.candidates import candidates_of
    from conversations.questions import read_question, recalled_for
    from conversations.said_next import continued, corrected, without_corrected
    from memories.recall import recall

    config = settings.TALKINGROCK_CONVERSATIONS
    rows = []
    for household in sorted(p for p in (HOUSEHOLDS / "dev").iterdir() if p.is_dir()):
        if only and household.name not in only:
            continue
        for users, question in lived(household, "messages", "as-lived"):
            if question["kind"] == "decline":
                continue
            owner = users[question["member"]]
            at = asked_at(question)
            found = recall(owner, recalled_for(question["question"]), k=hits_to_recall(), at=at)
            asked = read_question(owner, question["question"])
            if asked.unknown_names or not asked.weights:
                continue
            read = found.strong[: config["answer_memories"]]
            candidates = candidates_of(read)
            candidates += continued(candidates, asked)
            if corrections := corrected(candidates, asked):
                candidates = without_corrected(candidates, corrections)
                candidates += [c for _, c in corrections]
            if not candidates:
                continue
            today = timezone.localtime(at).date()
            said = [c.said_on for c in candidates]
            key, year = key_of(question["answer"]), question["asked_on"][:4]
            reply = answer_question(owner, question["question"], found, now=at)
            rows.append(
                {
                    "household": household.name,
                    "kind": question["kind"],
                    "question": question["question"],
                    "x": [
                        features(c, asked, len(read), today, max(said), min(said))
                        for c in candidates
                    ],
                    "y": [int(holds(key, c.sentence, year)) for c in candidates],
                    "answered": grade(question, reply),  # by the whole answer stage
                }
            )
        print(f"{household.name}: {len(rows)} questions so far", flush=True)
    return rows


def compare(rows: list[dict]) -> None:
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    pickable = [r for r in rows if any(r["y"])]
    print(
        f"\n{len(rows)} dev questions with sentences to weigh; in {len(pickable)} some sentence "
        f"holds the answer ({len({r['household'] for r in pickable})} households)"
    )
    hand = sum(r["y"][int(np.argmax([x[13] for x in r["x"]]))] for r in pickable)
    groups = np.array([r["household"] for r in pickable])
    models = {
        "logistic regression": lambda: make_pipeline(
            StandardScaler(), LogisticRegression(C=1.0, max_iter=2000, random_state=SEED)
        ),
        "gradient boosting": lambda: HistGradientBoostingClassifier(
            max_depth=3, learning_rate=0.05, max_iter=200, random_state=SEED
        ),
    }
    print(f"  hand-set score: a right sentence first in {hand} of {len(pickable)}")
    whole = sum(r["answered"] for r in pickable)
    print(
        f"  the whole answer stage (the hand-set score's first, then the current value, the value "
        f"asked for, sums): right in {whole} of {len(pickable)}; in "
        f"{sum(r['answered'] for r in rows if not any(r['y']))} of the "
        f"{sum(not any(r['y']) for r in rows)} where no one sentence holds the answer"
    )
    for name, make in models.items():
        right = 0
        by_kind: dict[str, list[int]] = {}
        for train, held in GroupKFold(n_splits=5).split(pickable, groups=groups):
            x = np.array([f for i in train for f in pickable[i]["x"]])
            y = np.array([v for i in train for v in pickable[i]["y"]])
            model = make().fit(x, y)
            for i in held:
                row = pickable[i]
                scores = model.predict_proba(np.array(row["x"]))[:, 1]
                won = row["y"][int(np.argmax(scores))]
                right += won
                by_kind.setdefault(row["kind"], [0, 0])
                by_kind[row["kind"]][0] += won
                by_kind[row["kind"]][1] += 1
        kinds = ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(by_kind.items()))
        print(f"  {name}, households held out: {right} of {len(pickable)} ({kinds})")
    hand_kind: dict[str, list[int]] = {}
    for r in pickable:
        won = r["y"][int(np.argmax([x[13] for x in r["x"]]))]
        hand_kind.setdefault(r["kind"], [0, 0])
        hand_kind[r["kind"]][0] += won
        hand_kind[r["kind"]][1] += 1
    print(
        "  hand-set score by kind: "
        + ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(hand_kind.items()))
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--households", default="", help="only these dev households (h1,h9)")
    parser.add_argument("--dump", default="", help="write the signals and labels here")
    parser.add_argument("--from", dest="source", default="", help="read them from here instead")
    args = parser.parse_args(argv)
    if args.source:
        rows = json.loads(Path(args.source).read_text())
    else:
        import tempfile

        only = {name for name in args.households.split(",") if name}
        with tempfile.TemporaryDirectory(prefix="talkingrock-picker-") as data_dir:
            setup(data_dir)
            rows = collect(only)
        if args.dump:
            Path(args.dump).write_text(json.dumps(rows))
    compare(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
