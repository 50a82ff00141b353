"""The sentence-type classifier: what a clause *does* — a decision, a task, a waiting-on, a
question held or one put to the assistant, a resolution, a change of mind, a preference, a plain
fact, small talk.

Logistic regression over the clause's MiniLM embedding and cheap features of its form
(features.py), trained by ``python -m talkingrock.language.offline.classifier.train`` on the labelled
sentences beside it (sentences.jsonl, whose frozen test quarter the training never sees) into
``weights.json``. Inference is a matrix product here (numpy); scikit-learn is needed only to
train.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from talkingrock import embeddings
from talkingrock.language.offline.classifier.features import LABELS, NAMES, Clause, form

HERE = Path(__file__).resolve().parent
WEIGHTS = HERE / "weights.json"
SENTENCES = HERE / "sentences.jsonl"
HOUSEHOLD_CLAUSES = HERE / "household_clauses.jsonl"

__all__ = ["LABELS", "Clause", "Prediction", "classify", "model"]


@dataclass(frozen=True)
class Prediction:
    label: str
    probability: float
    probabilities: dict[str, float]


@dataclass(frozen=True)
class Model:
    labels: tuple[str, ...]
    form_mean: np.ndarray
    form_scale: np.ndarray
    coef: np.ndarray  # (labels, 384 + len(NAMES))
    intercept: np.ndarray

    def probabilities(self, vectors: np.ndarray, forms: np.ndarray) -> np.ndarray:
        x = np.hstack([vectors, (forms - self.form_mean) / self.form_scale])
        logits = x @ self.coef.T + self.intercept
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)


@cache
def model(path: Path = WEIGHTS) -> Model:
    data = json.loads(path.read_text())
    if tuple(data["features"]) != NAMES:
        raise ValueError(f"{path} was trained on other features: retrain it (train.py).")
    return Model(
        labels=tuple(data["labels"]),
        form_mean=np.asarray(data["form_mean"], dtype=np.float32),
        form_scale=np.asarray(data["form_scale"], dtype=np.float32),
        coef=np.asarray(data["coef"], dtype=np.float32),
        intercept=np.asarray(data["intercept"], dtype=np.float32),
    )


def design(clauses: list[Clause], *, exact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(embeddings, forms) of the clauses: the classifier's input, for training (``exact``: in
    float32, so that a retrain gives the same weights on every machine) and predicting."""
    vectors = embeddings.embed([clause.text for clause in clauses], exact=exact)
    forms = (
        np.vstack([form(clause) for clause in clauses]) if clauses else np.zeros((0, len(NAMES)))
    )
    return vectors, forms


def classify(clauses: list[Clause], *, vectors: np.ndarray | None = None) -> list[Prediction]:
    """One prediction per clause; ``vectors`` when the embeddings are already at hand."""
    if not clauses:
        return []
    weights = model()
    if vectors is None:
        vectors, forms = design(clauses)
    else:
        forms = np.vstack([form(clause) for clause in clauses])
    rows = weights.probabilities(vectors, forms)
    predictions = []
    for row in rows:
        best = int(row.argmax())
        predictions.append(
            Prediction(
                label=weights.labels[best],
                probability=float(row[best]),
                probabilities={
                    label: float(p) for label, p in zip(weights.labels, row, strict=True)
                },
            )
        )
    return predictions
