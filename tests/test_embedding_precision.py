"""The embedding model in bfloat16 where the processor multiplies it natively (issue 12's ingest
rate): the same vectors, to within rounding, as float32."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured

from talkingrock import embeddings

SENTENCES = [
    "Maya booked the dentist for Tuesday at 4pm.",
    "haha yes the blue one",
    "we settled on quartz for the worktops, 40k budget",
]


@pytest.fixture
def cpuinfo(tmp_path):
    def write(flags: str) -> str:
        path = tmp_path / "cpuinfo"
        path.write_text(f"processor\t: 0\nflags\t\t: fpu sse2 avx2 {flags}\n\n")
        return str(path)

    return write


@pytest.mark.parametrize(
    ("flags", "native"),
    [("avx512f avx512_bf16", True), ("amx_bf16 amx_tile", True), ("avx512f avx512bw", False)],
)
def test_native_bf16_is_read_from_the_processor_flags(cpuinfo, flags, native):
    assert embeddings.cpu_has_bf16.__wrapped__(cpuinfo(flags)) is native


def test_a_machine_without_cpuinfo_is_not_taken_for_bf16(tmp_path):
    assert embeddings.cpu_has_bf16.__wrapped__(str(tmp_path / "absent")) is False


def test_auto_follows_the_processor_and_a_setting_forces_either(settings, monkeypatch):
    monkeypatch.setattr(embeddings, "cpu_has_bf16", lambda: False)
    settings.TALKINGROCK_EMBEDDINGS = {"precision": "auto"}
    assert embeddings.precision() == "fp32"
    monkeypatch.setattr(embeddings, "cpu_has_bf16", lambda: True)
    assert embeddings.precision() == "bf16"
    settings.TALKINGROCK_EMBEDDINGS = {"precision": "fp32"}
    assert embeddings.precision() == "fp32"


def test_an_unknown_precision_is_a_configuration_error(settings):
    settings.TALKINGROCK_EMBEDDINGS = {"precision": "int4"}
    with pytest.raises(ImproperlyConfigured, match="auto, bf16 or fp32"):
        embeddings.precision()


def test_bf16_vectors_match_fp32_ones_to_within_rounding(settings):
    settings.TALKINGROCK_EMBEDDINGS = {"precision": "fp32"}
    full = embeddings.embed(SENTENCES)
    settings.TALKINGROCK_EMBEDDINGS = {"precision": "bf16"}
    half = embeddings.embed(SENTENCES)

    assert half.dtype == np.float32
    assert np.allclose(np.linalg.norm(half, axis=1), 1.0, atol=1e-5)
    assert (full * half).sum(axis=1).min() > 0.999
    # and they still tell the sentences apart as float32 does
    assert np.argsort(full @ full[1]).tolist() == np.argsort(half @ half[1]).tolist()


def test_exact_runs_float32_whatever_the_setting(settings):
    """What must come out the same on every machine (the classifier's training data) asks for
    float32 explicitly."""
    settings.TALKINGROCK_EMBEDDINGS = {"precision": "fp32"}
    full = embeddings.embed(SENTENCES)
    settings.TALKINGROCK_EMBEDDINGS = {"precision": "bf16"}
    assert np.array_equal(embeddings.embed(SENTENCES, exact=True), full)
