"""Named entities in a memory's text: people, organisations, projects and places.

The offline rules need no model and are always available: a capitalised span is a name unless it
is a common word that is capitalised only because it starts a sentence (or a weekday, a month,
"I"). Titles (Dr, Aunt, …) stay with the name they precede, and names are merged by their
normalised form, so "Dr Novak", "novak" and "Novak's" are one entity. The kind is a guess from
the words around the name and is "other" when nothing hints at one.

An LLM engine could extract better (seed 002: proper nouns only, as a JSON-schema call);
``register_extractor`` is the seam for one. None is registered: a model call for every stored
memory would turn an import of thousands into hours on a CPU. Memories kept from a conversation
get their people from the compression's extraction (by the model when it answers) as well as
from these rules: see ``memories.indexing``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace

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
WEEKDAYS_AND_MONTHS = set(
    """
    monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri
    sat sun january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec christmas easter
    """.split()
)
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
    for matched, before, after, sentence_start, speaker in spans:
        # Drop leading words that are capitalised only by position or by habit.
        while matched:
            bare = _bare(matched[0].group())
            if bare in WEEKDAYS_AND_MONTHS or bare == "i" or bare.startswith("i'"):
                matched = matched[1:]
            elif sentence_start and (bare in COMMON or bare.endswith(_INFLECTIONS)):
                matched, sentence_start = matched[1:], False
            else:
                break
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
        if not words or all(_bare(w) in TITLES for w in words):
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


Extractor = Callable[[str], list[ExtractedEntity]]
_extractor: Extractor = extract_offline


def register_extractor(extractor: Extractor | None) -> None:
    """The seam for the LLM engine's extractor, which falls back to these rules on its own
    failures; None restores the offline rules."""
    global _extractor
    _extractor = extractor or extract_offline


def extract(text: str) -> list[ExtractedEntity]:
    return _extractor(text)
