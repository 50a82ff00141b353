"""The timeline page: what a member kept each week by act, their threads open and resolved week
by week, and their dated memories around today; each drawn as SVG with a table of the same
numbers, read here from the page itself. Another member's rows never show and never move a
number; a junk or huge ``?weeks=`` still answers the page."""

from __future__ import annotations

import itertools
import re
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from conversations import services as conversation_services
from memories import timeline
from memories.acts import ensure_your_story
from memories.models import Act, Memory, MemoryItem

URL = reverse("memories:timeline")


class Page(HTMLParser):
    """What a person (or a screen reader) gets from the page: each table by its caption, as
    rows of cell texts; each chart's role, name and title; the bars' and points' titles and
    links."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[str]]] = {}
        self.charts: list[dict] = []
        self.bar_titles: list[str] = []
        self.svg_links: list[str] = []
        self.svg_texts: list[str] = []
        self.titles: dict[str, str] = {}
        self._text: list[str] | None = None
        self._table: list[list[str]] | None = None
        self._in: list[str] = []
        self._title_id = ""
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self._in.append(tag)
        if tag == "svg" and "chart" in (attrs.get("class") or ""):
            self.charts.append(attrs)
        elif tag == "table":
            self._table = []
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag == "a" and "svg" in self._in:
            self.svg_links.append(attrs["href"])
        if tag in ("caption", "th", "td", "title", "text"):
            self._text, self._title_id = [], attrs.get("id", "")

    def handle_endtag(self, tag):
        text = " ".join("".join(self._text or []).split())
        if tag == "caption":
            self._caption = text
        elif tag in ("th", "td") and self._table is not None:
            self._table[-1].append(text)
        elif tag == "table":
            self.tables[self._caption] = self._table
            self._table = None
        elif tag == "title" and "rect" in self._in:
            self.bar_titles.append(text)
        elif tag == "title" and self._title_id:
            self.titles[self._title_id] = text
        elif tag == "text" and "svg" in self._in:
            self.svg_texts.append(text)
        if tag in ("caption", "th", "td", "title", "text"):
            self._text = None
        while self._in and self._in.pop() != tag:
            pass

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def table(self, starts: str) -> list[dict[str, str]]:
        """The table whose caption starts so, as one {column: cell} per row."""
        (rows,) = [rows for caption, rows in self.tables.items() if caption.startswith(starts)]
        head, *body = rows
        return [dict(zip(head, row, strict=True)) for row in body]


def page_of(client, query: str = "") -> Page:
    response = client.get(URL + query)
    assert response.status_code == 200
    return Page(response.content.decode())


@pytest.fixture
def window():
    """The page's twelve weeks, as the view will work them out."""
    return timeline.Window.ending(timezone.now(), timeline.DEFAULT_WEEKS)


def in_week(window, weeks_ago: int, hours: int = 36):
    """A moment in the week ``weeks_ago`` before this one (Tuesday noon by default)."""
    monday = window.mondays[-1] - timedelta(weeks=weeks_ago)
    return timeline.midnight(monday) + timedelta(hours=hours)


def week_label(window, weeks_ago: int) -> str:
    return timeline.day_month(window.mondays[-1] - timedelta(weeks=weeks_ago), year=True)


def keep(owner, text, *, at, act=None, happened=None, **fields) -> Memory:
    memory = Memory.objects.create(
        owner=owner, content=text, act=act or ensure_your_story(owner=owner), **fields
    )
    Memory.objects.filter(pk=memory.pk).update(created_at=at, happened_at=happened)
    return memory


def thread(memory, kind, *, made, resolved=None) -> MemoryItem:
    item = MemoryItem.objects.create(memory=memory, type=kind, data={"description": "x"})
    MemoryItem.objects.filter(pk=item.pk).update(
        created_at=made,
        is_active=resolved is None,
        resolved_at=resolved,
        resolution="done" if resolved else "",
    )
    return item


def household_history(owner, window, prefix=""):
    """A member's twelve weeks: kept memories in two acts and Your Story, and what must not
    count (a draft, an archived memory, one older than the window, what was said)."""
    kitchen = Act.objects.create(owner=owner, title=f"{prefix}Kitchen")
    garden = Act.objects.create(owner=owner, title=f"{prefix}Garden")
    for n in range(3):
        keep(owner, f"{prefix}tiles {n}", act=kitchen, at=in_week(window, 1))
    keep(owner, f"{prefix}hedge", act=garden, at=in_week(window, 1))
    keep(owner, f"{prefix}oven", act=kitchen, at=in_week(window, 4))
    # Replaced by a later decision: it was still kept that week.
    keep(
        owner, f"{prefix}butcher block", act=kitchen, at=in_week(window, 4), valid_to=timezone.now()
    )
    keep(owner, f"{prefix}birthday", at=in_week(window, 4))
    keep(owner, f"{prefix}draft", act=kitchen, at=in_week(window, 1), status="draft")
    keep(owner, f"{prefix}gone", act=garden, at=in_week(window, 1), archived_at=timezone.now())
    keep(owner, f"{prefix}long ago", act=garden, at=in_week(window, 14))
    _, message = conversation_services.add_message(owner=owner, content=f"{prefix}we said this")
    Memory.everything.filter(message=message).update(
        created_at=in_week(window, 1), happened_at=in_week(window, 1)
    )
    return kitchen, garden


def test_it_counts_what_was_kept_each_week_by_act(alice_client, alice, window):
    household_history(alice, window)
    page = page_of(alice_client)
    rows = {row["Week of"]: row for row in page.table("Memories kept each week")}

    assert len(rows) == timeline.DEFAULT_WEEKS
    assert rows[week_label(window, 1)] == {
        "Week of": week_label(window, 1),
        "Kitchen": "3",
        "Garden": "1",
        "Your Story": "0",
        "In all": "4",
    }
    assert rows[week_label(window, 4)]["Kitchen"] == "2"  # the replaced one counts
    assert rows[week_label(window, 4)]["Your Story"] == "1"
    # The draft, the archived one, the old one and what was said are nowhere.
    assert sum(int(row["In all"]) for row in rows.values()) == 7
    assert next(iter(rows.values()))["Week of"] == window.first_label  # oldest first


def test_the_bars_hold_the_tables_numbers(alice_client, alice, window):
    household_history(alice, window)
    page = page_of(alice_client)
    table = {
        f"Week of {row['Week of']}: {act}, {n}"
        for row in page.table("Memories kept each week")
        for act, n in row.items()
        if act not in ("Week of", "In all") and n != "0"
    }
    assert set(page.bar_titles) == table and len(page.bar_titles) == len(table) == 4


def test_acts_past_the_five_busiest_are_drawn_together(alice_client, alice, window):
    for size in range(1, 8):
        act = Act.objects.create(owner=alice, title=f"Act {size}")
        for n in range(size):
            keep(alice, f"note {size}.{n}", act=act, at=in_week(window, 2))
    (row,) = [
        r for r in page_of(alice_client).table("Memories kept each week") if r["In all"] != "0"
    ]
    assert list(row) == [
        "Week of",
        "Act 7",
        "Act 6",
        "Act 5",
        "Act 4",
        "Act 3",
        "Other acts",
        "In all",
    ]
    assert row["Other acts"] == "3" and row["In all"] == "28"


def test_it_counts_threads_open_at_each_weeks_end_and_resolved_during_it(
    alice_client, alice, window
):
    memory = keep(alice, "Talked about the kitchen.", at=in_week(window, 8))
    thread(memory, "task", made=in_week(window, 6))  # still open
    thread(memory, "waiting_on", made=in_week(window, 6), resolved=in_week(window, 4))
    thread(memory, "question_opened", made=in_week(window, 3), resolved=in_week(window, 3, 60))
    thread(memory, "decision", made=in_week(window, 6))  # not a thread
    draft = keep(alice, "Still under review.", at=in_week(window, 8), status="draft")
    thread(draft, "task", made=in_week(window, 6))  # not kept yet

    rows = page_of(alice_client).table("Threads open at each week's end")
    counts = [(int(r["Open at the week's end"]), int(r["Resolved that week"])) for r in rows]
    assert counts[-9:] == [
        (0, 0),  # eight weeks ago: the memory, but no thread yet
        (0, 0),
        (2, 0),  # six weeks ago: the task and the waiting-on
        (2, 0),
        (1, 1),  # four weeks ago: the waiting-on resolved
        (1, 1),  # the question, opened and resolved in one week
        (1, 0),
        (1, 0),
        (1, 0),  # this week: open now
    ]
    assert counts[:3] == [(0, 0)] * 3


def test_dated_memories_are_points_that_link_to_their_memory(alice_client, alice, window):
    now = timezone.now()
    behind = keep(
        alice,
        "Maya's dentist check-up at the Elm Road practice",
        at=now,
        happened=now - timedelta(weeks=2),
    )
    ahead = keep(alice, "Painter comes", at=now, happened=now + timedelta(weeks=2))
    keep(alice, "Far ahead", at=now, happened=now + timedelta(weeks=10))
    keep(alice, "Long before", at=now, happened=now - timedelta(weeks=20))
    keep(alice, "Archived date", at=now, happened=now, archived_at=now)
    keep(alice, "Not reviewed", at=now, happened=now, status="draft")
    _, message = conversation_services.add_message(owner=alice, content="we said Friday")
    Memory.everything.filter(message=message).update(happened_at=now)
    # A conversation's memory is dated by when it was held, a fact by when it was said when its
    # words name no day: neither is a date the member noted.
    keep(alice, "We talked about the garden.", at=now, happened=now, source="conversation")
    keep(alice, "Fence needs paint.", at=now, happened=now, source="extraction", kind="fact")

    response = alice_client.get(URL)
    page = Page(response.content.decode())
    urls = [behind.get_absolute_url(), ahead.get_absolute_url()]
    assert page.svg_links == urls  # oldest first
    rows = page.table("Dated memories")
    assert [row["What you kept"] for row in rows] == [behind.content, ahead.content]
    assert "(ahead)" in rows[1]["When"] and "(ahead)" not in rows[0]["When"]
    labels = [text for text in page.svg_texts if "·" in text]
    assert labels[0].endswith("Maya's dentist check-up at the El…")  # her words, cut
    assert labels[1].endswith("Painter comes")
    html = response.content.decode()
    assert html.count('class="point ahead"') == 2  # the point, and the legend's swatch
    for url in urls:
        assert html.count(f'href="{url}"') == 2  # the point and the table


def test_another_members_rows_never_show_nor_change_a_number(alice_client, alice, bob, window):
    household_history(alice, window)
    memory = keep(alice, "Alice's kitchen.", at=in_week(window, 5), happened=in_week(window, 1))
    thread(memory, "task", made=in_week(window, 5), resolved=in_week(window, 2))

    def main(html: str) -> str:
        return re.search(r"<main.*</main>", html, re.S).group(0)

    before = main(alice_client.get(URL).content.decode())
    household_history(bob, window, prefix="Bob's ")
    bobs = keep(bob, "Bob's dated thing.", at=in_week(window, 5), happened=in_week(window, 1))
    thread(bobs, "task", made=in_week(window, 5))
    thread(bobs, "waiting_on", made=in_week(window, 5), resolved=in_week(window, 2))
    after = main(alice_client.get(URL).content.decode())

    assert after == before
    assert "Bob" not in after and bobs.get_absolute_url() not in after


@pytest.mark.parametrize(
    ("asked", "weeks"),
    [
        ("", 12),
        ("?weeks=junk", 12),
        ("?weeks=26", 26),
        ("?weeks=2", 4),
        ("?weeks=-5", 4),
        ("?weeks=99999999999999999999", 52),
        ("?weeks=" + "9" * 5000, 12),
        ("?weeks=1.5", 12),
        ("?weeks=26&weeks=x", 12),
        ("?weeks=%00", 12),
    ],
)
def test_a_junk_or_huge_number_of_weeks_still_answers(alice_client, alice, asked, weeks):
    keep(alice, "Something kept.", at=timezone.now() - timedelta(hours=1))
    response = alice_client.get(URL + asked)
    assert response.status_code == 200
    assert response.context["weeks"] == weeks
    assert len(Page(response.content.decode()).table("Memories kept each week")) == weeks


def test_each_chart_is_an_image_with_a_title_and_a_table(alice_client, alice, window):
    memory = keep(alice, "Paint the hall", at=in_week(window, 1), happened=in_week(window, 1))
    thread(memory, "task", made=in_week(window, 1))
    page = page_of(alice_client)
    assert len(page.charts) == 3
    for chart in page.charts:
        assert chart["role"] == "img"
        assert "viewbox" in chart and "width" not in chart  # it scales to the screen
        title_id = chart["aria-labelledby"].split()[0]
        assert page.titles[title_id]
    assert len(page.tables) == 3
    for rows in page.tables.values():
        assert rows[0] and all(cells for cells in rows)


def test_with_nothing_kept_the_page_says_so_in_words(alice_client):
    response = alice_client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Nothing was kept in these 12 weeks." in html
    assert "No tasks, waiting-ons or questions were open" in html
    assert "No memory you kept has a date" in html
    assert '<svg class="chart' not in html and "<table" not in html


def test_a_visitor_is_asked_to_sign_in(client, bob):
    response = client.get(URL)
    assert response.status_code == 302 and "login" in response["Location"]


def test_labels_are_pushed_apart_but_stay_near_their_points():
    placed = timeline.spread([50, 50, 51, 300], top=10, bottom=310, gap=20)
    assert placed == [50, 70, 90, 300]
    crowded = timeline.spread([300, 305, 309], top=10, bottom=310, gap=20)
    assert crowded == [270, 290, 310]
    assert all(b - a >= 20 for a, b in itertools.pairwise(crowded))


@pytest.mark.parametrize(
    ("largest", "top"), [(0, 1), (1, 1), (7, 8), (23, 25), (99, 100), (1234, 1500)]
)
def test_the_count_axis_ends_on_a_round_number(largest, top):
    assert timeline.nice_top(largest)[0] == top


def test_past_forty_dates_the_ones_nearest_today_are_drawn(alice_client, alice):
    now = timezone.now()
    for n in range(timeline.EVENTS_DRAWN + 5):  # every day and a half, from 60 days back
        keep(alice, f"day {n}", at=now, happened=now - timedelta(days=60, hours=1 - 36 * n))
    response = alice_client.get(URL)
    page = Page(response.content.decode())
    drawn = [row["What you kept"] for row in page.table("Dated memories")]
    assert len(page.svg_links) == len(drawn) == timeline.EVENTS_DRAWN
    assert drawn[0] == "day 5" and drawn[-1] == "day 44"  # the five furthest back left out
    assert f"of {timeline.EVENTS_DRAWN + 5} dated in this stretch" in response.content.decode()


def test_the_pages_queries_do_not_grow_with_what_was_kept(alice_client, alice, window):
    def visit() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert alice_client.get(URL + "?weeks=52").status_code == 200
        return len(queries)

    keep(alice, "one", at=in_week(window, 1), happened=in_week(window, 1))
    few = visit()
    household_history(alice, window)
    for n in range(20):
        memory = keep(alice, f"more {n}", at=in_week(window, n % 10), happened=in_week(window, n))
        thread(memory, "task", made=in_week(window, n % 10))
    assert visit() == few
