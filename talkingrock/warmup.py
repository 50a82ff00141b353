"""Load the models a request or a task will need before the first one arrives: the embedding model
(about 7 s), the English pipeline (about 3 s) and the sentence classifier's weights. Called once
per process when the web server's workers and the task worker start (gunicorn.conf.py,
conversations/apps.py), so the first message after a start does not wait on them."""

from __future__ import annotations

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
    seconds = time.perf_counter() - started
    log.info("Models loaded in %.1f s.", seconds)
    return seconds
