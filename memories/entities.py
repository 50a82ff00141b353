"""Named entities in a memory's text: people, organisations, projects and places.

The offline rules need no model and are always available: a capitalised span is a name unless it
is a common word that is capitalised only because it starts a sentence (or a weekday, a month,
"I"). Titles (Dr, Aunt, …) stay with the name they precede, and names are merged by their
normalised form, so "Dr Novak", "novak" and "Novak's" are one entity. The kind is a guess from
the words around the name and is "other" when nothing hints at one.

Days and schedules are not names, however they are capitalised ("Mondays", "Tuesdays and
Thursdays": the date parser's words, talkingrock/language/dates.py), and two names joined by "and"
are two entities ("Maya and Sam"), unless spaCy reads the whole as one name ("Procter and Gamble").
``worth_listing`` applies the same two rules to names stored before them, for the people page.

An LLM engine could extract better (seed 002: proper nouns only, as a JSON-schema call);
``register_extractor`` is the seam for one. None is registered: a model call for every stored
memory would turn an import of thousands into hours on a CPU. Memories kept from a conversation
get their people from the compression's extraction (by the model when it answers) as well as
from these rules: see ``memories.indexing``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date

from talkingrock import nlp
from talkingrock.language import dates

KINDS = ("person", "organisation", "project", "place", "other")

TITLES = {
    "dr", "doctor", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "sir", "dame",
    "aunt", "auntie", "uncle", "grandma", "grandpa", "granny", "nana", "cousin", "father",
    "sister", "brother", "saint", "st", "rev", "captain", "coach",
}  # fmt: skip

# Words that start sentences or stand capitalised without naming anything.
COMMON = set(
    """
    a about above after again against all also although always am an and another any anyone
    anything are around as at back be because been before being below best better between both
    but by can could dear did do does doing done down during each either else even ever every
    everyone everything few first for from further good great had has have having he hello her
    here hers herself hey hi him himself his how however i if in into is it its itself just last
    let lets like made make many maybe me might more most much must my myself never new next no
    nobody none nor not nothing now of off oh ok okay on once one only or other others our ours
    ourselves out over own perhaps please quite rather really right same see she should since so
    some someone something sometimes still such sure than thank thanks that the their theirs them
    themselves then there these they thing things this those though through to today tomorrow too
    totally under until up upon us very was we well were what whatever when where whether which
    while who whom whose why will wish with without wow would yeah yes yesterday yet you your
    yours yourself yourselves went got going go get remember remembered need needs wanted want
    plan plans planning call called tell told ask asked love loved hope glad sorry happy nice
    cool awesome amazing definitely absolutely exactly anyway btw lol haha note notes reminder
    todo done fixed check buy book pick bring take put keep send pay meet meeting
    """.split()
)
# The date parser's day and month words (with their short forms), and two feasts named alone.
WEEKDAYS_AND_MONTHS = {*dates.WEEKDAYS, *dates.MONTHS, "christmas", "easter"}
# The plural of a full weekday name is a schedule ("Mondays"); "Mars" is not "Mar".
_FULL_WEEKDAY_LENGTH = 6
ORGANISATION_WORDS = {
    "inc", "ltd", "llc", "plc", "corp", "corporation", "company", "co", "group", "bank",
    "school", "university", "college", "academy", "hospital", "clinic", "surgery", "council",
    "club", "society", "association", "foundation", "agency", "institute", "team", "studio",
    "services", "partners", "labs", "church",
}  # fmt: skip
PLACE_WORDS = {
    "street", "st", "road", "rd", "avenue", "ave", "lane", "drive", "way", "square", "park",
    "city", "town", "village", "beach", "lake", "river", "mountain", "mount", "hill", "island",
    "station", "airport", "market", "centre", "center", "gardens", "bay", "valley", "county",
}  # fmt: skip
FAMILY = {"mum", "mom", "mummy", "mother", "dad", "daddy", "grandma", "grandpa", "granny", "nana"}
# Sentence-initial words with these endings are verbs and adverbs far more often than names.
_INFLECTIONS = ("ing", "ed", "ly")
SUBJECT_VERBS = set(
    """
    is was has had have said says called calls wants wanted likes liked loves loved lives lived
    works worked went goes will would can could should and thinks thought told asks asked needs
    needed prefers prefered preferred starts started moved moves got gets came comes knows knew
    """.split()
)
PROJECT_CUES = {"project", "app", "plan", "programme", "program", "campaign", "initiative"}
PLACE_CUES = {"in", "to", "from", "near", "visiting", "visit", "at"}

MAX_NAME_WORDS = 5
# A word: letters first, then letters or digits, with inner apostrophes and hyphens (O'Brien,
# Novak's, Jean-Luc). Punctuation between words ends a name, except the dot after a title.
_WORD = re.compile(r"[^\W\d_]\w*(?:['’-]\w+)*", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?:;\n\"“”()\[\]]\s*$")
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
_CONNECTORS = {"of", "de", "van", "von", "da", "del", "la", "le", "the", "and", "&"}
_AND = "and"
# What spaCy reads "X and Y" as when it is one name: a firm, a building, a title, a place.
_ONE_NAME_LABELS = {"ORG", "FAC", "WORK_OF_ART", "PRODUCT", "EVENT", "GPE", "LOC"}
# Any day will do: whether a text names a day does not depend on which day it is read on.
_A_DAY = date(2000, 1, 3)


# Words that open a direct address: "Thanks, Mel!", "hey Nate", "Wow Caroline, …".
ADDRESS_OPENERS = set(
    """
    hey hi hiya hello yo dear thanks thank thx ty cheers congrats congratulations wow oh ooh aw
    aww omg yes yeah yep yup no nope ok okay sorry bye night morning evening welcome well haha
    lol love miss see
    """.split()
)


@dataclass(frozen=True)
class ExtractedEntity:
    name: str  # as written, without a possessive
    normalized: str
    kind: str
    # Every time the text names them, it speaks to them ("Thanks, Mel!"): the memory is said
    # to them, not about them (recall's named lift leaves such mentions out).
    addressed: bool = False


def normalize(name: str) -> str:
    """The key entities are merged on: no diacritics, titles or possessive, folded case."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    words = [_POSSESSIVE.sub("", w.strip(".,'’")).casefold() for w in text.split()]
    words = [w for w in words if w]
    while len(words) > 1 and words[0] in TITLES:
        words = words[1:]
    return " ".join(words)


def _is_capitalised(word: str) -> bool:
    return word[:1].isupper()


def _bare(word: str) -> str:
    return _POSSESSIVE.sub("", word).casefold()


def _looks_like_a_verb(word: str) -> bool:
    """Third person singular: "Kel leads", "Sam prefers" (not "ss": "Boss", "Glass")."""
    return len(word) > 3 and word.endswith("s") and not word.endswith("ss")


def _guess_kind(words: list[str], before: str, after: str) -> str:
    bare = [_bare(w) for w in words]
    if (bare[0] in TITLES and len(bare) > 1) or (len(bare) == 1 and bare[0] in FAMILY):
        return "person"
    # The head word decides: "Acme Ltd", "Bank of England", "Baker Street", "Lake Tahoe".
    ends = {bare[0], bare[-1], bare[-1].removesuffix("s")} if len(bare) > 1 else set()
    if ends & ORGANISATION_WORDS:
        return "organisation"
    if ends & PLACE_WORDS:
        return "place"
    if before in PROJECT_CUES or after in PROJECT_CUES or bare[-1] in PROJECT_CUES:
        return "project"
    if before in PLACE_CUES and before != "at":
        return "place"
    return "other"


def is_addressed(text: str, start: int, end: int) -> bool:
    """Whether the name at ``text[start:end]`` is a direct address: it closes its clause (a
    comma, ! ? . or the end follows) and opens one or follows a greeting or thanks ("Hey Nate!",
    "Thanks, Mel.", "…, Caroline!"), or it opens a sentence and a comma follows ("Mel, look")."""
    if _POSSESSIVE.search(text[start:end]):
        return False
    before = text[:start].rstrip()
    after = text[end:].lstrip(" \t")
    opens = not before or before[-1] in ",.!?;:(\n"
    if opens and before[-1:] != "," and after[:1] == ",":
        return True
    if not (after[:1] in ("", ",", "!", "?", ".", "\n", ")", "-", "—") or after[:2] == ":)"):
        return False
    last = _WORD.findall(before[-20:])
    return opens or (bool(last) and last[-1].casefold() in ADDRESS_OPENERS)


def _spans(text: str):
    """Runs of capitalised words (joined by short connectors such as "of"), each word's match,
    the word before the run and whether the run starts a sentence."""
    matches = list(_WORD.finditer(text))
    index = 0
    while index < len(matches):
        match = matches[index]
        word = match.group()
        if not _is_capitalised(word):
            index += 1
            continue
        start_index = index
        sentence_start = index == 0 or bool(_SENTENCE_END.search(text[: match.start()]))
        words = [match]
        index += 1
        while index < len(matches) and len(words) < MAX_NAME_WORDS:
            between = text[matches[index - 1].end() : matches[index].start()]
            candidate = matches[index].group()
            after_title = between.strip() == "." and _bare(words[-1].group()) in TITLES
            if (between.strip() and not after_title) or "\n" in between:
                break  # punctuation ends the name
            if _is_capitalised(candidate):
                words.append(matches[index])
                index += 1
            elif (
                candidate.casefold() in _CONNECTORS
                and index + 1 < len(matches)
                and _is_capitalised(matches[index + 1].group())
                and not text[matches[index].end() : matches[index + 1].start()].strip()
            ):
                words += [matches[index], matches[index + 1]]
                index += 2
            else:
                break
        before = matches[start_index - 1].group().casefold() if start_index else ""
        speaker = text[matches[index - 1].end() :].startswith(":") and sentence_start
        after = matches[index].group().casefold() if index < len(matches) else ""
        yield words, before, after, sentence_start, speaker


def _is_time_word(bare: str) -> bool:
    """A day or a month ("monday", "tues", "june"), or a full weekday in the plural ("mondays")."""
    if bare in WEEKDAYS_AND_MONTHS:
        return True
    single = bare.removesuffix("s")
    return len(single) >= _FULL_WEEKDAY_LENGTH and single in dates.WEEKDAYS


def names_a_time(name: str) -> bool:
    """Whether ``name`` only says when: days, months and schedules ("Mondays", "Tuesdays and
    Thursdays", "Sunday Nights", "Wednesday 25 November")."""
    words = [_bare(w) for w in _WORD.findall(name)]
    words = [w for w in words if w not in _CONNECTORS]
    if words and all(_is_time_word(w) for w in words):
        return True
    said = dates.find(name, today=_A_DAY)
    return bool(said) and said[0].start == 0 and said[-1].end >= len(name.rstrip(" .,"))


def _one_name(doc, start: int, end: int) -> bool:
    """Whether spaCy reads ``text[start:end]`` ("X and Y") as a single name."""
    return any(
        ent.start_char <= start and ent.end_char >= end and ent.label_ in _ONE_NAME_LABELS
        for ent in doc.ents
    )


def _split_at_and(matched: list, parsed: Callable) -> list[list]:
    """A span's names: "Maya and Sam" is two, "Procter and Gamble" one (spaCy, on the text the
    span stands in, decides only when there are two names to part)."""
    groups: list[list] = [[]]
    for word in matched:
        if _bare(word.group()) == _AND:
            groups.append([])
        else:
            groups[-1].append(word)
    groups = [group for group in groups if group]
    names = [g for g in groups if not all(_is_time_word(_bare(w.group())) for w in g)]
    if len(names) >= 2 and _one_name(parsed(), matched[0].start(), matched[-1].end()):
        return [matched]
    return groups


def _parts(text: str, spans: list):
    """Each span's names, split at "and", each without the leading words capitalised only by
    position or by habit (a weekday, "I", a common word opening a sentence)."""
    doc = []

    def parsed():
        if not doc:
            doc.append(nlp.entities([text])[0])
        return doc[0]

    for matched, before, after, sentence_start, speaker in spans:
        groups = _split_at_and(matched, parsed)
        for index, group in enumerate(groups):
            first, last = index == 0, index == len(groups) - 1
            starts = sentence_start and first
            if _is_time_word(_bare(group[0].group())) and names_a_time(
                text[group[0].start() : group[-1].end()]
            ):
                continue  # "Sunday Nights": a time, not "Nights"
            while group:
                bare = _bare(group[0].group())
                if _is_time_word(bare) or bare == "i" or bare.startswith("i'"):
                    group = group[1:]
                elif starts and (bare in COMMON or bare.endswith(_INFLECTIONS)):
                    group, starts = group[1:], False
                else:
                    break
            if group:
                yield group, before if first else _AND, after if last else _AND, starts, speaker


def extract_offline(text: str) -> list[ExtractedEntity]:
    """Names in ``text`` by the offline rules, in order of first appearance, merged."""
    spans = list(_spans(text))
    # A word capitalised in mid-sentence somewhere is a name wherever it stands.
    named = {
        _bare(w.group())
        for matched, _, _, start, _ in spans
        for w in matched[(1 if start else 0) :]
    }
    found: dict[str, ExtractedEntity] = {}
    for matched, before, after, sentence_start, speaker in _parts(text, spans):
        words = [w.group() for w in matched]
        # One capitalised word opening a sentence ("Lunch with…") is a name only when it acts
        # like one: a speaker, a possessive, the subject of a verb, or capitalised elsewhere.
        if (
            len(words) == 1
            and sentence_start
            and not speaker
            and _bare(words[0]) not in named
            and not _POSSESSIVE.search(words[0])
            and after not in SUBJECT_VERBS
            and not _looks_like_a_verb(after)
        ):
            continue
        if all(_bare(w) in TITLES for w in words) or names_a_time(" ".join(words)):
            continue
        if len(words) == 1 and (len(_bare(words[0])) < 2 or _bare(words[0]) in COMMON):
            continue
        name = _POSSESSIVE.sub("", " ".join(words))
        key = normalize(name)
        if not key:
            continue
        addressed = not speaker and is_addressed(text, matched[0].start(), matched[-1].end())
        if key in found:  # named again: addressed only if every mention is
            if found[key].addressed and not addressed:
                found[key] = replace(found[key], addressed=False)
            continue
        kind = "person" if speaker else _guess_kind(words, before, after)
        found[key] = ExtractedEntity(name=name, normalized=key, kind=kind, addressed=addressed)
    return list(found.values())


def worth_listing(name: str) -> bool:
    """Whether a stored entity's name names someone or something: not a day or a schedule, not
    two names joined by "and" (kept before these rules parted them), not a stray "and Friday"."""
    words = name.split()
    if not words or words[0].casefold() in (_AND, "&") or names_a_time(name):
        return False
    if not any(word.casefold() in (_AND, "&") for word in words[1:-1]):
        return True
    return _one_name(nlp.entities([name])[0], 0, len(name))


def listed(entities: Iterable) -> list:
    """The entities (anything with a ``name``) worth listing, in the order given."""
    return [entity for entity in entities if worth_listing(entity.name)]


Extractor = Callable[[str], list[ExtractedEntity]]
_extractor: Extractor = extract_offline


def register_extractor(extractor: Extractor | None) -> None:
    """The seam for the LLM engine's extractor, which falls back to these rules on its own
    failures; None restores the offline rules."""
    global _extractor
    _extractor = extractor or extract_offline


def extract(text: str) -> list[ExtractedEntity]:
    return _extractor(text)
