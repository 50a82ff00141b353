"""From what each clause does to the items of a memory (seed 003's extraction): the people named,
tasks, decisions (with their reason), waiting-ons (who owes what, by when), questions the member
is holding. A question put to the assistant leaves no item: the chat answers it from memory.
"""

from __future__ import annotations

from datetime import date

from conversations.offline import dates, phrases
from conversations.offline.reading import Reading, Unit

MAX_ITEMS = 20
MAX_TEXT = 300
KINDS = (
    "people",
    "tasks",
    "decisions",
    "waiting_on",
    "questions_resolved",
    "questions_opened",
    "blockers_cleared",
    "insights",
)
# The parse's relations that hold what a decision is about or why.
_REASON_MARKS = frozenset({"because", "since", "as", "so"})
_OWED_VERBS = frozenset(
    "send give get quote confirm tell call ring email text reply answer come bring pay fix "
    "drop deliver sort post book check let".split()
)


def _empty() -> dict[str, list[dict[str, str]]]:
    return {kind: [] for kind in KINDS}


def _names(unit: Unit) -> set[int]:
    spelled = {person.name.casefold() for person in unit.people}
    return {t.i for t in unit.tokens if t.lower_ in {w for n in spelled for w in n.split()}}


def _words(unit: Unit, tokens=None) -> str:
    return phrases.words_of(tokens or unit.tokens, unit.referents, names=_names(unit))


def _split_reason(unit: Unit) -> tuple[list, list]:
    """(the clause without its "because …" part, that part)."""
    for token in unit.tokens:
        if token.lower_ in _REASON_MARKS and token.dep_ in ("mark", "cc", "prep", "advmod"):
            head = token.head
            reason = [t for t in unit.tokens if t.i >= token.i and t in head.subtree]
            if len(reason) > 2 and head.dep_ in ("advcl", "conj", "ccomp", "prep", "ROOT"):
                keep = [t for t in unit.tokens if t not in reason]
                return keep, reason[1:]
    return list(unit.tokens), []


def _clip(text: str) -> str:
    text = phrases.tidy(text)
    if len(text) <= MAX_TEXT:
        return text
    cut = text[:MAX_TEXT].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


# Verbs that frame a choice or an action said about it: "told him go with the oak", "decided
# we'd keep the sink", "agreed to paint it green". What follows them is the choice itself.
_FRAME_VERBS = frozenset("tell say decide agree think reckon guess suppose reply".split())


def _core(unit: Unit, tokens: list) -> list:
    """The part of the clause that is the choice or the action: the complement of a framing
    verb when there is one ("told him go with the oak" → "go with the oak")."""
    for token in tokens:
        if token.lemma_.lower() in _FRAME_VERBS and token.pos_ == "VERB":
            complements = [c for c in token.children if c.dep_ in ("xcomp", "ccomp")]
            if complements:
                subtree = set(complements[0].subtree)
                core = [t for t in tokens if t in subtree]
                if len(core) >= 2:
                    return core
    return tokens


def decision(unit: Unit) -> dict[str, str]:
    body, reason = _split_reason(unit)
    what = _clip(phrases.strip_frame(_words(unit, _core(unit, body))))
    row = {"what": what}
    if reason:
        row["why"] = _clip(phrases.strip_openers(_words(unit, reason)))
    return row


def task(unit: Unit) -> dict[str, str]:
    body, _ = _split_reason(unit)
    description = _clip(phrases.strip_frame(_words(unit, _core(unit, body))))
    return {"description": description, "status": "decided"}


def waiting(unit: Unit, today: date) -> dict[str, str]:
    who = unit.people[0].name if unit.people else ""
    if not who and unit.referents:
        who = next(iter(unit.referents.values())).name
    what = ""
    for token in unit.tokens:
        if token.lemma_.lower() in _OWED_VERBS:
            objects = [c for c in token.children if c.dep_ in ("dobj", "attr")]
            if objects:
                what = phrases.words_of(list(objects[0].subtree), unit.referents)
                break
    if not what:
        for token in unit.tokens:
            if token.lower_ in ("on", "about", "for", "with") and token.dep_ == "prep":
                objects = [c for c in token.children if c.dep_ == "pobj"]
                if objects and not objects[0].ent_type_:
                    what = phrases.words_of(list(objects[0].subtree), unit.referents)
                    break
    if not what:
        named = {t.i for t in unit.tokens if t.i in _names(unit) or t.i in unit.referents}
        rest = [t for t in _core(unit, list(unit.tokens)) if t.i not in named]
        what = phrases.strip_frame(_words(unit, rest)) if rest else ""
    if not who:
        subject = next((t for t in unit.tokens if t.dep_ == "nsubj" and t.pos_ == "NOUN"), None)
        who = phrases.words_of(list(subject.subtree)) if subject is not None else ""
    row = {"who": _clip(who), "what": _clip(what), "since": today.isoformat()}
    _, found = dates.resolve(unit.text, today)
    if found:
        row["by"] = dates.spoken(found[-1])
    return row


def question(unit: Unit) -> dict[str, str]:
    body = phrases.tidy(phrases.question_of(_words(unit)))
    return {"question": (_clip(body)[: MAX_TEXT - 1] + "?") if body else ""}


def items(reading: Reading, today: date, by_unit: dict | None = None) -> dict[str, list[dict]]:
    """Every item of the conversation, each kept once (by its main text). ``by_unit`` (when
    given) receives each decision under the clause that made it."""
    found = _empty()
    people: dict[str, dict[str, str]] = {}
    for unit in reading.units:
        for person in unit.people:
            people.setdefault(person.name, {"name": person.name, "relation": person.relation})
        if unit.label in ("decision", "change_of_mind"):
            row = decision(unit)
            found["decisions"].append(row)
            if by_unit is not None:
                by_unit[unit.index] = row
        elif unit.label == "task":
            found["tasks"].append(task(unit))
        elif unit.label == "waiting_on":
            found["waiting_on"].append(waiting(unit, today))
        elif unit.label == "question_held":
            found["questions_opened"].append(question(unit))
    found["people"] = list(people.values())
    return {kind: _once(kind, rows)[:MAX_ITEMS] for kind, rows in found.items()}


_MAIN = {
    "people": "name",
    "tasks": "description",
    "decisions": "what",
    "waiting_on": "what",
    "questions_opened": "question",
    "questions_resolved": "question",
    "blockers_cleared": "what",
    "insights": "insight",
}


def _once(kind: str, rows: list[dict[str, str]]) -> list[dict[str, str]]:
    seen, kept = set(), []
    for row in rows:
        main = " ".join(row.get(_MAIN[kind], "").casefold().split())
        if main and main not in seen:
            seen.add(main)
            kept.append({key: value for key, value in row.items() if value})
    return kept
