"""Train the learned ranker (memories/recall/ranker.py) and write memories/recall/ranker.json.

Usage (from the project root)::

    .venv/bin/python bench/train_ranker.py                  # build, train, report, write
    .venv/bin/python bench/train_ranker.py --check          # retrain; compare with the shipped
    .venv/bin/python bench/train_ranker.py --keep DIR       # keep the database it builds
    .venv/bin/python bench/train_ranker.py --reuse DIR      # train on a kept database

Trained only on development material, never on what the ranker is judged by:

- LoCoMo conversations 0-4 (``../shared/data/locomo/locomo10.json``, read where it lies; 5-9 is
  the held-out half);
- the realchat dev split (``tests/data/realchat/dev``; ``tests/data/realchat/test`` is frozen).

Each conversation is stored through the app's conversation path (bench/locomo.py's ``ingest``,
the real embedding model and entity rules), every question with evidence is asked, and every
candidate recall gathers for it (``memories.recall.candidates``, with the ranker's features) is
a training row, labelled 1 when it is one of the question's evidence turns. The features are
standardised, then a logistic regression (scikit-learn, lbfgs, no randomness) is fitted; its
regularisation C is chosen by 5-fold cross-validation grouped by conversation, on Recall@10 of
the evidence (a question's evidence missing from the pool counts as missed). Every question
weighs the same (LoCoMo has six times realchat's questions; weighing the two sets the same was
tried, and its cross-validated R@10 with each set weighing the same was 71.3 against 72.0 for
the hand-tuned sum, so it was not kept: docs/benchmarks.md). The weights are
written rounded to six digits, so a retrain on the same data reproduces them.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import locomo

ROOT = locomo.ROOT
LOCOMO = ROOT.parent / "shared" / "data" / "locomo"
REALCHAT_DEV = ROOT / "tests" / "data" / "realchat" / "dev"
TRAIN_LOCOMO = range(0, 5)
REALCHAT_OFFSET = 100  # realchat's conversations are members realchat… after LoCoMo's
GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
FOLDS = 5
SEED = 20261126  # the folds are fixed by conversation; kept for the record


def development_conversations() -> list[dict]:
    chosen = [c for c in locomo.load(LOCOMO) if c["index"] in TRAIN_LOCOMO]
    for conversation in locomo.load(REALCHAT_DEV):
        chosen.append(conversation | {"index": REALCHAT_OFFSET + conversation["index"]})
    return chosen


def rows_of(conversations: list[dict]) -> list[dict]:
    """One entry per question: its candidates' features, their labels, its evidence count."""
    from django.contrib.auth import get_user_model

    from memories.recall import Query, candidates

    questions = []
    for conversation in conversations:
        member = get_user_model().objects.get(username=f"locomo{conversation['index']}")
        to_dialog, at = locomo.turn_of(conversation, member), locomo.asked_at(conversation)
        for question in conversation["questions"]:
            if question["category"] not in locomo.HEADLINE:
                continue
            ids, matrix = candidates(Query(member, question["question"], k=50, at=at))
            evidence = set(question["evidence"])
            labels = np.array([to_dialog.get(pk) in evidence for pk in ids], dtype=np.int64)
            questions.append(
                {
                    "group": conversation["index"],
                    "category": question["category"],
                    "x": matrix,
                    "y": labels,
                    "evidence": len(evidence),
                }
            )
    return questions


def recall_at(questions: list[dict], scores: list[np.ndarray], k: int) -> float:
    """Mean share of each question's evidence among its top k candidates by ``scores``."""
    values = []
    for question, score in zip(questions, scores, strict=True):
        top = np.argsort(-score, kind="stable")[:k]
        values.append(question["y"][top].sum() / question["evidence"])
    return 100 * float(np.mean(values)) if values else 0.0


def fit(questions: list[dict], c: float) -> dict:
    from sklearn.linear_model import LogisticRegression

    from memories.recall.ranker import NAMES

    x = np.vstack([q["x"] for q in questions])
    y = np.concatenate([q["y"] for q in questions])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=5000)
    model.fit((x - mean) / scale, y)

    def rounded(values) -> list:
        return np.round(np.asarray(values, dtype=np.float64), 6).tolist()

    return {
        "trained_by": "bench/train_ranker.py",
        "trained_on": ["../shared/data/locomo conversations 0-4", "tests/data/realchat/dev"],
        "seed": SEED,
        "c": c,
        "features": list(NAMES),
        "mean": rounded(mean),
        "scale": rounded(scale),
        "coef": rounded(model.coef_[0]),
        "intercept": round(float(model.intercept_[0]), 6),
    }


def scored(questions: list[dict], model: dict) -> list[np.ndarray]:
    from memories.recall.ranker import probabilities

    as_arrays = {k: np.asarray(v) if isinstance(v, list) else v for k, v in model.items()}
    return [probabilities(q["x"], as_arrays) for q in questions]


def choose_c(questions: list[dict]) -> tuple[float, dict[float, float]]:
    groups = sorted({q["group"] for q in questions})
    folds = [set(groups[i::FOLDS]) for i in range(FOLDS)]
    by_c = {}
    for c in GRID:
        held_scores, held = [], []
        for fold in folds:
            model = fit([q for q in questions if q["group"] not in fold], c)
            part = [q for q in questions if q["group"] in fold]
            held += part
            held_scores += scored(part, model)
        by_c[c] = recall_at(held, held_scores, 10)
    return max(GRID, key=lambda c: (by_c[c], -c)), by_c


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="build the database here and keep it")
    parser.add_argument("--reuse", type=Path, help="train on a kept database")
    parser.add_argument("--check", action="store_true", help="compare with the shipped weights")
    args = parser.parse_args(argv)

    conversations = development_conversations()
    data_dir = args.reuse or args.keep or Path(tempfile.mkdtemp(prefix="talkingrock-ranker-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    locomo.setup_django(data_dir)
    from django.conf import settings

    from memories.recall import ranker

    settings.TALKINGROCK_RECALL["ranker"] = False  # the candidates, as the steps gather them
    if not args.reuse:
        facts = locomo.ingest(conversations)
        print(f"ingest: {facts['memories']:,} turns, {facts['ingest_rate']:.0f}/s")
    questions = rows_of(conversations)
    rows = sum(len(q["y"]) for q in questions)
    in_pool = sum(q["y"].sum() for q in questions) / sum(q["evidence"] for q in questions)
    print(
        f"{len(questions)} questions, {rows:,} candidates, {100 * in_pool:.1f} % of evidence in the pool"
    )

    best, by_c = choose_c(questions)
    for c, value in by_c.items():
        print(f"C={c}: cross-validated R@10 {value:.1f}{'  <- chosen' if c == best else ''}")
    model = fit(questions, best)
    hand = [q["x"][:, ranker.NAMES.index("lifted")] for q in questions]
    learned = scored(questions, model)
    for k in (10, 50):
        print(
            f"development R@{k} (pool order, before weighing by use and age): hand-tuned sum "
            f"{recall_at(questions, hand, k):.1f}, learned {recall_at(questions, learned, k):.1f}"
        )
    print(
        "weights:",
        ", ".join(f"{n} {w:+.3f}" for n, w in zip(ranker.NAMES, model["coef"], strict=True)),
    )
    if args.check:
        shipped = json.loads(ranker.WEIGHTS.read_text())
        same = all(
            math.isclose(a, b, abs_tol=2e-6)
            for key in ("mean", "scale", "coef")
            for a, b in zip(shipped[key], model[key], strict=True)
        ) and math.isclose(shipped["intercept"], model["intercept"], abs_tol=2e-6)
        print("the retrain reproduces the shipped weights" if same else "DIFFERENT from shipped")
        return 0 if same else 1
    ranker.WEIGHTS.write_text(json.dumps(model, indent=1) + "\n")
    print(f"wrote {ranker.WEIGHTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
