"""One thread per numeric library per process, set in one place.

Every process of Talking Rock (the web server's workers, the task worker, management commands,
``python -m`` of one of its modules, benchmarks and the tests) imports the ``talkingrock``
package before numpy, torch or anything that links OpenBLAS/OpenMP, so the package calls
``limit()`` as it is imported (talkingrock/__init__.py). On a two-core household
machine each library otherwise starts one thread per core *per process*: with two web workers
and the task worker that is six busy threads fighting over two cores (``bench/load.py``
measures both settings; docs/benchmarks.md has the figures).

``TALKINGROCK_THREADS`` changes the count for every library at once.
"""

from __future__ import annotations

import os

# Read by the libraries when they load: OpenMP (torch's intra-op pool), OpenBLAS and MKL
# (numpy), BLIS (spaCy's thinc), Apple's Accelerate, numexpr.
ENVIRONMENT = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def count() -> int:
    try:
        return max(1, int(os.environ.get("TALKINGROCK_THREADS", "1")))
    except ValueError:
        return 1


def limit() -> int:
    """Set every library's thread count to ``count()``; call before numpy or torch loads."""
    threads = count()
    for name in ENVIRONMENT:
        os.environ[name] = str(threads)
    # Hugging Face's tokenizers run a Rust thread pool of their own beside torch's.
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    return threads


def limit_torch(torch) -> None:
    """torch reads OMP_NUM_THREADS for its intra-op pool, but its inter-op pool is sized by the
    core count: both are set explicitly once torch is imported (embeddings.py does it)."""
    threads = count()
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(threads)
    except RuntimeError:
        pass  # already set, or parallel work already started in this process: keep it
