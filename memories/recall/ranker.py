"""The learned ranker (issue 26): one number per candidate from the signals recall already
computes, in place of the hand-tuned sum of them, before use and age weigh it (order.Weigher)
and what replaced what is put in order.

Each candidate's features (``NAMES``) are read from the pool the steps filled: the keyword
match and its rank, the similarity in meaning and its rank, the base and lifted scores, the
best neighbour's and the conversation's best score, the time window, the names the question
names, the entity hop, the co-recall links, the second round, and the memory's age. Every score
is taken relative to the best candidate of the same recall, so that one set of weights serves
every question. A logistic regression (scikit-learn, ``bench/train_ranker.py``, trained on
LoCoMo 0-4 and the realchat dev split only, fixed seed) turns them into the probability that
the candidate is evidence for the question; its weights are ``ranker.json`` beside this file.
The candidates are put in the order of that probability and given the steps' scores in turn
(``relevance``), so that everything after the ranking keeps the scale it was set on.

``TALKINGROCK_RECALL["ranker"] = False`` turns it off: the hand-tuned sum decides, as before.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path

import numpy as np

from memories.entities import COMMON
from memories.models import Memory

WEIGHTS = Path(__file__).with_name("ranker.json")

NAMES = (
    "keyword",  # BM25 over the best BM25 of the recall (0: not a keyword match)
    "keyword_rank",  # 1 / log2(1 + rank) in the keyword list (0: not in it)
    "similarity",  # cosine similarity to the query (own or contextual key; 0: not measured)
    "similarity_gap",  # similarity − the best similarity of the recall
    "meaning_rank",  # 1 / log2(1 + rank) among the nearest in meaning (0: not among them)
    "measured",  # 1 when its similarity was measured
    "base",  # keywords + meaning, over the best base of the recall
    "lifted",  # after neighbours, conversation, time, names and hops, over the best
    "neighbour",  # the best neighbour's base (one or two turns away), over the best base
    "joined_as_neighbour",  # 1 when it joined as the neighbour of a strong candidate
    "conversation",  # its conversation's best base, over the best base
    "in_window",  # 1 when it falls in the time window the question names
    "named",  # how many of the names the question names it mentions
    "entity",  # the entity hop's gain, over the best lifted score
    "link",  # the co-recall link's gain, over the best lifted score
    "second_round",  # the second round's gain, over the best lifted score
    "days_old",  # log(1 + days since it happened)
    "coverage",  # the share of the question's words (of 3+ letters, not common) its words hold
    # Where it stands in this recall, by four of the above: 1 / log2(1 + place).
    "lifted_place",
    "similarity_place",
    "base_place",
    "coverage_place",
)
# The columns placed by PLACED, in the order of the *_place features.
PLACED = ("lifted", "similarity", "base", "coverage")
_WORD = re.compile(r"[^\W_]{3,}")


def words(text: str) -> frozenset[str]:
    """A text's words for coverage: lower case, of three or more letters, not among the commonest
    English words, a final "s" off ("tiles" is "tile")."""
    found = (word.lower() for word in _WORD.findall(text))
    return frozenset(
        word[:-1] if len(word) > 3 and word.endswith("s") else word
        for word in found
        if word not in COMMON
    )


def _rank_feature(rank) -> float:
    return 1 / math.log2(1 + rank) if rank else 0.0


def features(pool, rows: dict, query: str) -> tuple[list[int], np.ndarray]:
    """(candidate ids, one row of ``NAMES`` per candidate) for the candidates in ``rows``."""
    ids = list(rows)
    asked = words(query)
    # Only the ranker reads the candidates' words: loaded here, not for every recall.
    content = dict(Memory.everything.filter(pk__in=ids).values_list("pk", "content"))
    parts, base, score = pool.parts, pool.base, pool.score
    best_bm25 = max((p["keywords"]["bm25"] for p in parts.values() if "keywords" in p), default=0)
    best_bm25 = best_bm25 if best_bm25 > 0 else 1.0
    similarity = {
        i: p["meaning"]["similarity"]
        for i, p in parts.items()
        if "similarity" in p.get("meaning", {})
    }
    best_similarity = max(similarity.values(), default=0.0)
    best_base = max(base.values(), default=0.0) or 1.0
    best_score = max(score.values(), default=0.0) or 1.0
    matrix = np.zeros((len(ids), len(NAMES)), dtype=np.float64)
    for row, memory_id in enumerate(ids):
        part = parts.get(memory_id, {})
        keywords, meaning = part.get("keywords", {}), part.get("meaning", {})
        neighbours = part.get("neighbours", {})
        around = [base.get(n, 0.0) for key, n in neighbours.items() if key.startswith("from_")]
        conversation = part.get("conversation", {})
        own = base.get(memory_id, 0.0)
        sim = similarity.get(memory_id)
        matrix[row] = (
            max(keywords.get("bm25", 0.0), 0.0) / best_bm25,
            _rank_feature(keywords.get("rank")),
            sim or 0.0,
            (sim - best_similarity) if sim is not None else -1.0,
            _rank_feature(meaning.get("rank")),
            1.0 if sim is not None else 0.0,
            own / best_base,
            score.get(memory_id, 0.0) / best_score,
            max(around, default=0.0) / best_base,
            1.0 if neighbours.get("joined") else 0.0,
            max(own, base.get(conversation.get("best"), 0.0)) / best_base,
            1.0 if "time" in part else 0.0,
            len(part.get("named", ())),
            part.get("entity", {}).get("gain", 0.0) / best_score,
            part.get("link", {}).get("gain", 0.0) / best_score,
            part.get("second_round", {}).get("gain", 0.0) / best_score,
            math.log1p(max(rows[memory_id].hours_old, 0.0) / 24),
            len(asked & words(content[memory_id])) / len(asked) if asked else 0.0,
            0.0,
            0.0,
            0.0,
            0.0,
        )
    for name in PLACED:
        column = matrix[:, NAMES.index(name)]
        place = np.empty(len(ids), dtype=np.float64)
        place[np.argsort(-column, kind="stable")] = np.arange(1, len(ids) + 1)
        matrix[:, NAMES.index(f"{name}_place")] = 1 / np.log2(1 + place)
    return ids, matrix


@cache
def weights() -> dict:
    """The shipped weights, read once per process; features they were not trained on refuse."""
    loaded = json.loads(WEIGHTS.read_text())
    if tuple(loaded["features"]) != NAMES:
        raise RuntimeError(f"{WEIGHTS} was trained on other features: run bench/train_ranker.py")
    for key in ("mean", "scale", "coef"):
        loaded[key] = np.asarray(loaded[key], dtype=np.float64)
    return loaded


def probabilities(matrix: np.ndarray, model: dict | None = None) -> np.ndarray:
    """The probability that each row is evidence for the question, under ``model`` (the shipped
    weights unless given)."""
    model = model or weights()
    z = ((matrix - model["mean"]) / model["scale"]) @ model["coef"] + model["intercept"]
    return 1 / (1 + np.exp(-np.clip(z, -30, 30)))


def relevance(pool, rows: dict, query: str) -> dict[int, float]:
    """Each candidate's relevance in the ranker's order, on the steps' own scale: the best
    candidate by the ranker gets the steps' best score, the second their second, and so on.
    What weighs it after (use and age, a replaced value below its replacement, the relevance
    floor) was set on that scale, and a probability's is another. The probability is recorded
    in its parts (the Details fold shows it)."""
    ids, matrix = features(pool, rows, query)
    if not ids:
        return {}
    learned = probabilities(matrix)
    for memory_id, value in zip(ids, learned.tolist(), strict=True):
        pool.parts[memory_id]["ranker"] = round(value, 4)
    ranked = [ids[n] for n in np.argsort(-learned, kind="stable")]
    scale = sorted((pool.score[memory_id] for memory_id in ids), reverse=True)
    return dict(zip(ranked, scale, strict=True))
