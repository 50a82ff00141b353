"""The narrative of a conversation, as a colleague would remember it (seed 003, stage 2):
2–4 sentences — what was decided and why, what changed, who is being waited on, what is still
open — with names capitalised. The act it belongs to is shown beside it, never written into it.
Whole sentences only: nothing is cut in the middle of a word or of "incl.".
"""

from __future__ import annotations

import re
from datetime import date
from itertools import islice

from talkingrock import nlp
from talkingrock.language import dates
from talkingrock.language.offline import lexicon, phrases
from talkingrock.language.offline.items import of_the_household
from talkingrock.language.offline.pipeline import Extraction

MAX_CHARS = 800
# Words that open a sentence and are lower-cased when it is written into another one.
_OPENERS = frozenset({"the", "a", "an", "go", "get", "to", "we", "it"})
_QUESTION_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})
# A clause whose head is an adverb or a preposition is an aside: neither a choice nor news.
_ASIDES = frozenset({"ADV", "ADP"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl"})
_THING_OPENERS = frozenset({"DET", "ADJ", "NUM", "NOUN", "PROPN", "SYM"})


def _joined(parts: list[str]) -> str:
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and not text[1].isupper() and " " in text:
        if text.split()[0].lower() in _OPENERS or _an_action(text[0].lower() + text[1:]):
            return text[0].lower() + text[1:]
    return text


def _decided(person: str, decisions: list[dict], household: list[str]) -> list[str]:
    """The first two decisions the narrative can say, each a sentence of its own in the form
    its words take (a second one joined to the first as "…, and on move stuff" read as
    nonsense)."""
    said = (_decision(person, row, household) for row in decisions)
    return list(islice(filter(None, said), 2))


def _decision(person: str, row: dict, household: list[str]) -> str:
    """ "Priya decided to go with the oak", "Priya decided: quartz", "Nadia decided: Greg does
    mon wed pickup": the member's words after a frame that fits any of them ("settled on"
    before "were doing the villa" did not). Words that are not the household's choice are
    written as they were said, with no one named as deciding: news of what someone else did
    or does ("Han has MOVED THE WEDDING", "northside is closing the office"). A question ("what
    does the ortho max actually mean"), a condition ("if its less than I get now"), an aside
    that says nothing alone ("on the heating", "closer from linden") or no word at all ("5")
    is left out: ""."""
    what = _lower_first(phrases.tidy(row["what"]).lstrip(",;:-–— "))
    form = _form(what, household)
    if form is None:
        return ""
    sentence = f"{person} {form} {what}" if form else what
    if row.get("why"):
        sentence += f" ({_lower_first(phrases.tidy(row['why']))})"
    return sentence.rstrip(".") + "."


def _form(what: str, household: list[str]) -> str | None:
    """ "decided to" before an action (a verb in its base form, as the parse reads it),
    "decided:" before anything else the household chose, "" before what they did not choose;
    None when ``what`` is a question, a condition, an aside or has no word. A verb the parse
    misreads as a noun ("switch insurance") still reads right after "decided:"; nothing is
    written after "settled on", which needs a thing."""
    doc = nlp.parse_one(what)
    words = [t for t in doc if not t.is_punct and not t.is_space]
    if not any(t.is_alpha for t in words) or what.rstrip().endswith("?"):
        return None
    root = next((t for t in doc if t.dep_ == "ROOT"), words[0])
    if words[0].tag_ in _QUESTION_TAGS and any(t.pos_ == "AUX" for t in words[1:3]):
        return None  # "what does the ortho max actually mean"
    if words[0].pos_ == "SCONJ" or root.pos_ in _ASIDES:
        return None  # "if its less than I get now", "on the heating": nothing said alone
    if words[0].lemma_ in ("can", "could") and any(t.dep_ == "neg" for t in words[1:3]):
        return ""  # "can't afford the oak": what cannot be done is no choice
    if words[0].tag_ in _QUESTION_TAGS:
        return ""  # "which is fine if the kiln works"
    subjects = [t for t in root.children if t.dep_ in _SUBJECTS]
    # A subject before the root that the parse hung on another word ("liverpool place … so its
    # manchester") is still the clause's; a thing followed by what was done to it ("liverpool
    # place cancelled on them") is news, whoever it is about.
    subjects = subjects or [t for t in words if t.dep_ in _SUBJECTS and t.i < root.i][:1]
    done_to = any(
        t.dep_ == "acl" and t.tag_ in ("VBD", "VBN") and t.i == t.head.i + 1
        for t in words
        if t.head == root or t.head.dep_ in _SUBJECTS
    )
    if done_to or (subjects and not _chosen(subjects[0], root, household)):
        return ""
    # The verb heads the clause: "oak not quartz" reads "oak" as a verb, hung on "quartz".
    action = words[0].tag_ == "VB" and words[0] == root
    return "decided to" if not subjects and action else "decided:"


def _chosen(subject, verb, household: list[str]) -> bool:
    """Whether a clause is the household choosing ("we'll go with oak", "Greg does mon wed
    pickup"), not news of what someone did or does ("han has MOVED THE WEDDING", "she's
    charging €520 now"): its subject is the member or one of the household, and its verb does
    not report what was done (past, perfect or passive)."""
    if subject.lower_ in ("i", "we"):
        return True  # "went with quartz in the end" is the member's own choice, told after
    reported = (
        verb.tag_ == "VBD"
        or subject.dep_ == "nsubjpass"
        or any(c.dep_ in ("aux", "auxpass") and c.lemma_ == "have" for c in verb.children)
    )
    return of_the_household(subject, household) and not reported


def _waiting(person: str, waits: list[dict], day: date) -> str:
    """ "Priya is waiting on Marek for a proper quote by 30 January 2026": who, and what is
    owed when the words name a thing ("the payment plan", "the £150"); a clause read as what is
    owed ("for let me know", "for 's thinking about it") is left out and the person stays. Each
    person is named once, with all they owe; a due date the words already say is not said
    again."""
    owed: dict[str, tuple[str, list[str], list[str]]] = {}  # key → name, things owed, due dates
    for row in waits[:2]:
        who, what = row.get("who", ""), _lower_first(phrases.tidy(row.get("what", "")))
        what = what if _a_thing(what) else ""
        if not (who or what):
            continue
        due = row.get("by", "")
        if due and what and any(m.day for m in dates.find(what, today=day)):
            due = ""  # "the keys before the 25th" says it already
        _, things, dues = owed.setdefault((who or what).casefold(), (who or what, [], []))
        if who and what:
            thing = f"{what} by {due}" if due else what
            if thing not in things:
                things.append(thing)
        elif due and due not in dues:
            dues.append(due)
    parts = [
        f"{name} for {_joined(things)}" if things else f"{name} by {dues[0]}" if dues else name
        for name, things, dues in owed.values()
    ]
    return f"{person} is waiting on {_joined(parts)}." if parts else ""


def _a_thing(text: str) -> bool:
    """Whether ``text`` is a noun phrase: it opens with a determiner, a possessive, an
    adjective, a number, an amount or a noun, and its head is a noun, a name or a number."""
    doc = nlp.parse_one(text)
    words = [t for t in doc if not t.is_space]
    if not words or words[0].is_punct:
        return False
    root = next((t for t in doc if t.dep_ == "ROOT"), words[0])
    opens = words[0].tag_ not in _QUESTION_TAGS and (
        words[0].pos_ in _THING_OPENERS or words[0].tag_ in ("PRP$", "$")
    )
    return opens and root.pos_ in ("NOUN", "PROPN", "NUM")


def _an_action(text: str) -> bool:
    """Whether ``text`` says something to do: it opens with a verb in its base form and no
    subject before it ("ask Marek", "need a roll of shed felt"). "Lucy needs braces", "she'll
    ring if she needs anything" and "Dwayne came out monday" are told, not to be done."""
    doc = nlp.parse_one(text)
    words = [t for t in doc if not t.is_space]
    if not words:
        return False
    first = words[0]
    bare = first.tag_ == "VB" or (first.tag_ == "VBP" and first.lower_ == first.lemma_.lower())
    return first.pos_ in ("VERB", "AUX") and bare and first.dep_ not in ("nsubj", "aux")


def _a_question(text: str) -> bool:
    """Whether ``text`` reads as a question: it opens with a question word ("which tiles",
    "whether he can stay on his own") or with an auxiliary before its subject ("should we
    wait", "would I go"), or it sets choices against each other ("oak or quartz"). "Haven't a
    clue", "floors still undecided" and "would 100% go again" are said of a question; they
    do not ask one."""
    doc = nlp.parse_one(text)
    words = [t for t in doc if not t.is_space]
    if len(words) < 2 or ". " in text:
        return False
    first, second = words[0], words[1]
    asks = first.tag_ in _QUESTION_TAGS or first.lower_ in ("whether", "if")
    inverted = first.pos_ == "AUX" and second.dep_ in ("nsubj", "nsubjpass", "expl")
    choices = any(t.lower_ == "or" and t.dep_ == "cc" for t in words[1:-1])
    return asks or inverted or choices


def _open(questions: list[dict], tasks: list[dict]) -> str:
    asked = (phrases.tidy(q["question"]).rstrip("?") for q in questions)
    asked = list(islice(filter(_a_question, asked), 2))
    todo = (_lower_first(phrases.tidy(t["description"])) for t in tasks)
    todo = list(islice(filter(_an_action, todo), 2))
    if asked and todo:
        return f"Still open: {'; '.join(asked)}; next: {_joined(todo)}."
    if asked:
        return f"Still open: {'; '.join(asked)}?"
    if todo:
        return f"Next: {_joined(todo)}."
    return ""


def narrative(
    extraction: Extraction,
    *,
    person: str,
    day: date,
    changed: list[str] = (),
) -> str:
    """2–4 sentences: decisions, what changed, waiting-ons, what is open.
    ``changed`` are sentences about earlier threads this conversation closed or replaced."""
    items = extraction.items
    sentences = [
        *_decided(person, items.get("decisions", []), extraction.reading.household),
        *changed[:1],
        _waiting(person, items.get("waiting_on", []), day),
        _open(items.get("questions_opened", []), items.get("tasks", [])),
    ]
    sentences = [s for s in sentences if s]
    for fact in extraction.facts:
        if len(sentences) >= 2:
            break
        if not any(_overlap(fact.text, said) > 0.5 for said in sentences):
            sentences.append(fact.text)
    held = items.get("questions_opened") or items.get("waiting_on") or items.get("tasks")
    if len(sentences) == 1 and not held:
        sentences.append("Nothing was left open.")
    if not sentences:
        people = [p["name"] for p in items.get("people", [])][:3]
        about = f" with {_joined(people)}" if people else ""
        talk = [u for u in extraction.reading.units if u.label != "small_talk"]
        first = (talk or extraction.reading.units or [None])[0]
        first = first.text if first is not None else ""
        topic = topic_of(first)
        said = f" about “{topic}”" if topic else ""
        sentences = [
            f"{person} talked{said}{about} on {day:%-d %B %Y}.",
            "Nothing was decided or left open.",
        ]
    kept: list[str] = []
    for sentence in sentences[:4]:
        sentence = phrases.capitalised(" ".join(sentence.split()))
        if len(" ".join([*kept, sentence])) > MAX_CHARS - 40:
            break  # whole sentences only
        kept.append(sentence)
    return " ".join(kept)


def _overlap(a: str, b: str) -> float:
    left = {w for w in re.findall(r"[a-z0-9]{3,}", a.casefold())}
    right = {w for w in re.findall(r"[a-z0-9]{3,}", b.casefold())}
    return len(left & right) / max(1, min(len(left), len(right)))


def topic_of(message: str) -> str:
    """A short topic for a conversation's first message: its first clause without the frame,
    at most eight words ("Hi! Can you help me plan Leo's party?" → "help me plan Leo's party")."""
    text = phrases.tidy(phrases.strip_frame(lexicon.normalise(message or "")))
    first = re.split(r"(?<=[.!?])\s+", text)[0] if text else ""
    first = re.sub(r"^(?:hi|hello|hey|morning|evening)\b[\s,!.]*", "", first, flags=re.I)
    return " ".join(first.rstrip("?.!").split()[:8])
