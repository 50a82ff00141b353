"""How the contextual key was chosen (issue 12): vector search alone, own key against keys that
hold what was said before a turn, on development chats and on the frozen halves.

Usage (from the project root)::

    .venv/bin/python bench/context_keys.py              # realchat dev + test, LoCoMo 0-4 + 5-9
    .venv/bin/python bench/context_keys.py --quick      # realchat only

For every turn of every conversation it embeds the turn alone (the own key) and, as candidates
for the second key, (a) the text of the turn with the two before it in its session, embedded by
the model, and (b) the own vectors of the turn and of the ``before`` turns told before it, each
of those counting ``weight`` (no model call; what memories/context.py builds). Each question is
scored by vector alone: a turn's similarity is the better of its own key's and the second key's.
Recall@10 over categories 1-4 is printed per data set. The grid of (b) is printed for the
development halves only (realchat dev, LoCoMo 0-4), which is where the shipped values
(``context.BEFORE``, ``context.WEIGHT``) were picked; the frozen halves get the shipped values
and the text variant, for comparison.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
_spec = importlib.util.spec_from_file_location("bench_locomo", ROOT / "bench" / "locomo.py")
locomo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(locomo)

GRID = [(w, b) for w in (0.3, 0.5, 0.8) for b in (1, 2, 3)]


def averaged(own: np.ndarray, sessions: list[int], weight: float, before: int) -> np.ndarray:
    keys = own.copy()
    for i in range(len(own)):
        window = [j for j in range(max(0, i - before), i) if sessions[j] == sessions[i]]
        if window:
            key = own[i] + weight * own[window].sum(axis=0)
            keys[i] = key / np.linalg.norm(key)
    return keys


def score(conversations, *, grid: bool, embed, context) -> dict[str, float]:
    rows: dict[str, list[float]] = {}
    model_seconds = {"own": 0.0, "text": 0.0}
    for conversation in conversations:
        turns = conversation["turns"]
        sessions = [turn["session"] for turn in turns]
        started = time.perf_counter()
        own = np.asarray(embed([turn["text"] for turn in turns]))
        model_seconds["own"] += time.perf_counter() - started
        texts = [
            " ".join(
                turns[j]["text"] for j in range(max(0, i - 2), i + 1) if sessions[j] == sessions[i]
            )
            for i in range(len(turns))
        ]
        started = time.perf_counter()
        text_keys = np.asarray(embed(texts))
        model_seconds["text"] += time.perf_counter() - started
        variants = {"own key only": None, "text of the turn and two before": text_keys}
        variants[f"shipped: w{context.WEIGHT} b{context.BEFORE}"] = averaged(
            own, sessions, context.WEIGHT, context.BEFORE
        )
        if grid:
            for weight, before in GRID:
                variants[f"grid: w{weight} b{before}"] = averaged(own, sessions, weight, before)
        questions = [q for q in conversation["questions"] if q["category"] in locomo.HEADLINE]
        query_vectors = np.asarray(embed([q["question"] for q in questions]))
        ids = [turn["id"] for turn in turns]
        for name, keys in variants.items():
            for question, vector in zip(questions, query_vectors, strict=True):
                similarity = own @ vector
                if keys is not None:
                    similarity = np.maximum(similarity, keys @ vector)
                top = {ids[k] for k in np.argsort(-similarity, kind="stable")[:10]}
                found = sum(e in top for e in question["evidence"]) / len(question["evidence"])
                rows.setdefault(name, []).append(found)
    result = {name: 100 * float(np.mean(values)) for name, values in rows.items()}
    result["_n"] = len(next(iter(rows.values()), []))
    result["_model_seconds"] = model_seconds
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="realchat only")
    args = parser.parse_args(argv)
    import django

    django.setup()
    from memories import context
    from talkingrock import embeddings

    sets = [
        ("realchat dev (tuned on)", ROOT / "tests/data/realchat/dev", None, True),
        ("realchat test (frozen)", ROOT / "tests/data/realchat/test", None, False),
    ]
    if not args.quick:
        shared = ROOT.parent / "shared" / "data" / "locomo"
        sets += [
            ("LoCoMo 0-4 (tuned on)", shared, {0, 1, 2, 3, 4}, True),
            ("LoCoMo 5-9 (held out)", shared, {5, 6, 7, 8, 9}, False),
        ]
    for title, path, subset, grid in sets:
        conversations = locomo.load(path)
        if subset is not None:
            conversations = [c for c in conversations if c["index"] in subset]
        result = score(conversations, grid=grid, embed=embeddings.embed, context=context)
        seconds = result.pop("_model_seconds")
        print(f"\n## {title}: vector search alone, R@10, {result.pop('_n')} questions")
        for name, value in result.items():
            print(f"- {name}: {value:.1f}")
        print(
            f"- model time: own keys {seconds['own']:.1f} s, text keys {seconds['text']:.1f} s "
            "(the averaged keys need none)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
