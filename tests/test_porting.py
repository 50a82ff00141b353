"""Memories in and out: Markdown flat files in, JSON and Markdown out, and back in again."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from conversations.models import Act
from conversations.services import ensure_your_story
from memories import porting, services
from memories.models import Memory
from memories.porting import parse_markdown


def contents(text: str, **kwargs) -> list[str]:
    return [entry.content for entry in parse_markdown(text, **kwargs)]


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("memories", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- Parsing Markdown ------------------------------------------------------------------------


def test_a_bullet_keeps_its_lazy_continuation_lines():
    text = "- The wifi password is on the router\nunder the sticker\n- Bins go out on Tuesday\n"

    assert contents(text) == [
        "The wifi password is on the router\nunder the sticker",
        "Bins go out on Tuesday",
    ]


def test_a_bullet_keeps_its_indented_lines_even_after_a_blank_line():
    text = "- Dentist is Dr Okafor\n  on Mill Street\n\n  call before 10am\n- Vet is Dr Lund\n"

    assert contents(text) == [
        "Dentist is Dr Okafor\non Mill Street\ncall before 10am",
        "Vet is Dr Lund",
    ]


def test_nested_bullets_stay_with_their_parent():
    text = "- Car\n  - MOT due in March\n    - garage on Elm Road\n- Bike\n"

    assert contents(text) == ["Car\n- MOT due in March\n- garage on Elm Road", "Bike"]


def test_numbered_list_items_are_separate_memories():
    text = "1. Water the ferns\n2) Feed the cat\n10. Check the smoke alarm\n"

    assert contents(text) == ["Water the ferns", "Feed the cat", "Check the smoke alarm"]


def test_blank_lines_split_paragraphs():
    text = "Alice prefers window seats\non long flights.\n\nBob is allergic to peanuts.\n"

    assert contents(text) == [
        "Alice prefers window seats\non long flights.",
        "Bob is allergic to peanuts.",
    ]


def test_headings_and_the_file_name_become_tags():
    text = (
        "# Health\n"
        "## Running\n"
        "### Races\n"
        "- Half marathon in May\n"
        "## Food\n"
        "- No coriander\n"
        "# Work, projects\n"
        "- Ship the invoice tool\n"
    )

    tagged = [(e.content, e.tags) for e in parse_markdown(text, file_tag="memory")]

    assert tagged == [
        ("Half marathon in May", ["memory", "Health", "Running", "Races"]),
        ("No coriander", ["memory", "Health", "Food"]),
        ("Ship the invoice tool", ["memory", "Work projects"]),
    ]


def test_a_heading_right_after_a_bullet_starts_a_new_section():
    text = "# Home\n- Boiler serviced in October\n# Garden\n- Prune the roses in March\n"

    tagged = [(e.content, e.tags) for e in parse_markdown(text)]

    assert tagged == [
        ("Boiler serviced in October", ["Home"]),
        ("Prune the roses in March", ["Garden"]),
    ]


def test_an_underlined_heading_is_a_heading_and_a_rule_is_not_a_memory():
    text = "Travel\n======\n- Passport expires 2031\n\n---\n\n***\n- Keep euros in the drawer\n"

    tagged = [(e.content, e.tags) for e in parse_markdown(text)]

    assert tagged == [
        ("Passport expires 2031", ["Travel"]),
        ("Keep euros in the drawer", ["Travel"]),
    ]


def test_urls_and_hyphenated_words_are_kept_intact():
    text = "- The well-known recipe is at https://example.com/a-b_c?x=1&y=2#step-3 (in-laws' one)\n"

    assert contents(text) == [
        "The well-known recipe is at https://example.com/a-b_c?x=1&y=2#step-3 (in-laws' one)"
    ]


def test_fenced_code_stays_whole():
    text = (
        "Backup command:\n"
        "```sh\n"
        "# nightly\n"
        "- not a bullet\n"
        "\n"
        "rsync -a ~/photos /mnt/backup\n"
        "```\n"
        "\n"
        "- Next memory\n"
    )

    assert contents(text) == [
        "Backup command:\n```sh\n# nightly\n- not a bullet\n\nrsync -a ~/photos /mnt/backup\n```",
        "Next memory",
    ]


def test_fenced_code_in_a_bullet_keeps_its_own_indentation():
    text = "- Router reset:\n  ```\n  hold reset\n    for 10 s\n  ```\n- Next\n"

    assert contents(text) == ["Router reset:\n```\nhold reset\n  for 10 s\n```", "Next"]


def test_yaml_front_matter_is_skipped():
    text = "---\ntitle: Notes\ntags: [home]\n---\n- The spare key is with Mrs Patel\n"

    assert contents(text) == ["The spare key is with Mrs Patel"]


def test_html_comments_are_dropped():
    text = "<!-- written by\nthe old assistant -->\n- Gate code 4821 <!-- changed in May -->\n"

    assert contents(text) == ["Gate code 4821"]


# --- Importing a Markdown folder ------------------------------------------------------------


@pytest.fixture
def memory_folder(tmp_path) -> Path:
    write(
        tmp_path / "MEMORY.md",
        "# People\n"
        "- Alice's sister Mei lives in Leeds\n"
        "  and visits at Easter\n"
        "- Read https://example.com/co-op-rules before the AGM\n"
        "\n"
        "# Preferences\n"
        "Prefers tea to coffee.\n",
    )
    write(tmp_path / "memory" / "2026-01-05.md", "- Booked the boiler service\n")
    write(tmp_path / "memory" / "ignored.txt", "- not a Markdown file\n")
    return tmp_path


def test_importing_a_folder_creates_one_memory_per_entry(alice, memory_folder):
    out, _ = run("import", str(memory_folder), "--user", "alice")

    memories = {m.content: m for m in Memory.objects.filter(owner=alice)}
    assert set(memories) == {
        "Alice's sister Mei lives in Leeds\nand visits at Easter",
        "Read https://example.com/co-op-rules before the AGM",
        "Prefers tea to coffee.",
        "Booked the boiler service",
    }
    assert {m.source for m in memories.values()} == {Memory.Source.MIGRATION}
    assert {m.act for m in memories.values()} == {ensure_your_story(owner=alice)}
    assert memories["Prefers tea to coffee."].tags == "memory, Preferences"
    assert memories["Alice's sister Mei lives in Leeds\nand visits at Easter"].tags == (
        "memory, People"
    )
    dated = memories["Booked the boiler service"]
    assert dated.tags == "2026-01-05"
    assert timezone.localtime(dated.happened_at).date() == date(2026, 1, 5)
    assert memories["Prefers tea to coffee."].happened_at is None
    assert "Imported 4 memories for alice" in out


def test_imported_memories_are_found_by_keyword(alice, memory_folder):
    run("import", str(memory_folder), "--user", "alice")

    result = services.memory_query(owner=alice, query="boiler")

    assert [memory.content for memory, _ in result.hits] == ["Booked the boiler service"]


def test_reimporting_the_same_folder_adds_nothing(alice, memory_folder):
    run("import", str(memory_folder), "--user", "alice")

    out, _ = run("import", str(memory_folder), "--user", "alice")

    assert Memory.objects.filter(owner=alice).count() == 4
    assert "Imported 0 memories for alice; 4 already there" in out


def test_reimporting_does_not_bring_back_a_wording_the_member_corrected(alice, memory_folder):
    run("import", str(memory_folder), "--user", "alice")
    tea = Memory.objects.get(owner=alice, content="Prefers tea to coffee.")
    services.memory_update(owner=alice, memory_id=tea.pk, content="Prefers green tea.")

    run("import", str(memory_folder), "--user", "alice")

    assert not Memory.objects.filter(owner=alice, content="Prefers tea to coffee.").exists()
    assert Memory.objects.filter(owner=alice).count() == 4


def test_one_members_import_does_not_count_another_members_memories(alice, bob, memory_folder):
    run("import", str(memory_folder), "--user", "alice")

    run("import", str(memory_folder), "--user", "bob")

    assert Memory.objects.filter(owner=bob).count() == 4
    assert Memory.objects.filter(owner=alice).count() == 4


def test_a_single_markdown_file_can_be_imported(alice, tmp_path):
    notes = write(tmp_path / "notes.md", "- One\n- Two\n")

    run("import", str(notes), "--user", "alice")

    assert sorted(Memory.objects.filter(owner=alice).values_list("content", "tags")) == [
        ("One", "notes"),
        ("Two", "notes"),
    ]


def test_an_over_long_entry_is_refused_and_the_rest_imported(alice, tmp_path):
    write(tmp_path / "MEMORY.md", f"- {'x' * 10_001}\n- Short and fine\n")

    out, err = run("import", str(tmp_path), "--user", "alice")

    assert list(Memory.objects.filter(owner=alice).values_list("content", flat=True)) == [
        "Short and fine"
    ]
    assert "limit is 10,000" in err
    assert "1 refused" in out


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda root: root / "nowhere", "does not exist"),
        (lambda root: write(root / "empty" / "README.txt", "hi").parent, "No MEMORY.md"),
        (
            lambda root: (write(root / "MEMORY.md", "x").write_bytes(b"- caf\xe9\n"), root)[1],
            "not UTF-8",
        ),
    ],
    ids=["missing", "no-memory-files", "not-utf8"],
)
def test_a_folder_that_cannot_be_imported_is_a_clear_error(alice, tmp_path, setup, message):
    path = setup(tmp_path)

    with pytest.raises(CommandError, match=message):
        run("import", str(path), "--user", "alice")

    assert not Memory.objects.exists()


@pytest.mark.parametrize("action", ["import", "export"])
def test_an_unknown_member_is_a_command_error(db, tmp_path, action):
    write(tmp_path / "MEMORY.md", "- hello\n")
    args = [str(tmp_path)] if action == "import" else []

    with pytest.raises(CommandError, match="No member named 'carol'"):
        run(action, *args, "--user", "carol")


# --- JSON out and back in --------------------------------------------------------------------


@pytest.fixture
def alices_memories(alice, remember):
    """Alice's memory in every state a memory can be in."""
    garden = Act.objects.create(owner=alice, title="Garden", description="Beds and borders")
    old_job = Act.objects.create(owner=alice, title="Old job", status=Act.Status.ARCHIVED)
    remember("Tomatoes go in after the last frost", tags="garden, spring", act=garden)
    remember("Payroll ran on the 25th", act=old_job)
    remember(
        "Meeting notes:\n- budget agreed\n\n  follow up in June",
        tags=["work", "notes"],
        happened_at=datetime(2025, 6, 1, 9, 30, tzinfo=UTC),
    )
    archived = remember("Old phone number 0161 496 0000")
    services.memory_archive(owner=alice, memory_id=archived.pk)
    reinforced = remember("Mum's birthday is 3 March")
    services.memory_reinforce(owner=alice, memory_id=reinforced.pk)
    demoted = remember("Likes jazz")
    services.memory_demote(owner=alice, memory_id=demoted.pk)
    edited = remember("The plumber is Jon")
    services.memory_update(owner=alice, memory_id=edited.pk, content="The plumber is Joan")
    remember(
        "Might switch energy supplier",
        source=Memory.Source.EXTRACTION,
        status=Memory.Status.DRAFT,
        extraction_engine="offline",
        confidence=0.5,
        created_at=timezone.now() - timedelta(days=40),
    )
    return Memory.objects.filter(owner=alice)


def comparable(export: dict) -> dict:
    """An export without what legitimately differs between members and runs."""
    memories = [{k: v for k, v in m.items() if k != "id"} for m in export["memories"]]
    return {
        **{k: v for k, v in export.items() if k not in ("member", "exported_at", "memories")},
        "memories": sorted(memories, key=lambda m: m["content"]),
    }


def test_a_json_export_imports_back_to_the_same_set(alice, alices_memories, bob, tmp_path):
    export_file = tmp_path / "alice.json"
    run("export", "--user", "alice", "--format", "json", "--out", str(export_file))

    out, _ = run("import", str(export_file), "--user", "bob")

    exported = json.loads(export_file.read_text(encoding="utf-8"))
    assert len(exported["memories"]) == alices_memories.count() == 8
    assert comparable(porting.export_json(owner=bob)) == comparable(exported)
    assert "Imported 8 memories for bob" in out
    edited = Memory.objects.get(owner=bob, content="The plumber is Joan")
    assert (edited.user_edited, edited.original_content) == (True, "The plumber is Jon")
    assert Memory.objects.get(owner=bob, content="Mum's birthday is 3 March").score == 3
    assert Act.objects.get(owner=bob, title="Old job").status == Act.Status.ARCHIVED


def test_an_imported_archived_memory_stays_archived_and_searchable(alice, alices_memories, bob):
    porting.import_json(owner=bob, data=porting.export_json(owner=alice))

    assert services.memory_query(owner=bob, query="phone number").hits == []
    found = services.memory_query(owner=bob, query="phone number", include_archived=True)
    assert [m.content for m, _ in found.hits] == ["Old phone number 0161 496 0000"]


def test_importing_a_json_export_twice_adds_nothing(alice, alices_memories, bob, tmp_path):
    export_file = tmp_path / "alice.json"
    run("export", "--user", "alice", "--out", str(export_file))
    run("import", str(export_file), "--user", "bob")

    out, _ = run("import", str(export_file), "--user", "bob")

    assert Memory.objects.filter(owner=bob).count() == 8
    assert Act.objects.filter(owner=bob, title="Garden").count() == 1
    assert "Imported 0 memories for bob; 8 already there" in out


def test_importing_a_members_own_export_adds_nothing(alice, alices_memories, tmp_path):
    export_file = tmp_path / "alice.json"
    run("export", "--user", "alice", "--out", str(export_file))

    run("import", str(export_file), "--user", "alice")

    assert Memory.objects.filter(owner=alice).count() == 8


def test_export_without_out_writes_json_to_standard_output(alice, remember):
    remember("Keys are in the blue bowl")

    out, _ = run("export", "--user", "alice")

    data = json.loads(out)
    assert (data["format"], data["member"]) == ("talkingrock.memories", "alice")
    assert [m["content"] for m in data["memories"]] == ["Keys are in the blue bowl"]


def test_export_never_includes_another_members_memories(alice, bob, remember):
    remember("Alice's note")
    remember("Bob's note", owner=bob)

    out, _ = run("export", "--user", "alice")

    assert "Alice's note" in out
    assert "Bob's note" not in out


def test_a_malformed_json_file_is_a_clear_command_error(alice, tmp_path):
    broken = write(tmp_path / "export.json", '{"format": "talkingrock.memories", "memo')

    with pytest.raises(CommandError, match="is not valid JSON"):
        run("import", str(broken), "--user", "alice")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2, 3], "Not a Talking Rock export"),
        ({"memories": []}, "Not a Talking Rock export"),
        ({"format": "talkingrock.memories", "version": 99}, "Unsupported export version"),
        ({"format": "talkingrock.memories", "version": 1, "acts": "Garden"}, "'acts'"),
        ({"format": "talkingrock.memories", "version": 1, "acts": [7]}, "act 1"),
        ({"format": "talkingrock.memories", "version": 1, "acts": [{}]}, "act 1 needs a title"),
        (
            {
                "format": "talkingrock.memories",
                "version": 1,
                "acts": [{"title": "A", "status": "x"}],
            },
            "act 1: status",
        ),
        ({"format": "talkingrock.memories", "version": 1, "memories": 5}, "'memories'"),
    ],
)
def test_a_json_file_that_is_not_an_export_is_a_clear_command_error(alice, tmp_path, data, message):
    other = write(tmp_path / "other.json", json.dumps(data))

    with pytest.raises(CommandError, match=message):
        run("import", str(other), "--user", "alice")

    assert not Memory.objects.exists()
    assert not Act.objects.filter(owner=alice, is_your_story=False).exists()


def test_broken_memories_in_an_export_are_reported_and_the_rest_imported(alice, tmp_path):
    data = {
        "format": "talkingrock.memories",
        "version": 1,
        "memories": [
            {"id": 1, "content": "Fine memory"},
            {"id": 2, "content": ""},
            {"id": 3, "content": "Bad date", "created_at": "2020-13-45T00:00:00"},
            {"id": 4, "content": "Bad score", "score": "lots"},
            {"id": 5, "content": "Bad act", "act": ["Garden"]},
            {"id": 6, "content": "Bad source", "source": "gossip"},
            "not even an object",
        ],
    }
    export_file = write(tmp_path / "export.json", json.dumps(data))

    out, err = run("import", str(export_file), "--user", "alice")

    assert list(Memory.objects.values_list("content", flat=True)) == ["Fine memory"]
    assert "6 refused" in out
    for number in (2, 3, 4, 5, 6):
        assert f"memory {number}:" in err


def test_an_export_imports_into_a_member_with_two_acts_of_the_same_title(alice, tmp_path):
    first = Act.objects.create(owner=alice, title="Garden")
    Act.objects.create(owner=alice, title="Garden")
    data = {
        "format": "talkingrock.memories",
        "version": 1,
        "acts": [{"title": "Garden"}],
        "memories": [{"content": "Mulch in autumn", "act": "Garden"}],
    }

    porting.import_json(owner=alice, data=data)

    assert Memory.objects.get(content="Mulch in autumn").act == first


def test_a_json_export_saved_with_a_byte_order_mark_imports(alice, remember, bob, tmp_path):
    remember("Saved by a Windows editor")
    body, _, _ = porting.export_memories(owner=alice, fmt="json")
    export_file = tmp_path / "export.json"
    export_file.write_bytes(b"\xef\xbb\xbf" + body.encode())

    run("import", str(export_file), "--user", "bob")

    assert Memory.objects.filter(owner=bob, content="Saved by a Windows editor").exists()


# --- Markdown out -----------------------------------------------------------------------------


def test_the_markdown_export_contains_every_memory(alice, alices_memories):
    out, _ = run("export", "--user", "alice", "--format", "markdown")

    for memory in alices_memories:
        first_line = memory.content.splitlines()[0]
        assert f"- {first_line}" in out
        assert f"id:{memory.pk}" in out
    assert "## Garden" in out and "## Archived" in out
    assert "\n    follow up in June" in out  # its own indent, inside the item


def test_the_markdown_export_reimports_its_memories_without_its_preamble(
    alice, alices_memories, bob, tmp_path
):
    export_file = tmp_path / "talkingrock-alice.md"
    run("export", "--user", "alice", "--format", "markdown", "--out", str(export_file))

    run("import", str(export_file), "--user", "bob")

    # The same memories: identical up to whitespace, as the importer's own fingerprint counts
    # them (the Markdown indents continuation lines; Markdown's rules take the indent off).
    imported = Memory.objects.filter(owner=bob)
    assert sorted(m.content_hash for m in imported) == sorted(
        m.content_hash for m in alices_memories
    )
    assert imported.filter(content="Meeting notes:\n- budget agreed\nfollow up in June").exists()
    assert not imported.filter(content__icontains="Talking Rock memories").exists()
    assert not imported.filter(tags__icontains="Talking Rock memories").exists()
    assert not imported.filter(content__contains="id:").exists()
    assert imported.get(content="Likes jazz").tags == "talkingrock-alice, Your Story"


def test_export_out_writes_a_file(alice, remember, tmp_path):
    remember("The fuse box is under the stairs")
    target = tmp_path / "export.md"

    out, err = run("export", "--user", "alice", "--format", "markdown", "--out", str(target))

    assert out == ""
    assert f"Wrote {target}" in err
    assert "- The fuse box is under the stairs" in target.read_text(encoding="utf-8")


def test_export_to_a_folder_that_does_not_exist_is_a_command_error(alice, tmp_path):
    with pytest.raises(CommandError, match="Cannot write"):
        run("export", "--user", "alice", "--out", str(tmp_path / "missing" / "x.json"))
