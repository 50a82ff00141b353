"""Load the models a request or a task will need before the first one arrives: the embedding model
(about 7 s), the English pipeline (about 3 s) and the sentence classifier's weights. Called once
per process when the web server's workers and the task worker start (gunicorn.conf.py,
conversations/apps.py), so the first message after a start does not wait on them.

Then it freezes what is loaded. Torch, spaCy, the tokenizer and Django leave about half a million
objects the garbage collector tracks; each full collection walked them all, a pause of about
300 ms in whichever request it fell on (bench/recall_latency.py at 100k memories + 300k messages:
one question in two hundred, its maximum). These objects live as long as the process,
so ``gc.freeze()`` moves them out of the collector's sight: a full collection then takes about a
millisecond. Garbage made later is collected as before."""

from __future__ import annotations

import gc
import logging
import time

from talkingrock import embeddings, nlp

log = logging.getLogger(__name__)


def warm() -> float:
    """Load everything; the seconds it took."""
    started = time.perf_counter()
    embeddings.embed(["warm up"])
    nlp.parse(["warm up"])
    # The classifier's weights live with the offline engine, which the core does not import;
    # they are a 60 kB file read on first use.
    gc.collect()  # the loading's own garbage first: what is frozen is never freed
    gc.freeze()
    seconds = time.perf_counter() - started
    log.info("Models loaded in %.1f s; %d objects frozen.", seconds, gc.get_freeze_count())
    return seconds
