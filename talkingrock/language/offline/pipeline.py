"""The offline engine's reading of one conversation, stage by stage: read (normalise, parse,
cut into clauses, resolve names, classify) → items → facts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from talkingrock.language.names import Known
from talkingrock.language.offline import facts as fact_stage
from talkingrock.language.offline import items as item_stage
from talkingrock.language.offline.reading import Reading, read


@dataclass
class Extraction:
    reading: Reading
    items: dict[str, list[dict[str, str]]]
    facts: list[fact_stage.Fact]

    def questions_to_assistant(self) -> list[str]:
        return [unit.text for unit in self.reading.of("question_to_assistant")]


def extract(
    transcript: list[tuple[str, str]],
    *,
    today: date,
    member: str,
    household: list[str] = (),
    known: list[Known] = (),
) -> Extraction:
    reading = read(transcript, member=member, household=list(household), known=list(known))
    decisions: dict[int, dict] = {}
    found = item_stage.items(reading, today, by_unit=decisions)
    return Extraction(reading, found, fact_stage.facts(reading, today, decisions))
