"""Reading a conversation: the member's turns, normalised, parsed and cut into clauses, each with
the people it names (pronouns resolved) and what the classifier says it does.

Only the member's words are read for what they state; the assistant's turns give context (a
member answering "yes" to "so it's quartz then?" has decided on quartz). Bursts of short
messages are one thought typed in pieces, so consecutive member messages are read together.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from talkingrock import nlp
from talkingrock.language.names import ROLES, Gazetteer, Known, names_in
from talkingrock.language.offline import lexicon
from talkingrock.language.offline.classifier import Clause, classify
from talkingrock.language.offline.referents import PRONOUNS, Referents
from talkingrock.text import sentences

# Openers that carry nothing; "no" and "not" stay ("no gas" is a choice, "no thanks" a refusal).
_DISCOURSE = frozenset(
    "so and but also plus oh well anyway right ok okay yes yeah alright then".split()
)
_CLAUSE_SUBJECTS = ("nsubj", "nsubjpass", "expl")
# A request to the assistant ("tell me about …", "can you …") is for the chat to answer now,
# whatever else it looks like: it opens no thread.
_ASKING_THE_ASSISTANT = re.compile(
    r"^(?:please\s+)?(?:tell me|show me|explain|can you|could you|would you|will you|help me "
    r"(?:understand|find|remember)|do you (?:know|remember)|remind me (?:what|when|where|who|how))\b",
    re.I,
)
# A clause becomes an item (a thread someone must close) only when the classifier is this sure;
# otherwise it is kept as a fact. Chosen on the development households.
ITEM_LABELS = frozenset({"task", "decision", "waiting_on", "question_held", "change_of_mind"})
MIN_ITEM_CONFIDENCE = 0.45


@dataclass
class Unit:
    """One clause the member said."""

    index: int
    message: int  # position of the message in the transcript
    text: str  # normalised words of the clause
    tokens: tuple
    people: list[Known] = field(default_factory=list)
    referents: dict[int, Known] = field(default_factory=dict)  # token index → person it means
    # Guesses where a pronoun is ambiguous, and who a clause with no subject is about.
    likely: dict[int, Known] = field(default_factory=dict)
    likely_subject: Known | None = None
    answers: str = ""  # the assistant's question this clause follows, if any
    label: str = ""
    probability: float = 0.0
    probabilities: dict[str, float] = field(default_factory=dict)

    def named(self) -> list[str]:
        return [person.name for person in self.people]


@dataclass
class Reading:
    units: list[Unit]
    gazetteer: Gazetteer
    member: str  # the member's name as it is written in facts
    household: list[str]  # everyone in the household, the member first

    def of(self, *labels: str) -> list[Unit]:
        return [unit for unit in self.units if unit.label in labels]


def _turns(transcript: list[tuple[str, str]]) -> list[tuple[int, str, str]]:
    """(message position, text, the assistant question before it) for each run of member
    messages, read together (a burst of short messages is one thought typed in pieces)."""
    turns: list[tuple[int, str, str]] = []
    question = ""
    pending: list[str] = []
    first = 0
    for position, (role, content) in enumerate(transcript):
        # Spaces tidied, line breaks kept: a new line is a new sentence.
        content = "\n".join(" ".join(line.split()) for line in (content or "").splitlines())
        content = content.strip()
        if role != "user":
            if pending:
                turns.append((first, " ".join(pending), question))
                pending = []
            question = content if content.rstrip().endswith("?") else ""
            continue
        if not content:
            continue
        if not pending:
            first = position
        pending.append(content if content[-1] in ".!?" else content + ".")
    if pending:
        turns.append((first, " ".join(pending), question))
    return turns


def clauses(sentence) -> list[list]:
    """Cut a parsed sentence where a coordinated or run-on verb with its own subject begins:
    "dave came by and he said …" is two clauses; "go and look" stays one."""
    cuts = {sentence.start}
    for token in sentence:
        if token.dep_ in ("conj", "parataxis") and token.pos_ in ("VERB", "AUX"):
            if any(child.dep_ in _CLAUSE_SUBJECTS for child in token.children):
                cuts.add(max(token.left_edge.i, sentence.start))
    bounds = [*sorted(cuts), sentence.end]
    pieces = []
    for start, end in itertools.pairwise(bounds):
        tokens = [t for t in sentence.doc[start:end] if not t.is_space]
        while tokens and (tokens[0].is_punct or tokens[0].lower_ in _DISCOURSE):
            tokens = tokens[1:]
        while tokens and tokens[-1].dep_ == "cc":
            tokens = tokens[:-1]
        if any(t.is_alpha or t.like_num for t in tokens):
            pieces.append(tokens)
    return pieces


def _text(tokens: list) -> str:
    return "".join(t.text_with_ws for t in tokens).strip()


def read(
    transcript: list[tuple[str, str]],
    *,
    member: str,
    household: list[str] = (),
    known: list[Known] = (),
) -> Reading:
    """Parse, cut, resolve names and classify every clause of the member's turns."""
    gazetteer = Gazetteer(known)
    for name in household:
        gazetteer.add(name)
    pieces = [
        (position, question if n == 0 else "", sentence)
        for position, text, question in _turns(transcript)
        for n, sentence in enumerate(sentences(lexicon.normalise(text)))
    ]
    docs = nlp.parse([sentence for _, _, sentence in pieces], one_sentence=True)
    units: list[Unit] = []
    referents = Referents()
    for (position, question, _), doc in zip(pieces, docs, strict=True):
        named = {start: (end, person) for start, end, person in names_in(doc, gazetteer)}
        for sentence in doc.sents:
            for tokens in clauses(sentence):
                unit = Unit(len(units), position, _text(tokens), tuple(tokens), answers=question)
                unit.likely_subject = referents.likely()
                referents.new_clause()
                for token in tokens:
                    if token.i in named:
                        person = named[token.i][1]
                        if key_name(person) == key_name(member):
                            continue  # the member naming themselves
                        if person not in unit.people:
                            unit.people.append(person)
                        referents.named(person)
                    elif token.lower_ in ROLES and token.pos_ == "NOUN":
                        referents.role(token.lower_)  # "dad … he": maybe his, not the last name's
                    elif token.lower_ in PRONOUNS:
                        if person := referents.meant(token.lower_):
                            unit.referents[token.i] = person
                        elif person := referents.likely(token.lower_):
                            unit.likely[token.i] = person
                units.append(unit)
                question = ""  # only the first clause answers the assistant
    predictions = classify(
        [Clause(u.text, u.tokens, after_assistant_question=bool(u.answers)) for u in units]
    )
    for unit, prediction in zip(units, predictions, strict=True):
        unit.label = prediction.label
        if prediction.label in ITEM_LABELS and prediction.probability < MIN_ITEM_CONFIDENCE:
            unit.label = "fact"  # not sure enough to open a thread: keep it as what was said
        if _ASKING_THE_ASSISTANT.match(unit.text):
            unit.label = "question_to_assistant"
        unit.probability = prediction.probability
        unit.probabilities = prediction.probabilities
    return Reading(units, gazetteer, member, [member, *[h for h in household if h != member]])


def key_name(person) -> str:
    name = person.name if isinstance(person, Known) else str(person)
    return re.sub(r"\W+", " ", name.casefold()).strip()
