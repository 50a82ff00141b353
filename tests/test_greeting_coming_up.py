"""The greeting's "Coming up" (the next fourteen days: dated tasks, appointments, waiting-ons
with a due date), "This week" (what was done, dismissed, answered or changed, with Undo), and a
first visit's welcome (issue 24). Days come from the fields beside the member's words."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from conversations.greeting import greeting
from conversations.models import Conversation
from memories import threads
from memories.models import Act, Memory, MemoryItem

HTMX = {"HTTP_HX_REQUEST": "true"}
# A fixed Thursday morning: "next Monday" is 30 November, "Thursday at 9" is 3 December.
NOW = datetime(2026, 11, 26, 10, 0, tzinfo=timezone.get_current_timezone())
MONDAY = date(2026, 11, 30)


def talked_about(owner, title="Kitchen remodel") -> Memory:
    """A kept conversation memory in an act of the member's."""
    act = Act.objects.create(owner=owner, title=title)
    talk = Conversation.objects.create(owner=owner, status=Conversation.Status.ARCHIVED)
    return Memory.objects.create(
        owner=owner, content=f"Talked about the {title.lower()}.", act=act, conversation=talk
    )


def item(memory, kind="task", **data) -> MemoryItem:
    return MemoryItem.objects.create(memory=memory, type=kind, data=data)


def on(day: date, at: time = time.min) -> datetime:
    return datetime.combine(day, at, tzinfo=timezone.get_current_timezone())


def kept_fact(owner, content, when, **fields) -> Memory:
    act = Act.objects.filter(owner=owner).first() or talked_about(owner).act
    return Memory.objects.create(
        owner=owner, content=content, act=act, kind=Memory.Kind.FACT, happened_at=when, **fields
    )


def coming(owner, now=NOW) -> list[str]:
    return [line.words for line in greeting(owner, now=now).coming_up]


def form_next(page: str, action: str) -> str:
    """The ``next`` a page's form for ``action`` posts, as a browser would send it."""
    form = re.search(rf'<form method="post" action="{re.escape(action)}".*?</form>', page, re.S)
    assert form, f"no form for {action}"
    return re.search(r'name="next" value="([^"]*)"', form.group(0)).group(1)


def section(page: str, panel: str) -> str:
    start = page.index(f'id="{panel}"')
    return page[start : page.index("</ul>", start)]


# --- Coming up --------------------------------------------------------------------------------


def test_a_task_due_next_monday_and_the_plumber_on_thursday_are_coming_up_soonest_first(alice):
    memory = talked_about(alice)
    plumber = item(memory, description="the plumber Thursday at 9", on="2026-12-03", at="09:00")
    dentist = item(memory, description="call the dentist by Monday", due=MONDAY.isoformat())
    item(memory, description="order the tiles")  # no day: not coming up

    lines = greeting(alice, now=NOW).coming_up

    assert [line.item for line in lines] == [dentist, plumber]
    assert [line.when for line in lines] == ["by Mon 30 Nov", "Thu 3 Dec, 9am"]
    assert lines[0].words == "call the dentist by Monday"  # the member's words, untouched
    assert all(line.memory_id == memory.pk for line in lines)


def test_waiting_ons_with_a_due_date_and_appointments_in_memories_are_coming_up(alice):
    memory = talked_about(alice)
    item(memory, "waiting_on", who="Dave", what="the quote", due="2026-12-01")
    # No due date: the day it was said is beside it, but nothing is owed on that day.
    item(memory, "waiting_on", who="Alex", what="the contract", since="2026-11-26", on="2026-11-26")
    kept_fact(alice, "The boiler service is on Wednesday at 2:30pm.", on(date(2026, 12, 2)))

    shown = greeting(alice, now=NOW)

    assert [line.words for line in shown.coming_up] == [
        "Dave — the quote",
        "The boiler service is on Wednesday at 2:30pm.",
    ]
    assert [item.main for item in shown.waiting_ons] == ["Alex"]  # each item listed once


def test_a_memory_twenty_days_ahead_is_not_coming_up_but_one_fourteen_days_ahead_is(alice):
    kept_fact(alice, "Mum's birthday lunch.", on(NOW.date() + timedelta(days=20), time(12)))
    kept_fact(alice, "School play.", on(NOW.date() + timedelta(days=14), time(18)))

    assert coming(alice) == ["School play."]


def test_nothing_past_is_coming_up(alice):
    memory = talked_about(alice)
    item(memory, description="return the library books", on="2026-11-25")
    item(memory, description="drop the car at the garage", on="2026-11-26", at="08:30")
    item(memory, description="bins out", on="2026-11-26")  # today, all day
    kept_fact(alice, "Parents' evening was on Tuesday.", on(date(2026, 11, 24), time(18)))
    kept_fact(alice, "Physio at 9 this morning.", on(date(2026, 11, 26), time(9)))

    lines = greeting(alice, now=NOW).coming_up

    assert [line.words for line in lines] == ["bins out"]
    assert lines[0].when == "Today"


def test_replaced_archived_closed_and_draft_ones_are_not_coming_up(alice):
    memory = talked_about(alice)
    newer = item(memory, "decision", what="tiler on Friday", on="2026-11-27")
    older = item(memory, "decision", what="tiler on Tuesday", on="2026-12-01")
    MemoryItem.objects.filter(pk=older.pk).update(
        valid_to=NOW - timedelta(days=1), superseded_by=newer
    )
    done = item(memory, description="pay the deposit", due="2026-11-28")
    threads.resolve(owner=alice, item_id=done.pk, how="done")
    kept_fact(alice, "Dentist moved.", on(date(2026, 11, 30)), valid_to=NOW)
    kept_fact(alice, "Old gate code change.", on(date(2026, 11, 30)), archived_at=NOW)
    kept_fact(alice, "Unreviewed trip.", on(date(2026, 11, 30)), status=Memory.Status.DRAFT)
    put_away = talked_about(alice, "Old flat")
    item(put_away, description="hand back the keys", due="2026-11-29")
    Memory.objects.filter(pk=put_away.pk).update(archived_at=NOW)

    assert coming(alice) == ["tiler on Friday"]


def test_a_fact_from_a_conversation_is_coming_up_only_when_its_words_name_a_day(alice):
    extracted = {"source": Memory.Source.EXTRACTION}
    # Naming no day, a fact is given the day it was said, at noon: that is no appointment.
    kept_fact(alice, "Still waiting on Dave for the quote.", on(NOW.date(), time(12)), **extracted)
    kept_fact(
        alice,
        "The tiler comes on Monday.",
        on(MONDAY),
        details={"when": [{"text": "on Monday", "date": MONDAY.isoformat()}]},
        **extracted,
    )

    assert coming(alice) == ["The tiler comes on Monday."]


def test_a_due_date_a_model_wrote_in_words_is_read_against_the_day_it_was_written(alice):
    memory = talked_about(alice)
    task = item(memory, description="send the forms", due="next Monday")
    MemoryItem.objects.filter(pk=task.pk).update(created_at=NOW - timedelta(hours=1))

    lines = greeting(alice, now=NOW).coming_up

    assert [(line.words, line.day) for line in lines] == [("send the forms", MONDAY)]


def test_a_fact_from_the_same_conversation_as_a_dated_task_is_not_said_twice(alice):
    memory = talked_about(alice)
    item(memory, description="the plumber Thursday at 9", on="2026-12-03", at="09:00")
    kept_fact(
        alice,
        "The plumber comes Thursday at 9.",
        on(date(2026, 12, 3), time(9)),
        derived_from=memory,
    )
    kept_fact(alice, "The electrician comes Thursday.", on(date(2026, 12, 3)))

    # A day's all-day lines come before its timed ones.
    assert coming(alice) == ["The electrician comes Thursday.", "the plumber Thursday at 9"]


def test_a_fact_beside_a_waiting_on_already_answered_is_not_coming_up(alice):
    memory = talked_about(alice)
    quote = item(
        memory, "waiting_on", who="Dave", what="sending the quote by friday", due="2026-11-27"
    )
    kept_fact(
        alice,
        "Dave said he's sending the quote by friday.",
        on(date(2026, 11, 27)),
        derived_from=memory,
    )
    assert coming(alice) == ["Dave — sending the quote by friday"]

    threads.resolve(owner=alice, item_id=quote.pk, how="done")

    assert coming(alice) == []


def test_two_things_said_in_one_conversation_for_one_day_are_both_coming_up(alice):
    memory = talked_about(alice)
    item(memory, description="call the dentist by monday about maya's filling", due="2026-11-30")
    kept_fact(
        alice,
        "The plumber is coming monday at 9 to look at the leak.",
        on(date(2026, 11, 30), time(9)),
        derived_from=memory,
    )

    assert coming(alice) == [
        "call the dentist by monday about maya's filling",
        "The plumber is coming monday at 9 to look at the leak.",
    ]


def test_another_members_dated_items_and_memories_never_appear(alice, bob, alice_client):
    bobs = talked_about(bob, "Bob's garage")
    item(
        bobs,
        description="Bob's MOT on Monday",
        on=(timezone.localdate() + timedelta(days=2)).isoformat(),
    )
    kept_fact(bob, "Bob's secret surprise party.", timezone.now() + timedelta(days=3))
    mine = talked_about(alice)
    item(
        mine,
        description="Alice's haircut",
        on=(timezone.localdate() + timedelta(days=2)).isoformat(),
    )

    assert coming(alice, timezone.now()) == ["Alice's haircut"]
    assert coming(bob, timezone.now()) == ["Bob's MOT on Monday", "Bob's secret surprise party."]
    page = alice_client.get(reverse("home")).content.decode()
    assert "Alice&#x27;s haircut" in page
    assert "MOT" not in page and "surprise" not in page


def test_the_page_shows_coming_up_in_one_line_each_linked_to_its_memory(alice_client, alice):
    memory = talked_about(alice)
    soon = timezone.localdate() + timedelta(days=3)
    item(memory, description="call the dentist", due=soon.isoformat())

    page = alice_client.get(reverse("home")).content.decode()

    panel = section(page, "coming-up")
    assert "call the dentist" in panel and f"by {soon:%a} {soon.day} {soon:%b}" in panel
    assert reverse("memories:detail", args=[memory.pk]) in panel
    assert 'class="link tap thread-done"' in panel


# --- This week --------------------------------------------------------------------------------


def test_a_task_marked_done_is_in_this_week_and_undo_works_without_javascript(alice_client, alice):
    memory = talked_about(alice)
    task = item(
        memory,
        description="call the dentist",
        due=(timezone.localdate() + timedelta(days=2)).isoformat(),
    )
    resolve = reverse("memories:thread-resolve", args=[task.pk])
    reopen = reverse("memories:thread-reopen", args=[task.pk])
    home = reverse("home")
    page = alice_client.get(home).content.decode()

    done = alice_client.post(resolve, {"how": "done", "next": form_next(page, resolve)})

    assert done.status_code == 302 and done["Location"] == f"{home}#thread-{task.pk}"
    after = alice_client.get(home).content.decode()
    assert "marked done. Undo is beside it." in after
    week = section(after, "this-week")
    assert "call the dentist" in week and "done" in week and f'action="{reopen}"' in week
    assert 'id="coming-up"' not in after  # closed: no longer coming up

    undone = alice_client.post(reopen, {"next": form_next(after, reopen)})

    assert undone.status_code == 302
    back = alice_client.get(home).content.decode()
    assert f'action="{resolve}"' in section(back, "coming-up")  # back in its list, open
    assert 'id="this-week"' not in back
    task.refresh_from_db()
    assert task.is_active and task.resolution == ""


def test_with_htmx_done_answers_the_line_closed_with_its_undo_in_place(alice_client, alice):
    memory = talked_about(alice)
    task = item(
        memory,
        description="call the dentist",
        due=(timezone.localdate() + timedelta(days=2)).isoformat(),
    )

    response = alice_client.post(
        reverse("memories:thread-resolve", args=[task.pk]),
        {"how": "done", "next": f"/#thread-{task.pk}", "closed_shown": "1"},
        **HTMX,
    )

    body = response.content.decode()
    assert body.strip().startswith(f'<li class="thread closed" id="thread-{task.pk}"')
    assert "done" in body and reverse("memories:thread-reopen", args=[task.pk]) in body
    assert f'name="next" value="/#thread-{task.pk}"' in body  # the page it is on, not the POST's


def test_this_week_says_how_each_thing_closed_or_changed(alice):
    memory = talked_about(alice)
    later = Memory.objects.create(owner=alice, content="Dave's quote came.", act=memory.act)
    answered = item(memory, "waiting_on", who="Dave", what="the quote")
    MemoryItem.objects.filter(pk=answered.pk).update(
        is_active=False,
        resolved_by=later,
        resolved_at=NOW - timedelta(days=1),
        resolution="conversation",
    )
    long_ago = item(memory, description="measure the window")
    MemoryItem.objects.filter(pk=long_ago.pk).update(
        is_active=False, resolution="done", resolved_at=NOW - timedelta(days=9)
    )
    new_fact = kept_fact(alice, "School pickup is at 3:15 now.", None)
    kept_fact(
        alice,
        "School pickup is at 3:00.",
        None,
        valid_to=NOW - timedelta(days=2),
        superseded_by=new_fact,
    )

    week = greeting(alice, now=NOW).this_week

    assert [change.item for change in week] == [answered, None]
    assert week[1].now == "School pickup is at 3:15 now."
    assert week[1].previously == "School pickup is at 3:00."
    assert week[1].memory_id == new_fact.pk


def test_the_page_says_answered_in_which_conversation_and_changed_with_previously(
    alice_client, alice
):
    memory = talked_about(alice)
    later = Memory.objects.create(owner=alice, content="Dave's quote came.", act=memory.act)
    answered = item(memory, "waiting_on", who="Dave", what="the quote")
    MemoryItem.objects.filter(pk=answered.pk).update(
        is_active=False, resolved_by=later, resolved_at=timezone.now(), resolution="conversation"
    )
    new_fact = kept_fact(alice, "Pickup is at 3:15.", None)
    kept_fact(alice, "Pickup is at 3:00.", None, valid_to=timezone.now(), superseded_by=new_fact)

    week = section(alice_client.get(reverse("home")).content.decode(), "this-week")

    assert "answered" in week and "a “Kitchen remodel” conversation" in week
    assert reverse("memories:detail", args=[later.pk]) in week
    assert "Now “Pickup is at 3:15.”" in week
    assert "previously “Pickup is at 3:00.”" in week


def test_a_change_this_week_can_be_undone_without_javascript(alice_client, alice):
    new_fact = kept_fact(alice, "Swimming moved to 11.", None)
    old_fact = kept_fact(
        alice, "Swimming is at 10.", None, valid_to=timezone.now(), superseded_by=new_fact
    )
    memory = talked_about(alice, "Saturdays")
    newer = item(memory, "decision", what="tiles from the big shop")
    older = item(memory, "decision", what="tiles from the little shop")
    MemoryItem.objects.filter(pk=older.pk).update(valid_to=timezone.now(), superseded_by=newer)
    page = alice_client.get(reverse("home")).content.decode()

    for undo in (
        reverse("memories:make-current", args=[old_fact.pk]),
        reverse("memories:thread-make-current", args=[older.pk]),
    ):
        response = alice_client.post(undo, {"next": form_next(page, undo)})
        assert response.status_code == 302 and response["Location"] == reverse("home")

    old_fact.refresh_from_db()
    older.refresh_from_db()
    assert old_fact.valid_to is None and old_fact.superseded_by is None
    assert older.valid_to is None and older.superseded_by is None
    week = section(alice_client.get(reverse("home")).content.decode(), "this-week")
    assert "previously" not in week


# --- the rest of the greeting -----------------------------------------------------------------


def test_a_task_whose_day_passed_is_still_to_do_and_a_fresh_one_without_a_day_waits(alice):
    memory = talked_about(alice)
    item(memory, description="return the library books", on="2026-11-20")
    item(memory, description="order the tiles")
    # Written at the test's "now", not the machine's (on 27 November the tiles were a day newer
    # than NOW, and six days on from NOW not yet stale).
    MemoryItem.objects.filter(memory=memory).update(created_at=NOW)

    shown = greeting(alice, now=NOW)

    assert [task.main for task in shown.stale_tasks] == ["return the library books"]
    later = greeting(alice, now=NOW + timedelta(days=6))
    assert [task.main for task in later.stale_tasks] == [
        "return the library books",
        "order the tiles",
    ]


def test_a_first_visit_is_welcomed_not_welcomed_back(alice_client, alice):
    page = alice_client.get(reverse("home")).content.decode()

    assert "Welcome, alice" in page and "Welcome back" not in page
    assert "<title>Welcome · Talking Rock</title>" in page
    assert greeting(alice).first_visit

    Conversation.objects.create(owner=alice, status=Conversation.Status.ARCHIVED)
    again = alice_client.get(reverse("home")).content.decode()
    assert "Welcome back, alice" in again and "<title>Welcome back · " in again


def test_memories_an_import_or_an_agent_kept_are_not_a_first_visit(alice):
    talked_about(alice)
    Conversation.objects.filter(owner=alice).delete()  # only the memory remains

    assert not greeting(alice).first_visit


# --- Done and Undo elsewhere ------------------------------------------------------------------


def test_done_on_the_act_page_without_javascript_goes_where_the_undo_is(alice_client, alice):
    memory = talked_about(alice)
    task = item(memory, description="order the tiles")
    resolve = reverse("memories:thread-resolve", args=[task.pk])
    act_page = alice_client.get(reverse("memories:act", args=[memory.act_id])).content.decode()

    response = alice_client.post(resolve, {"how": "done", "next": form_next(act_page, resolve)})

    detail = reverse("memories:detail", args=[memory.pk])
    assert response["Location"] == f"{detail}#thread-{task.pk}"
    shown = alice_client.get(detail).content.decode()
    assert reverse("memories:thread-reopen", args=[task.pk]) in shown


def test_a_form_without_a_next_goes_to_the_items_memory(alice_client, alice):
    memory = talked_about(alice)
    task = item(memory, description="order the tiles")

    response = alice_client.post(
        reverse("memories:thread-resolve", args=[task.pk]), {"how": "done"}
    )

    assert (
        response["Location"] == reverse("memories:detail", args=[memory.pk]) + f"#thread-{task.pk}"
    )


@pytest.mark.parametrize("name", ["memories:thread-resolve", "memories:thread-reopen"])
def test_another_members_item_is_missing(bob_client, alice, name):
    task = item(talked_about(alice), description="order the tiles", due="2026-12-01")

    response = bob_client.post(reverse(name, args=[task.pk]), {"how": "done"})

    assert response.status_code == 404
    task.refresh_from_db()
    assert task.is_active


def test_an_answer_names_the_conversation_by_its_title(alice_client, alice):
    memory = talked_about(alice)
    talk = Conversation.objects.create(
        owner=alice, status=Conversation.Status.ARCHIVED, title="Quotes for the kitchen"
    )
    later = Memory.objects.create(
        owner=alice, content="Dave's quote came.", act=memory.act, conversation=talk
    )
    answered = item(memory, "waiting_on", who="Dave", what="the quote")
    MemoryItem.objects.filter(pk=answered.pk).update(
        is_active=False, resolved_by=later, resolved_at=timezone.now(), resolution="conversation"
    )

    week = section(alice_client.get(reverse("home")).content.decode(), "this-week")

    assert "answered" in week and "the “Quotes for the kitchen” conversation" in week
