"""From what each clause does to the items of a memory (seed 003's extraction): the people named,
tasks, decisions (with their reason), waiting-ons (who owes what, by when), questions the member
is holding. A question put to the assistant leaves no item: the chat answers it from memory.
"""

from __future__ import annotations

from datetime import date

from talkingrock.language import parsed
from talkingrock.language.offline import lexicon, phrases
from talkingrock.language.offline.reading import Reading, Unit
from talkingrock.language.offline.waiting import waiting

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
        if _opens_the_clause(unit, token):
            continue  # "hey so we're doing the kitchen": how it starts, not why
        if token.lower_ in _REASON_MARKS and token.dep_ in ("mark", "cc", "prep", "advmod"):
            head = token.head
            reason = [t for t in unit.tokens if t.i >= token.i and t in head.subtree]
            if len(reason) > 2 and head.dep_ in ("advcl", "conj", "ccomp", "prep", "ROOT"):
                keep = [t for t in unit.tokens if t not in reason]
                return keep, reason[1:]
    return list(unit.tokens), []


def _opens_the_clause(unit: Unit, token) -> bool:
    """Whether ``token`` comes before anything but greetings and openers ("hey so …", "ok so
    …")."""
    before = [t for t in unit.tokens if t.i < token.i]
    return all(t.is_punct or t.pos_ == "INTJ" or t.lower_ in phrases.OPENERS for t in before)


def _clip(text: str) -> str:
    text = phrases.tidy(text)
    if len(text) <= MAX_TEXT:
        return text
    cut = text[:MAX_TEXT].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


# Verbs that frame a choice or an action said about it: "told him go with the oak", "decided
# we'd keep the sink", "agreed to paint it green". What follows them is the choice itself.
_FRAME_VERBS = frozenset("tell say decide agree think reckon guess suppose reply".split())


# Said between a framing word and the choice when the choice is not its complement: "so
# decided: carer twice a day", "decision made - the travelodge", "we agreed, no more takeaways".
_FRAME_BREAKS = frozenset({":", "-", "–", "—", ","})


def _framing(token) -> bool:
    return (token.lemma_.lower() in _FRAME_VERBS and token.pos_ == "VERB") or (
        token.lemma_.lower() == "decision"
    )


def _core(unit: Unit, tokens: list) -> list:
    """The part of the clause that is the choice or the action: what a framing word frames
    ("told him go with the oak" → "go with the oak"). Its complement, from the framing word on
    ("after all that we decided to keep the sofa": not "that"), or else what follows it past a
    colon, a dash or a comma. A frame inside another's complement is the one that frames the
    choice ("I don't think she'd cope so decided: carer twice a day")."""
    framing = [t for t in tokens if _framing(t)]
    for token in framing:
        complements = [c for c in token.children if c.dep_ in ("xcomp", "ccomp")]
        if token.pos_ == "VERB" and complements:
            subtree = set(complements[0].subtree)
            if any(other in subtree for other in framing if other is not token):
                continue  # the frame inside frames the choice
            core = [t for t in tokens if t in subtree and t.i > token.i]
            if len(core) >= 2:
                return core
        after = [t for t in tokens if t.i > token.i]
        for n, word in enumerate(after[:3]):  # "decision made - …"
            if word.text in _FRAME_BREAKS:
                rest = after[n + 1 :]
                if any(t.is_alpha for t in rest):
                    return rest
                break
            if not word.is_alpha:
                break
    return tokens


def _in_base_form(unit: Unit, text: str) -> str:
    """ "went with quartz after all" → "go with quartz after all": a decision is written as the
    choice, whatever tense it was told in."""
    first, _, rest = text.partition(" ")
    for token in unit.tokens:
        if (
            token.lower_ == first.lower()
            and token.pos_ == "VERB"
            and token.tag_ in ("VBD", "VBN", "VBG")
        ):
            return f"{token.lemma_.lower()} {rest}".strip()
    return text


def _until_another_clause(unit: Unit, tokens: list) -> list:
    """ "going with quartz instead, butcher block needs oiling" → "going with quartz instead":
    the choice ends at a comma after which another clause has its own subject (a reason or an
    aside told without "because"), once a choice has been said ("changed our minds," is not
    one)."""
    for n, token in enumerate(tokens):
        if token.text in (",", ";", "-", "—") and n >= 2:
            after = tokens[n + 1 :]
            said = phrases.strip_frame(phrases.choice_of(_words(unit, tokens[:n])))
            if len(said.split()) >= 2 and any(
                t.dep_ in ("nsubj", "nsubjpass") and t.head in after for t in after
            ):
                return tokens[:n]
    return tokens


def decision(unit: Unit) -> dict[str, str]:
    body, reason = _split_reason(unit)
    core = _until_another_clause(unit, _core(unit, body))
    choice = phrases.strip_frame(phrases.choice_of(_words(unit, core)))
    row = {"what": _clip(_in_base_form(unit, choice))}
    if reason:
        row["why"] = _clip(phrases.strip_openers(_words(unit, reason)))
    return row


_TERSE = 2  # content words: "quartz", "switch insurance" say the choice, not what it is about
_LOOK_BACK = 6  # clauses


def _content(tokens) -> set[str]:
    return {
        t.lemma_.lower()
        for t in tokens
        if t.is_alpha and not t.is_stop and t.pos_ in ("NOUN", "PROPN", "VERB", "ADJ", "NUM")
    }


def fuller(unit: Unit, reading: Reading, row: dict[str, str]) -> dict[str, str]:
    """A terse choice ("fine, quartz it is") said after the clause that told what it is about
    ("we're switching the worktops to quartz") is written as that clause's choice: the nearest
    earlier clause of the member, a few back, that holds every word of the choice and more."""
    said = _content(unit.tokens)
    if not said or len(row["what"].split()) > _TERSE:
        return row
    for earlier in reversed(reading.units[max(0, unit.index - _LOOK_BACK) : unit.index]):
        theirs = _content(earlier.tokens)
        if said <= theirs and len(theirs - said) >= 2 and earlier.label not in _NOT_A_CHOICE:
            fuller_row = decision(earlier)
            if len(fuller_row["what"].split()) > len(row["what"].split()):
                return {**row, "what": fuller_row["what"]}
    return row


_NOT_A_CHOICE = frozenset({"question_to_assistant", "small_talk", "waiting_on", "task"})


# Words that end the action and start why ("get him pyjamas because he can't lift his arm").
_REASON_WORDS = frozenset({"because", "cos", "coz", "cuz", "since"})
_JOINS = frozenset({"and", "then", "&", "plus", ","})


def _starts_action(token) -> bool:
    """A verb in its base form that begins an action: "book", "pack", "ring"."""
    return token.lower_ in lexicon.ACTION_VERBS or (
        token.tag_ == "VB" and token.lemma_.lower() == token.lower_
    )


def actions(tokens: list) -> list[list]:
    """One list of tokens per action: a clause that strings several together ("get him pyjamas
    because he can't lift his arm and pack him a bag and book the day off") is cut where a join
    is followed by an action verb, and each piece loses its reason."""
    pieces: list[list] = [[]]
    for n, token in enumerate(tokens):
        following = tokens[n + 1] if n + 1 < len(tokens) else None
        joins = token.lower_ in _JOINS and following is not None and _starts_action(following)
        if joins and len(pieces[-1]) >= 2:
            pieces.append([])
            continue
        pieces[-1].append(token)
    kept = []
    for piece in pieces:
        cut = next((n for n, t in enumerate(piece) if t.lower_ in _REASON_WORDS and n >= 2), None)
        kept.append(piece[:cut] if cut is not None else piece)
    return [piece for piece in kept if any(t.is_alpha for t in piece)]


def tasks(unit: Unit, today: date) -> list[dict[str, str]]:
    found = []
    for piece in actions(list(_core(unit, list(unit.tokens)))):
        description = _clip(phrases.strip_frame(_words(unit, piece)))
        if len(description.split()) >= 2:
            found.append({"description": description, **when_fields(_words(unit, piece), today)})
    return found


def when_fields(text: str, today: date) -> dict[str, str]:
    """The day (and time) an item's words name, beside them: "due" for a deadline ("by friday"),
    "on" and "at" otherwise ("thursday at 9"). The words themselves are left as they were said."""
    found = parsed.parse(text, said_on=today)
    for mention in found.when:
        if "date" not in mention:
            continue
        if mention.get("lead") in ("by", "before", "till", "until"):
            return {"due": mention["date"]}
        return {"on": mention["date"], **({"at": mention["time"]} if "time" in mention else {})}
    return {}


MIN_QUESTION_WORDS = 3  # "just don't know?", "will think?" hold nothing anyone could answer


def question(unit: Unit, member: str, today: date) -> dict[str, str] | None:
    """The question held, as the member put it ("whether we do the floors now or after
    Christmas"): its frame taken off, nothing rewritten."""
    body = phrases.tidy(phrases.question_of(_words(unit)))
    if len(body.split()) < MIN_QUESTION_WORDS:
        return None
    return {"question": _clip(body)[: MAX_TEXT - 1] + "?"}


_FIRST_PERSON = frozenset({"i", "we", "me", "us"})


def _chosen_by_the_household(unit: Unit, reading: Reading) -> bool:
    """A change of mind is the household's decision when they are its subject ("we're switching
    to quartz", "went with the pavilion"); "football's moved to Wednesdays" is news, kept as a
    fact (and a supersession), not a decision someone made."""
    # The first verb says who changed it; a clause that opens with its verb ("changed our
    # minds, going with quartz") is the member's own.
    verb = next((t for t in unit.tokens if t.pos_ in ("VERB", "AUX")), None)
    if verb is None:
        return True
    subjects = [t for t in verb.children if t.dep_ in ("nsubj", "nsubjpass")]
    if not subjects:
        return True
    return any(of_the_household(t, reading.household) for t in subjects)


def of_the_household(subject, household: list[str]) -> bool:
    """Whether the subject ``subject`` (a token) is the member ("I", "we") or one of the
    ``household`` by name."""
    members = {name.casefold() for name in household}
    return subject.lower_ in _FIRST_PERSON or subject.text.casefold() in members


def items(reading: Reading, today: date, by_unit: dict | None = None) -> dict[str, list[dict]]:
    """Every item of the conversation, each kept once (by its main text). ``by_unit`` (when
    given) receives each decision under the clause that made it."""
    found = _empty()
    people: dict[str, dict[str, str]] = {}
    for unit in reading.units:
        for person in unit.people:
            people.setdefault(person.name, {"name": person.name, "relation": person.relation})
        if unit.label == "decision" or (
            unit.label == "change_of_mind" and _chosen_by_the_household(unit, reading)
        ):
            row = fuller(unit, reading, decision(unit))
            found["decisions"].append(row)
            if by_unit is not None:
                by_unit[unit.index] = row
        elif unit.label == "task":
            found["tasks"] += tasks(unit, today)
        elif unit.label == "waiting_on":
            previous = reading.units[unit.index - 1] if unit.index else None
            if row := waiting(unit, today, previous):
                found["waiting_on"].append(row)
        elif unit.label == "question_held":
            if row := question(unit, reading.member, today):
                found["questions_opened"].append(row)
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
