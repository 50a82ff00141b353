"""The offline engine: deterministic rules that do every compression stage without a model.

It is always available, so the whole lifecycle works when Ollama does not run. It reads only
the member's turns for facts (an assistant's turn may hold a question the member answers), finds
sentences by their cue phrases ("decided to", "waiting on … to", "I need to", a question mark…),
and keeps the phrase after the cue. docs/extraction.md gives its precision and recall on
hand-written transcripts, and the phrasings it misses.
"""

from __future__ import annotations

import re
from datetime import date

MAX_ITEMS = 20
MAX_TEXT = 300

STOPWORDS = frozenset(
    """a an the and or but if of to in on at for with about from by as is are was were be been
    being it its this that these those i me my we our you your he she they them his her their
    do does did done have has had will would shall should can could may might must not no so
    just really very also too then than there here what which who whom whose when where why how
    all any some more most other into over again up down out off only own same such get got
    going go let us""".split()
)
NOT_NAMES = frozenset(
    """I I'm I've I'll I'd The A An And But So Or If Then When While What Which Who Why How
    Where Yes No Ok Okay Thanks Thank Hi Hello Hey Well Also Maybe Perhaps Just Actually Anyway
    Today Tomorrow Yesterday Tonight Monday Tuesday Wednesday Thursday Friday Saturday Sunday
    January February March April May June July August September October November December
    We We're We'll Our You Your He She They It It's That This There Here Let Let's Sure
    Good Great Right Fine Done Also Oh Um Uh Hmm Please Not Still Now Next Last Both Every
    English Christmas Easter""".split()
)
TITLES = ("Dr", "Mr", "Mrs", "Ms", "Prof", "Aunt", "Uncle", "Grandma", "Grandpa", "Nan", "Auntie")
RELATIONS = (
    "wife husband partner son daughter mother mum mom father dad brother sister sibling friend "
    "colleague boss manager neighbour neighbor teacher doctor dentist plumber electrician builder "
    "landlord cousin aunt uncle grandma grandpa client accountant lawyer coach nanny"
).split()
FILLER = re.compile(r"^(?:um+|uh+|so|well|ok(?:ay)?|anyway|and|but|just|also|then),?\s+", re.I)

_ABBREVIATIONS = re.compile(r"\b(Dr|Mr|Mrs|Ms|Prof|St|vs|etc|e\.g|i\.e)\.", re.I)
_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    """Sentences, with the dot of "Dr." kept as a one-dot leader until ``_clean`` restores it."""
    protected = _ABBREVIATIONS.sub(lambda m: m.group(1) + "\u2024", text)
    return [part.strip() for part in _SPLIT.split(protected) if part and part.strip()]


def _clean(phrase: str) -> str:
    phrase = phrase.replace("\u2024", ".").strip()
    while (stripped := FILLER.sub("", phrase)) != phrase:
        phrase = stripped
    phrase = re.sub(r"\s+", " ", phrase).strip(" ,;:-—")
    phrase = re.sub(r"[.!]+$", "", phrase).strip()
    return phrase[:MAX_TEXT]


def content_words(text: str) -> set[str]:
    return {_stem(word) for word in re.findall(r"[a-z0-9']+", text.casefold())} - STOPWORDS - {""}


def _stem(word: str) -> str:
    word = word.strip("'")
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def overlap(a: str, b: str) -> float:
    """Share of the shorter text's content words that the other one has."""
    left, right = content_words(a), content_words(b)
    if not left or not right:
        return 0.0
    return len(left & right) / min(len(left), len(right))


# --- stage 1: entities ---------------------------------------------------------------------------

DECISION = re.compile(
    r"\b(?:we(?:'ve| have)?|i(?:'ve| have)?|they)?\s*(?:decided|agreed|settled on|chose|chosen|"
    r"(?:we'll|we will|let's|let us|i'm going to|i'll|going to) go with|i'm going with|"
    r"we're going with|the decision is)\b(?:\s+to\b|\s+that\b)?\s*(?P<what>[^.!?]+)",
    re.I,
)
WAITING = re.compile(
    r"\bwaiting (?:on|for) (?P<who>(?:(?:Dr|Mr|Mrs|Ms)\.? )?[A-Z][\w'-]+(?: [A-Z][\w'-]+)?|"
    r"the [a-z]+|my [a-z]+|our [a-z]+)(?:'s)?\s*(?:to\s+(?P<to>[^.!?]+)|for\s+(?P<for>[^.!?]+)|"
    r"(?P<rest>[^.!?]*))",
)
OWES = re.compile(
    r"\b(?P<who>[A-Z][\w'-]+) (?:still hasn't|still has not|hasn't yet|owes (?:me|us)) "
    r"(?P<what>[^.!?]+)"
)
TASK = re.compile(
    r"\b(?:i|we) (?:really )?(?:need to|have to|must|should|will|'ll|am going to|'m going to|"
    r"are going to|'re going to|plan to)\s+(?P<what>[^.!?]+)|\btodo:\s*(?P<todo>[^.!?]+)|"
    r"\b(?:i|we)(?:'ll| will) (?P<will>[^.!?]+)",
    re.I,
)
DONE = re.compile(
    r"\b(?:i|we)(?:'ve| have)? (?:finally )?(?:finished|completed|done with|sorted out|"
    r"booked|paid|sent|fixed)\s+(?P<what>[^.!?]+)",
    re.I,
)
WONDER = re.compile(
    r"\b(?:i wonder|not sure|i don't know|open question(?: is)?:?)\s+"
    r"(?P<q>(?:whether|if|how|what|when|where|who|which|why)\b[^.!?]+)",
    re.I,
)
ANSWER = re.compile(
    r"\b(?:figured out|found out|turns out|it turned out|the answer is|worked out)\b[:,]?\s*"
    r"(?P<a>[^.!?]*)",
    re.I,
)
UNBLOCKED = re.compile(
    r"(?P<what>[^.!?]*?)\b(?:is|are|got)? ?(?:sorted|fixed|resolved|approved|cleared)\b"
    r"[^.!?]*?\bso (?:we|i|they) can (?P<unblocks>[^.!?]+)|\b(?:unblocked|no longer blocked)\b"
    r"\s*(?P<what2>[^.!?]*)",
    re.I,
)
INSIGHT = re.compile(
    r"\b(?:i realised|i realized|i've realised|i've realized|the lesson is|what i learned is|"
    r"i learned that)\b[:,]?\s*(?:that\s+)?(?P<insight>[^.!?]+)",
    re.I,
)
NAME = re.compile(
    r"\b(?:(?P<title>"
    + "|".join(TITLES)
    + r")[.\u2024]? )?(?P<name>[A-Z][a-z'’-]+(?: [A-Z][a-z'’-]+)?)"
)
RELATION_BEFORE = re.compile(
    r"\b(?:my|our)\s+(?P<relation>" + "|".join(RELATIONS) + r")\s*,?\s*$", re.I
)
RELATION_AFTER = re.compile(
    r"^\s*,?\s*(?:my|our)\s+(?P<relation>" + "|".join(RELATIONS) + r")\b", re.I
)

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


class _Collector:
    def __init__(self) -> None:
        self.found: dict[str, list[dict[str, str]]] = {kind: [] for kind in KINDS}
        self._seen: dict[str, set[str]] = {kind: set() for kind in KINDS}

    def add(self, kind: str, key: str, item: dict[str, str]) -> None:
        norm = " ".join(sorted(content_words(key))) or key.casefold().strip()
        if not key.strip() or norm in self._seen[kind] or len(self.found[kind]) >= MAX_ITEMS:
            return
        self._seen[kind].add(norm)
        self.found[kind].append({k: v[:MAX_TEXT] for k, v in item.items()})


def extract(transcript: list[tuple[str, str]], *, today: date) -> dict:
    """The seed's entity JSON from a transcript of (role, content), every key present."""
    found = _Collector()
    questions: list[tuple[int, str]] = []  # (sentence index, question) of the member
    statements: list[tuple[int, str]] = []
    index = 0
    for role, content in transcript:
        if role != "user":
            continue
        for sentence in sentences(content or ""):
            index += 1
            _one_sentence(sentence, found, today)
            if sentence.rstrip().endswith("?"):
                questions.append((index, _clean(sentence.rstrip("?")) + "?"))
            else:
                statements.append((index, sentence))
    _questions(questions, statements, found)
    return found.found


def _one_sentence(sentence: str, found: _Collector, today: date) -> None:
    for match in DECISION.finditer(sentence):
        what = _clean(match["what"])
        why = ""
        if " because " in what:
            what, why = (part.strip() for part in what.split(" because ", 1))
        if len(content_words(what)) >= 1:
            found.add("decisions", what, {"what": what, "why": why})
    for match in WAITING.finditer(sentence):
        who = re.sub(r"^(?:the|my|our) ", "", match["who"]).strip()
        what = _clean(match["to"] or match["for"] or match["rest"] or "")
        found.add(
            "waiting_on", f"{who} {what}", {"who": who, "what": what, "since": today.isoformat()}
        )
    for match in OWES.finditer(sentence):
        what = _clean(match["what"])
        found.add(
            "waiting_on",
            f"{match['who']} {what}",
            {"who": match["who"], "what": what, "since": today.isoformat()},
        )
    done = DONE.search(sentence)
    if done:
        what = _clean(done["what"])
        found.add("tasks", what, {"description": what, "status": "completed", "priority": ""})
    elif not DECISION.search(sentence) and not sentence.rstrip().endswith("?"):
        for match in TASK.finditer(sentence):
            what = _clean(match["what"] or match["todo"] or match["will"] or "")
            if len(content_words(what)) >= 1 and not WAITING.search(what):
                priority = (
                    "high" if re.search(r"\b(urgent|asap|today|first)\b", sentence, re.I) else ""
                )
                status = "decided"
                found.add(
                    "tasks", what, {"description": what, "status": status, "priority": priority}
                )
            break
    for match in UNBLOCKED.finditer(sentence):
        what = _clean(match["what"] or match["what2"] or "")
        if what:
            found.add(
                "blockers_cleared",
                what,
                {"what": what, "unblocks": _clean(match["unblocks"] or "")},
            )
    for match in INSIGHT.finditer(sentence):
        insight = _clean(match["insight"])
        found.add("insights", insight, {"insight": insight, "context": ""})
    for match in WONDER.finditer(sentence):
        question = _clean(match["q"]) + "?"
        found.add("questions_opened", question, {"question": question})
    _people(sentence, found)


def _people(sentence: str, found: _Collector) -> None:
    for match in NAME.finditer(sentence):
        name = match["name"]
        first = name.split()[0]
        if first in NOT_NAMES or first.rstrip("'s") in NOT_NAMES:
            continue
        at_start = not sentence[: match.start()].strip(" \"'(")
        if at_start and not match["title"] and first.casefold() in STOPWORDS | {"sorry", "happy"}:
            continue
        if at_start and not match["title"] and not _looks_named(sentence, match):
            continue
        relation = ""
        if rel := RELATION_BEFORE.search(sentence[: match.start()]):
            relation = rel["relation"].lower()
        elif rel := RELATION_AFTER.match(sentence[match.end() :]):
            relation = rel["relation"].lower()
        full = f"{match['title']} {name}" if match["title"] else name
        found.add(
            "people", full, {"name": full, "context": _clean(sentence)[:200], "relation": relation}
        )


def _looks_named(sentence: str, match: re.Match) -> bool:
    """A capitalised first word is a name when a verb or "'s" follows it, not a common word."""
    after = sentence[match.end() : match.end() + 12]
    return bool(
        re.match(
            r"(?:'s|’s|,| (?:is|was|has|said|says|will|called|sent|told|and|got|can)\b)", after
        )
    )


def _questions(questions, statements, found: _Collector) -> None:
    for index, question in questions:
        answer = ""
        for later, statement in statements:
            if later <= index:
                continue
            decided = DECISION.search(statement)
            answered = ANSWER.search(statement)
            if (answered or decided) and overlap(question, statement) >= 0.5:
                answer = _clean(answered["a"] if answered and answered["a"] else statement)
                break
        if answer:
            found.add("questions_resolved", question, {"question": question, "answer": answer})
        elif len(content_words(question)) >= 2:
            found.add("questions_opened", question, {"question": question})


# --- stage 2: narrative --------------------------------------------------------------------------


def narrative(entities: dict, *, act_title: str | None, date: date, person: str) -> str:
    """2–4 sentences on what the conversation changed, deterministic."""
    parts: list[str] = []
    decisions = [row["what"] for row in entities.get("decisions", [])]
    if decisions:
        parts.append(f"{person} decided to {_join(decisions[:3])}.")
    done = [
        row["description"] for row in entities.get("tasks", []) if row.get("status") == "completed"
    ]
    todo = [
        row["description"] for row in entities.get("tasks", []) if row.get("status") != "completed"
    ]
    if done:
        parts.append(f"Done: {_join(done[:3])}.")
    if todo and len(parts) < 3:
        parts.append(f"Next: {_join(todo[:3])}.")
    waiting = [
        f"{row['who']} ({row['what']})" if row.get("what") else row["who"]
        for row in entities.get("waiting_on", [])
    ]
    if waiting and len(parts) < 3:
        parts.append(f"Waiting on {_join(waiting[:3])}.")
    resolved = [row["question"].rstrip("?") for row in entities.get("questions_resolved", [])]
    if resolved and len(parts) < 3:
        parts.append(f"Settled: {_join(resolved[:2])}.")
    opened = [row["question"].rstrip("?") for row in entities.get("questions_opened", [])]
    if opened and len(parts) < 4:
        parts.append(f"Still open: {_join(opened[:2])}?")
    if not parts:
        people = [row["name"] for row in entities.get("people", [])]
        about = f" about {_join(people[:3])}" if people else ""
        parts.append(
            f"{person} talked{about} on {date.isoformat()}, with no decision, task or open question."
        )
    if len(parts) == 1 and act_title and act_title != "Your Story":
        parts.append(f"It belongs with {act_title}.")
    return " ".join(parts[:4])


def _join(items: list[str]) -> str:
    items = [item.rstrip(". ") for item in items if item]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# --- stage 3: state deltas -----------------------------------------------------------------------

HEARD_BACK = re.compile(
    r"\b(?P<who>[A-Z][\w'-]+)(?: finally)? (?:got back to (?:me|us)|sent|replied|answered|"
    r"called back|delivered|returned|came back)|\bheard back from (?P<who2>[A-Z][\w'-]+)|"
    r"\b(?:received|got) (?:the )?[^.!?]*? from (?P<who3>[A-Z][\w'-]+)"
)


def deltas(entities: dict, open_items: list[dict], transcript_text: str = "") -> dict:
    """What changed against the member's open items, by rules only (conservative)."""
    result = {
        "new_waiting_ons": [
            {"who": r["who"], "what": r["what"]} for r in entities.get("waiting_on", [])
        ],
        "resolved_waiting_ons": [],
        "new_open_threads": [
            {"thread": r["question"], "act": ""} for r in entities.get("questions_opened", [])
        ],
        "resolved_threads": [],
        "priority_changes": [
            {"item": r["description"], "old": "", "new": r["priority"]}
            for r in entities.get("tasks", [])
            if r.get("priority")
        ],
    }
    evidence = [
        *(r.get("context", "") for r in entities.get("people", [])),
        *(r.get("what", "") for r in entities.get("blockers_cleared", [])),
        transcript_text,
    ]
    heard = set()
    for text in evidence:
        for match in HEARD_BACK.finditer(text or ""):
            heard.add((match["who"] or match["who2"] or match["who3"]).casefold())
    answers = [
        f"{r['question']} {r.get('answer', '')}" for r in entities.get("questions_resolved", [])
    ]
    answers += [r["what"] for r in entities.get("decisions", [])]
    finished = [
        r["description"] for r in entities.get("tasks", []) if r.get("status") == "completed"
    ]
    for item in open_items:
        data = item.get("data", {})
        if item["type"] == "waiting_on" and data.get("who", "").casefold() in heard:
            result["resolved_waiting_ons"].append(
                {
                    "who": data["who"],
                    "what": data.get("what", ""),
                    "item_id": item["id"],
                    "why": f"{data['who']} got back",
                }
            )
        elif item["type"] == "question_opened":
            for answer in answers:
                if overlap(data.get("question", ""), answer) >= 0.5:
                    result["resolved_threads"].append(
                        {
                            "thread": data.get("question", ""),
                            "item_id": item["id"],
                            "why": f"answered: {answer[:120]}",
                        }
                    )
                    break
        elif item["type"] == "task":
            for done in finished:
                if overlap(data.get("description", ""), done) >= 0.5:
                    result["resolved_threads"].append(
                        {
                            "thread": data.get("description", ""),
                            "item_id": item["id"],
                            "why": f"done: {done[:120]}",
                        }
                    )
                    break
    return result


# --- routing -------------------------------------------------------------------------------------


def route(entities: dict, narrative_text: str, acts: list[dict]) -> dict:
    """The act whose title, description and names the conversation shares most, if clearly so."""
    names = {row["name"].casefold() for row in entities.get("people", [])}
    words = content_words(narrative_text) | {
        word
        for rows in entities.values()
        for row in rows
        for value in row.values()
        for word in content_words(value)
    }
    best: tuple[float, dict | None, str] = (0.0, None, "")
    for act in acts:
        act_names = {name.casefold() for name in act.get("entity_names", [])}
        shared_names = sorted(names & act_names)
        act_words = content_words(f"{act['title']} {act.get('description', '')}")
        shared_words = sorted(words & act_words)
        score = 2 * len(shared_names) + len(shared_words)
        if score > best[0]:
            bits = []
            if shared_names:
                bits.append(f"{len(shared_names)} of its people ({', '.join(shared_names[:3])})")
            if shared_words:
                bits.append(f"the words {', '.join(shared_words[:4])}")
            best = (score, act, " and ".join(bits))
    score, act, why = best
    if act is None or score < 2:
        return {
            "act_id": None,
            "confidence": 0.5,
            "reason": "No act shares enough people or words with this conversation: Your Story.",
        }
    return {
        "act_id": act["id"],
        "confidence": round(min(0.95, 0.4 + 0.1 * score), 2),
        "reason": f"The conversation mentions {why} of “{act['title']}”.",
    }
