"""How people type, read back as plain English: the first stage of the offline engine.

Texting shorthand ("bc", "w/", "tmrw", "abt"), contractions typed without their apostrophe
("dont", "hes", "thats"), thousands written "6k" or "six grand", curly quotes. The rewritten text
is what the parser, the classifier and the items see; the member's own words stay in the
transcript. Only spellings that cannot mean anything else are rewritten: "its", "were", "well",
"ill", "id", "shell" and "wed" are real words too, so they are read as contractions only where
the next word says so ("shell tell us", not "a shell").

The tables are general English usage, written from how people text, not from any evaluation
transcript (tests/data/households/README.md).
"""

from __future__ import annotations

import re

from talkingrock.language.amounts import NUMBER_WORD

# Whole words, any case. A value of "" drops the word (fillers that carry nothing).
SHORTHAND = {
    "bc": "because",
    "b/c": "because",
    "cuz": "because",
    "coz": "because",
    "cos": "because",
    "w/": "with",
    "w/o": "without",
    "tmrw": "tomorrow",
    "tmr": "tomorrow",
    "tmw": "tomorrow",
    "tomoz": "tomorrow",
    "2moro": "tomorrow",
    "2morrow": "tomorrow",
    "tonite": "tonight",
    "2nite": "tonight",
    "2day": "today",
    "yday": "yesterday",
    "yest": "yesterday",
    "thx": "thanks",
    "thnx": "thanks",
    "ty": "thanks",
    "pls": "please",
    "plz": "please",
    "u": "you",
    "ur": "your",
    "wat": "what",
    "wut": "what",
    "wht": "what",
    "wot": "what",
    "wen": "when",
    "whn": "when",
    "hw": "how",
    "abt": "about",
    "b4": "before",
    "appt": "appointment",
    "appts": "appointments",
    "xmas": "Christmas",
    "bday": "birthday",
    "min": "minute",
    "mins": "minutes",
    "hr": "hour",
    "hrs": "hours",
    "wk": "week",
    "wks": "weeks",
    "mth": "month",
    "mths": "months",
    "wknd": "weekend",
    "wd": "would",
    "wud": "would",
    "shd": "should",
    "shud": "should",
    "cud": "could",
    "yr": "year",
    "yrs": "years",
    "ppl": "people",
    "msg": "message",
    "msgd": "messaged",
    "txt": "text",
    "txtd": "texted",
    "govt": "government",
    "tbh": "to be honest",
    "idk": "I don't know",
    "dunno": "don't know",
    "btw": "by the way",
    "rn": "right now",
    "atm": "at the moment",
    "nvm": "never mind",
    "approx": "approximately",
    "esp": "especially",
    "defo": "definitely",
    "def": "definitely",
    "prob": "probably",
    "prolly": "probably",
    "obvs": "obviously",
    "wanna": "want to",
    "gotta": "got to",
    "lemme": "let me",
    "gimme": "give me",
    "ok": "okay",
    "k": "okay",
    "kk": "okay",
    "ya": "yes",
    "yep": "yes",
    "yup": "yes",
    "yeah": "yes",
    "nah": "no",
    "nope": "no",
    "&": "and",
    "n": "and",
    "thru": "through",
    "incl": "including",
    "calld": "called",
    "tho": "though",
    "bf": "boyfriend",
    "gf": "girlfriend",
    "hubby": "husband",
    "mil": "mother-in-law",
    "fil": "father-in-law",
    "info": "information",
    "asap": "as soon as possible",
    "eta": "ETA",
    "lol": "",
    "lmao": "",
    "haha": "",
    "hahaha": "",
    "ha": "",
    "hmm": "",
    "hm": "",
    "um": "",
    "umm": "",
    "uh": "",
    "erm": "",
    "er": "",
    "ugh": "",
    # The question words of the languages households mix into their English (Tagalog, Jamaican
    # Patois, Nigerian Pidgin, Swahili), so that what a question asks is read in either tongue.
    # Not Swahili's "nani" (who), which is a grandmother in Indian English.
    "magkano": "how much",
    "ilang": "how many",
    "ilan": "how many",
    "kailan": "when",
    "kelan": "when",
    "sino": "who",
    "saan": "where",
    "nasaan": "where",
    "ano": "what",
    "anong": "what",
    "wah": "what",
    "weh": "where",
    "wetin": "what",
    "ngapi": "how much",
    "wangapi": "how many",
    "mingapi": "how many",
    "lini": "when",
    "wapi": "where",
    "gani": "which",
    "anaitwa": "is called",
    "inaitwa": "is called",
    "jina": "name",
    "yuh": "you",
}

# Verbs of the things households do, in their base form: after "and" or "then" one of these
# starts another action ("get him pyjamas and pack a bag and book the day off"), and a decision
# that starts with one is a decision to do it. General English, not any transcript's.
ACTION_VERBS = frozenset(
    """accept add ask book bring buy call cancel change chase check choose clean clear collect
    confirm cover do drop email find finish fix get give go hand have hire keep leave let look
    make move order pack paint pay phone pick plant post print put read reface remind renew rent
    replace reply ring sell send sign sort stay stick swap switch take talk tell text tidy try
    use visit wait wash write""".split()
)

# Contractions typed without the apostrophe that are not also words.
CONTRACTIONS = {
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "cant": "can't",
    "wont": "won't",
    "isnt": "isn't",
    "arent": "aren't",
    "wasnt": "wasn't",
    "werent": "weren't",
    "hasnt": "hasn't",
    "havent": "haven't",
    "hadnt": "hadn't",
    "couldnt": "couldn't",
    "wouldnt": "wouldn't",
    "shouldnt": "shouldn't",
    "mustnt": "mustn't",
    "neednt": "needn't",
    "im": "I'm",
    "ive": "I've",
    "youre": "you're",
    "youve": "you've",
    "youll": "you'll",
    "youd": "you'd",
    "theyre": "they're",
    "theyve": "they've",
    "theyll": "they'll",
    "theyd": "they'd",
    "weve": "we've",
    "thats": "that's",
    "whats": "what's",
    "wats": "what's",
    "wots": "what's",
    "wheres": "where's",
    "whos": "who's",
    "hows": "how's",
    "whens": "when's",
    "hes": "he's",
    "shes": "she's",
    "theres": "there's",
    "heres": "here's",
    "aint": "ain't",
    "itll": "it'll",
    "itd": "it'd",
    "thatd": "that'd",
    "whatd": "what'd",
    "howd": "how'd",
    "whod": "who'd",
    "thatll": "that'll",
    "whatll": "what'll",
    "shouldve": "should've",
    "wouldve": "would've",
    "couldve": "could've",
    "mightve": "might've",
    "mustve": "must've",
}

# "i" alone is always the pronoun; "w" before a determiner, or lower case between two words, is
# "with".
_WORD = re.compile(r"(?<![\w/&])([\w/&]+)(?![\w/&])")
# Cantonese question words as Hong Kong families type them into English ("total gei dor?",
# "clinic name hai mud ah?", "bin go sent it"): two words each, read as one. Not "bin do",
# which English says ("is it the green bin do you think"), nor "bin go" where it is a bin that
# goes (``_BIN_AFTER``, ``_BIN_GOES``).
_CANTONESE = {
    "gei dor": "how much",
    "gei do": "how much",
    "geidor": "how much",
    "hai mud": "what",
    "hai mat": "what",
    "mud ye": "what",
    "mat ye": "what",
    "bin go": "who",
    "bin dou": "where",
    "gei si": "when",
}
_CANTONESE_ASKS = re.compile(
    rf"\b({'|'.join(sorted((re.escape(k) for k in _CANTONESE), key=len, reverse=True))})\b",
    re.I,
)
# "when does the green bin go out", "did our bin go missing": a bin, after a determiner (and
# what describes it), or before where or how it goes.
_BIN_AFTER = re.compile(
    r"\b(?:the|a|our|my|your|their|his|her|this|that|which|each|every)\s+(?:[\w-]+\s+){0,2}$",
    re.I,
)
_BIN_GOES = re.compile(
    r"\s+(?:out|in|back|on|off|up|down|round|away|to|missing|collected|early|late)\b", re.I
)


def _cantonese(m: re.Match) -> str:
    said = " ".join(m[1].lower().split())
    if said == "bin go" and (
        _BIN_AFTER.search(m.string[max(0, m.start() - 60) : m.start()])
        or _BIN_GOES.match(m.string, m.end())
    ):
        return m[0]
    return _CANTONESE[said]


_W_WITH = re.compile(
    r"\bw\s+(?=(?:the|a|an|my|our|his|her|their|your|him|them|us|me|it)\b)|"
    r"(?<=[a-z] )w\s+(?=[a-z])",  # lower case between words: "went w butcher block"
    re.I,
)
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "´": "'", "`": "'"})

# Thousands: "6k", "2.5k", "£6k", "6 grand", "six grand".
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "a": 1, "a couple": 2, "a few": 3,
}  # fmt: skip
_K = re.compile(r"(?<![\w.])([£$€]?)(\d+(?:\.\d+)?)\s?k\b", re.I)
_GRAND = re.compile(
    r"(?<![\w.])([£$€]?)(\d+(?:\.\d+)?|"
    + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
    + r")\s+(?:grand|thousand)\b"
    # "nine thousand two hundred and ten" is one number, read whole by the amounts reader:
    # rewriting its first part would leave "9,000 two hundred and ten".
    + rf"(?!\s+(?:and\s+)?{NUMBER_WORD}\b)",
    re.I,
)


def _thousands(symbol: str, amount: str) -> str:
    value = float(amount) if amount[0].isdigit() else _NUMBER_WORDS[amount.lower()]
    return f"{symbol}{round(value * 1000):,}"


def _rewrite_word(match: re.Match) -> str:
    word = match.group(1)
    lower = word.lower()
    if lower == "i":
        return "I"
    if lower in CONTRACTIONS:
        return CONTRACTIONS[lower]
    if lower in SHORTHAND:
        return SHORTHAND[lower]
    return word


# Contractions that are also words, read as contractions only where the word cannot be meant:
# "ill ring her" at the start of a clause (not "I'm ill"), "hed send it", "id rather", "shed
# come" (not "the shed"). The next word decides.
_CLAUSE_STARTERS = frozenset(
    "so and but then okay ok yes yeah no oh think guess please pls right sure fine well also".split()
)
_AFTER_ID = frozenset("rather prefer like love say go have be need think".split())
_AFTER_SHED = frozenset(
    "be come send do get have said like rather need find let tell ring call text sort".split()
)
# "shell tell us", "hell sort it": the future, where a verb follows.
_AFTER_WILL = frozenset(
    "be come send do get have tell let ring call text know find sort pay bring ask sign".split()
)


def _contextual(word: str, previous: str, following: str) -> str | None:
    lower, before, after = word.lower(), previous.lower(), following.lower()
    opening = before in ("", *_CLAUSE_STARTERS) or before[-1:] in ".!?,;:"
    if lower == "ill" and opening and after.isalpha():
        return "I'll"
    if lower == "id" and word == "id" and after in _AFTER_ID:
        return "I'd"
    if lower == "hed" and after.isalpha() and before not in ("the", "a"):
        return "he'd"
    if lower == "shed" and after in _AFTER_SHED and before not in ("the", "a", "my", "our"):
        return "she'd"
    if lower in ("shell", "hell") and after in _AFTER_WILL and before not in ("the", "a", "to"):
        return "she'll" if lower == "shell" else "he'll"
    return None


_TOKEN = re.compile(r"\S+")


def _in_context(text: str) -> str:
    tokens = _TOKEN.findall(text)
    out = text
    for index, token in enumerate(tokens):
        core = token.strip(".,;:!?\"'()")
        previous = tokens[index - 1] if index else ""
        following = tokens[index + 1].strip(".,;:!?\"'()") if index + 1 < len(tokens) else ""
        if previous and previous[-1:] in ".!?":
            previous = "."
        replacement = _contextual(core, previous.strip("\"'()"), following)
        if replacement:
            out = re.sub(rf"(?<![\w']){re.escape(core)}(?![\w'])", replacement, out, count=1)
    return out


# "like 6k", "like twenty minutes": the hedge before an amount means "about".
_LIKE_AMOUNT = re.compile(r"\blike\s+(?=[£$€]?\d)", re.I)


def normalise(text: str) -> str:
    """``text`` with shorthand, apostrophe-less contractions and "6k" amounts spelt out."""
    text = text.translate(_QUOTES)
    text = _K.sub(lambda m: _thousands(m[1], m[2]), text)
    text = _GRAND.sub(lambda m: _thousands(m[1], m[2]), text)
    text = _LIKE_AMOUNT.sub("about ", text)
    text = _W_WITH.sub("with ", text)
    text = _CANTONESE_ASKS.sub(_cantonese, text)
    text = _in_context(text)
    text = _WORD.sub(_rewrite_word, text)
    # Dropped fillers leave doubled spaces and stray commas behind.
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r"\s+([,.!?])", r"\1", text)
    text = re.sub(r"(^|[.!?]\s*)[,;]\s*", r"\1", text)
    return text.strip()
