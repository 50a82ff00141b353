"""The offline entity rules: capitalised spans that name something, merged by normalised name."""

from __future__ import annotations

import pytest

from memories.entities import extract_offline, normalize
from memories.models import Act, Entity, Memory, MemoryItem


def names(text: str) -> list[tuple[str, str]]:
    return [(entity.name, entity.kind) for entity in extract_offline(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sam is allergic to peanuts.", [("Sam", "other")]),
        ("Lunch with Priya on Friday.", [("Priya", "other")]),
        ("The dentist is on Monday in May.", []),
        ("I think I'll call later. Yesterday was long.", []),
        ("Going to see Dr. Novak tomorrow.", [("Dr Novak", "person")]),
        ("Tell Aunt Jo about it.", [("Aunt Jo", "person")]),
        ("Caroline: I went to a support group.", [("Caroline", "person")]),
        ("The Bank of England wrote back.", [("Bank of England", "organisation")]),
        ("Tom works at Acme Ltd now.", [("Tom", "other"), ("Acme Ltd", "organisation")]),
        ("Camping in the Rocky Mountains.", [("Rocky Mountains", "place")]),
        ("We moved to Leeds in June.", [("Leeds", "place")]),
        ("Keys are at 12 Baker Street.", [("Baker Street", "place")]),
        ("Kel leads the Thunderbird project.", [("Kel", "other"), ("Thunderbird", "project")]),
        ("Novak's clinic moved.", [("Novak", "other")]),
        ("Jean-Luc O'Brien said hi.", [("Jean-Luc O'Brien", "other")]),
        ("Mum rang. Mum says hello.", [("Mum", "person")]),
        ("all lower case, nothing named", []),
    ],
)
def test_the_offline_rules_find_the_names_in_a_sentence(text, expected):
    assert names(text) == expected


def test_names_are_merged_by_their_normalised_form():
    assert [e.normalized for e in extract_offline("Dr Novak rang. Novak's nurse too.")] == ["novak"]


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Dr. Novak", "novak"),
        ("Novak’s", "novak"),
        ("Zoë", "zoe"),
        ("Aunt  Jo", "jo"),
        ("Dr", "dr"),
    ],
)
def test_normalising_drops_titles_possessives_case_and_accents(name, key):
    assert normalize(name) == key


def test_any_text_at_all_is_safe():
    for text in ["", "   ", "🔥 Émile 東京 Łódź", "A" * 5000, "... :: ''' ---", "\x00Sam\x01"]:
        extract_offline(text)


@pytest.mark.parametrize(
    ("text", "addressed"),
    [
        ("Joanna: Hey Nate! Here's another recipe I like.", {"nate"}),
        ("Melanie: Wow, fantastic, Caroline! Bet it was great.", {"caroline"}),
        ("Thanks, Mel. See you Tuesday.", {"mel"}),
        ("Thanks Dr Novak, see you on Tuesday", {"novak"}),
        ("I met Caroline at the park, Melanie!", {"melanie"}),
        # Spoken of, not to:
        ("Dan: Priya wants the white tiles", set()),
        ("Maya's kitchen budget is £40,000.", set()),
        ("We went to Paris, and Caroline came too.", set()),
        # Named again, not in address: the memory is about them as well.
        ("Hi Dan. I saw Dan at the shop", set()),
    ],
)
def test_a_name_the_text_only_speaks_to_is_marked_addressed(text, addressed):
    found = {e.normalized for e in extract_offline(text) if e.addressed}

    assert found == addressed


def test_a_speaker_is_never_addressed():
    (speaker,) = [e for e in extract_offline("Nate: thanks!") if e.normalized == "nate"]

    assert speaker.kind == "person" and not speaker.addressed


def test_a_person_a_compression_named_is_not_listed_when_it_is_a_day_or_a_pair(alice, index):
    """The compression's people are indexed as people, but not "Tuesdays" nor "Ana and Raf"
    when a reading took them for one person; a real name beside them is."""
    act = Act.objects.create(owner=alice, title="Home")
    kept = Memory.objects.create(owner=alice, act=act, content="sorted the rota for the week")
    for name in ("Tuesdays", "Ana and Raf", "Priya"):
        MemoryItem.objects.create(memory=kept, type="person", data={"name": name})
    index(alice)

    assert set(Entity.objects.filter(owner=alice).values_list("name", flat=True)) == {"Priya"}
