"""The offline engine: every compression stage without a model, on maintained NLP (spaCy's small
English pipeline), the MiniLM embeddings the app already computes and a small learned
sentence-type classifier (classifier/), stage by stage:

    lexicon   texting shorthand read as English ("bc", "dont", "6k")
    reading   sentences and clauses, names (names.py) and what each clause does (classifier/)
    items     people, tasks, decisions, waiting-ons, questions held (not those put to the assistant)
    facts     self-contained third-person sentences with a subject and a relation (dates.py)
    changes   open items closed and decisions or facts replaced
    route     the act by meaning
    narrative 2–4 sentences of what it meant

docs/extraction.md reports how well it reads the development and the frozen test households.
"""

from talkingrock.language.offline.changes import Earlier, Proposal, resolutions, supersessions
from talkingrock.language.offline.items import KINDS, MAX_ITEMS, MAX_TEXT
from talkingrock.language.offline.narrative import narrative, topic_of
from talkingrock.language.offline.pipeline import Extraction, extract
from talkingrock.language.offline.route import ActProfile, Route, route

__all__ = [
    "KINDS",
    "MAX_ITEMS",
    "MAX_TEXT",
    "ActProfile",
    "Earlier",
    "Extraction",
    "Proposal",
    "Route",
    "extract",
    "narrative",
    "resolutions",
    "route",
    "supersessions",
    "topic_of",
]
