"""Measurement helpers of bench/memory_query.py, shared with bench/load.py: percentiles, a timed
call, the machine's facts for a report, and a log line on stderr (stdout is the report)."""

from __future__ import annotations

import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path


def percentile(values: list[float], pct: float) -> float:
    """The ``pct``-th percentile, interpolated between the two nearest ranks; NaN for none."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    k = (len(ordered) - 1) * pct / 100
    low, high = math.floor(k), math.ceil(k)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def summary(values: list[float]) -> dict:
    """Count, p50/p95/p99, max and mean of a list of milliseconds (kept in the --json output)."""
    return {
        "n": len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "max": max(values) if values else math.nan,
        "mean": statistics.fmean(values) if values else math.nan,
    }


def timed(function, *args, **kwargs):
    """``(milliseconds, result)`` of one call."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return (time.perf_counter() - start) * 1000, result


def machine_facts() -> dict:
    """CPU, Python, Django, the SQLite driver and its versions. Needs Django set up (hence the
    imports here: this module is imported before ``django.setup()``)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT sqlite_version(), vec_version()")
        sqlite_version, vec_version = cursor.fetchone()
    import django

    cpu_model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model,
        "python": platform.python_version(),
        "django": django.get_version(),
        "driver": connection.Database.__name__,
        "sqlite": sqlite_version,
        "sqlite_vec": vec_version,
        "platform": platform.platform(),
    }


# A fixed text for the model's rate: ordinary household length (about 110 characters, the
# synthetic memories' mean), the same every run, so rates from different days compare.
CALIBRATION_TEXT = (
    "Maya has a dentist appointment with Dr Novak at the Southbank clinic on Tuesday at 10:30, "
    "bring the insurance card."
)


def model_rate(texts: int = 512) -> float:
    """Texts a second the embedding model encodes on this process's one thread, batched as
    indexing batches them: the machine's speed at the work that bounds ingest, printed beside
    ingest and latency figures because the same code measured 2× apart on two machines of the
    same name (docs/benchmarks.md, twenty-ninth round). Needs Django set up; warms the model."""
    from talkingrock import embeddings

    batch = [f"{CALIBRATION_TEXT} ({number})" for number in range(texts)]
    embeddings.embed(batch[:32])
    start = time.perf_counter()
    embeddings.embed(batch)
    return texts / (time.perf_counter() - start)


def processor_features() -> str:
    """The processor flags that decide the model's speed here: bfloat16 products, 512-bit
    vectors, and ``avx512_vp2intersect`` (which, among AMD's processors, only Zen 5 reports)."""
    from talkingrock.embeddings import cpu_flags

    wanted = ("avx512f", "avx512_bf16", "amx_bf16", "avx512_vp2intersect")
    flags = cpu_flags()
    return " ".join(flag for flag in wanted if flag in flags) or "none of " + ", ".join(wanted)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
