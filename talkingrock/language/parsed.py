"""What a sentence's words hold, parsed into fields beside them (issue 22: keep people's words).

``parse(text, said_on=...)`` reads a fact, an item or a message against the day it was said and
answers the fields a memory or an item stores next to its text (``Memory.details``, an item's
``data``): the dates and times it names, the first day it names (``happened_at``, or a due date
when it was said as one: "by friday"), its amounts, and a schedule. ``said(details)`` is the
same fields as a person reads them next to the words: "Tue 8 Dec 2026, 10:30am · $38,000".

The text itself is never changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal

from talkingrock.language import amounts, dates, spoken
from talkingrock.language.mentions import DUE_LEADS


@dataclass(frozen=True)
class Parsed:
    when: list[dict[str, str]] = field(default_factory=list)  # dates.Mention.as_dict()
    amounts: list[dict[str, str]] = field(default_factory=list)  # amounts.Amount.as_dict()
    recurs: dict[str, str] | None = None  # {"text", "rule", "words"}

    @property
    def day(self) -> date | None:
        """The first day the words name ("on the 8th"), None when they name none."""
        for mention in self.when:
            if "date" in mention:
                return date.fromisoformat(mention["date"])
        return None

    @property
    def due(self) -> date | None:
        """The day said as a deadline ("by friday", "before the 8th")."""
        for mention in self.when:
            if "date" in mention and mention.get("lead") in DUE_LEADS:
                return date.fromisoformat(mention["date"])
        return None

    def moment(self, tzinfo=None) -> datetime | None:
        """The first day with its time, as a datetime (midnight when no time is said)."""
        for mention in self.when:
            if "date" in mention:
                at = time.fromisoformat(mention["time"]) if "time" in mention else time.min
                return datetime.combine(date.fromisoformat(mention["date"]), at, tzinfo=tzinfo)
        return None

    def as_dict(self) -> dict:
        """What is stored; empty parts are left out (an empty dict: nothing was found)."""
        found: dict = {}
        if self.when:
            found["when"] = self.when
        if self.amounts:
            found["amounts"] = self.amounts
        if self.recurs:
            found["recurs"] = self.recurs
        return found


def parse(text: str, *, said_on: date, lean: str = "future", default_currency: str = "") -> Parsed:
    """The fields of ``text`` as said on ``said_on``. ``lean="past"`` for words about what has
    happened ("met him on the 3rd")."""
    mentions = dates.find(text or "", today=said_on, lean=lean)
    skip = [(m.start, m.end) for m in mentions]
    schedule = next((m for m in mentions if m.recurs is not None), None)
    return Parsed(
        when=[m.as_dict() for m in mentions if m.recurs is None and (m.names_a_day or m.time)],
        amounts=[
            a.as_dict()
            for a in amounts.find(text or "", skip=skip, default_currency=default_currency)
        ],
        recurs=schedule.as_dict() if schedule else None,
    )


def said(details: dict | None) -> list[str]:
    """The stored fields in words, in the order they were said: "Tue 8 Dec 2026, 10:30am",
    "$38,000", "weekly on Monday, Tuesday and Thursday"."""
    if not isinstance(details, dict):
        return []
    words = []
    if isinstance(details.get("recurs"), dict):
        words.append(spoken.said(details["recurs"]))
    for mention in details.get("when") or []:
        if isinstance(mention, dict) and (text := spoken.said(mention)):
            words.append(text)
    for amount in details.get("amounts") or []:
        if isinstance(amount, dict):
            words.append(_amount_words(amount))
    return [w for w in words if w]


def _amount_words(amount: dict) -> str:
    try:
        value = amounts.Amount(
            amount.get("text", ""),
            0,
            0,
            Decimal(str(amount.get("value", "0"))),
            amount.get("currency", ""),
            amount.get("unit", ""),
            amount.get("per", ""),
            amount.get("each_of", ""),
        )
    except (ArithmeticError, ValueError):
        return amount.get("text", "")
    return value.said()
