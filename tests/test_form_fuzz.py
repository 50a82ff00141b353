"""Every form a member or an admin can reach, every field of it, hostile values: never a 5xx.

The pages are found by following links from the home page (as a household admin with a rich
household, in two states: a conversation waiting for review, and one being had), and every form
on them is read as a browser would submit it. Each field in turn, and an added ``next``, then
gets each of ``VALUES`` (not JSON, NaN and Infinity, huge and negative numbers, empty, null,
bare words, deep nesting, control characters, other hosts), the rest of the form left as it
was. The household admin site's add and change forms for every registered model are tried the
same way. Every submission runs in a savepoint rolled back afterwards, so each starts from the
same household.

The crawl is checked against the URLconf: a URL that accepts a form and is reached by no form
here fails ``test_every_form_url_is_fuzzed`` until it is (or is named in ``NOT_A_FORM``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.urls.exceptions import Resolver404
from django.utils import timezone

from conversations import review
from conversations import services as conversation_services
from conversations.models import Conversation, ConversationImport, Message
from household import passwords
from memories import insights, services, sharing, threads
from memories.consolidation import store
from memories.models import Act, Dream, Entity, Memory, MemoryItem, Observation
from narratives import services as narratives
from talkingrock.models import ApiToken
from tests.support import page_form

VALUES = [
    "",
    "NaN",
    "Infinity",
    "-Infinity",
    "1e309",
    "null",
    "foo",
    "-1",
    "0",
    "9" * 40,
    "9223372036854775808",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[" * 200,
    '{"a": NaN}',
    "[]",
    "fix the \x00 fence\x07 \x1b[31mred\x7f",
    "//evil.example/",
    "javascript:alert(1)",
    "x" * 20_000,
]
# What the admin's bigger forms get field by field (each of their pages costs ~40 ms): the
# values that can pass a field's own check and then break at the database. Every one of VALUES
# also goes into all of a form's fields at once.
DATABASE_BREAKERS = [
    "",
    "NaN",
    "1e309",
    "null",
    "9" * 40,
    "-1",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[" * 200,
    "fix the \x00 fence\x07 \x1b[31mred\x7f",
]
LINK_BUDGET = 250  # pages the crawl may visit in one state (it needs about a hundred)
PER_ROUTE = 3  # pages of one route (Your Story's page is an act's, but has no rename form)

# URLs that take no form, and why nothing here submits one to them.
NOT_A_FORM = {
    "setup": "exists only before the household does (tests/test_onboarding.py fuzzes it)",
    "engine": "the header's engine badge, polled",
    "export": "a download",
    "api-tools": "the tool API: JSON, fuzzed in tests/test_hostile_input.py",
    "api-tool": "the tool API: JSON, fuzzed in tests/test_hostile_input.py",
    "conversations:reply": "polled for a reply",
    "conversations:progress": "polled for a compression's stage",
    "conversations:why": "a page to read",
    "conversations:reading": "a page to read",
    "conversations:detail": "a page to read",
    "conversations:archive": "a page to read (its upload posts elsewhere)",
    "conversations:import": "an import's progress, polled",
    "memories:detail": "a page to read (its actions are their own URLs)",
    "memories:story": "a page to read",
    "memories:act": "a page to read",
    "memories:archive": "a page to read",
    "memories:entities": "a page to read",
    "memories:entity": "a page to read",
    "memories:dreams": "a page to read",
    "narratives:index": "a page to read",
    "narratives:detail": "a page to read",
    "home": "a page to read (its forms post elsewhere)",
    "logout": "signs out: posted last, by hand",
}


@dataclass(frozen=True)
class Failure:
    where: str
    field: str
    value: str
    status: int

    def __str__(self) -> str:
        return f"{self.status} at {self.where} with {self.field}={self.value[:40]!r}"


@pytest.fixture
def household(alice, bob, remember, index, django_capture_on_commit_callbacks):
    """A household admin with a bit of everything: memories (one archived, one in an act), a
    kept conversation with open threads, a narrative, an observation with history, a dream, a
    token, another member, and a conversation waiting for review."""
    act = Act.objects.create(owner=alice, title="Kitchen")
    memory = remember("The boiler hums in winter", tags="heating")
    remember("Dave quoted for the cabinets", act=act)
    archived = remember("The old gate code was 4411")
    services.memory_archive(owner=alice, memory_id=archived.pk)
    past, _ = conversation_services.add_message(owner=alice, content="We chose quartz for Dave.")
    conversation_services.add_message(owner=alice, content="I'm waiting on Dave for the quote.")
    conversation_services.request_close(conversation=past)
    with django_capture_on_commit_callbacks(execute=True):
        conversation_services.confirm_close(conversation=past)
    kept = review.confirm(conversation=past)[0]
    MemoryItem.objects.create(memory=kept, type="task", data={"description": "Call the plumber"})
    narratives.create(owner=alice, summary="Quartz won.", memory_ids=[kept.pk])
    index(alice)
    entity = Entity.objects.filter(owner=alice).first()
    observation = store.create(
        alice.pk,
        store.Draft("The boiler hums", entity_id=entity.pk if entity else None),
        [memory],
        engine="offline",
    )
    store.update(observation, "The boiler hums in winter", [archived], engine="offline")
    dream = Dream.objects.create(owner=alice, text="Boilers and quotes", reason="both", score=0.5)
    dream.facts_a.set([memory])
    dream.facts_b.set([kept])
    ApiToken.issue(owner=alice, name="phone")
    ApiToken.issue(owner=bob, name="bob's phone")
    # Sharing (issue 25): a shared act with bob (carol could join), a memory shared there, and
    # a thread shared on its own; the memory's own page offers to share the rest.
    get_user_model().objects.create_user("carol", password="x" * 12)
    place = sharing.create_shared_act(creator=alice, title="Kitchen remodel", member_ids=[bob.pk])
    quote = remember("Dave's quote is $38,000")
    sharing.share_memory(memory=quote, place=place)
    sharing.share_item(item=kept.items.filter(type="task").first(), place=place)
    pending, _ = conversation_services.add_message(owner=alice, content="Should we tile?")
    conversation_services.request_close(conversation=pending)
    with django_capture_on_commit_callbacks(execute=True):
        conversation_services.confirm_close(conversation=pending)
    # Its page (Take it back) is crawled from the start: the crawl visits few memories' pages.
    return {"pending": pending, "start": [quote.get_absolute_url()]}


def crawl(client: Client, start: list[str]) -> dict[str, bytes]:
    """Pages reachable by links and HTMX fetches from ``start`` (this site's, GET, redirects
    followed), at most
    ``PER_ROUTE`` of each route and query shape, with their HTML."""
    seen: Counter[tuple[str, tuple[str, ...]]] = Counter()
    visited: set[str] = set()
    pages: dict[str, bytes] = {}
    queue = list(start)
    while queue and len(visited) < LINK_BUDGET:
        url = queue.pop(0)
        parts = urlsplit(url)
        try:
            match = resolve(parts.path)
        except Resolver404:
            continue
        if match.route.startswith("admin/") or match.url_name in ("logout", "export", "engine"):
            continue
        shape = (match.route, tuple(sorted(q.split("=")[0] for q in parts.query.split("&"))))
        if url in visited or seen[shape] >= PER_ROUTE:
            continue
        seen[shape] += 1
        visited.add(url)
        response = client.get(url, follow=True)
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        landed = response.wsgi_request.get_full_path()
        pages[landed] = response.content
        queue += [urljoin(landed, href) for href in _links(response.content.decode())]
    return pages


def _links(html: str) -> Iterator[str]:
    found: list[str] = []

    class Links(HTMLParser):
        def handle_starttag(self, tag, attrs):
            # Links, and the fragments HTMX fetches (a reply being polled for has a form).
            attrs = dict(attrs)
            href = attrs.get("href") if tag == "a" else attrs.get("hx-get")
            if href and href.startswith("/") and not href.startswith("//"):
                found.append(href.split("#")[0])

    Links().feed(html)
    return iter(found)


def forms_of(pages: dict[str, bytes]) -> list[page_form.Form]:
    """Each distinct form once: by where it goes, how, and what it holds."""
    forms, seen = [], set()
    for url, html in pages.items():
        for form in page_form.all_forms(html, url):
            path = urlsplit(urljoin(url, form.action)).path
            form.action = path
            key = (path, form.method, tuple(form.names))
            if key not in seen and _url_name(path) not in ("logout",):
                seen.add(key)
                forms.append(form)
    return forms


def _url_name(path: str) -> str:
    try:
        match = resolve(path)
    except Resolver404:
        return ""
    return f"{match.namespace}:{match.url_name}" if match.namespace else match.url_name or ""


def fuzz(
    client: Client, form: page_form.Form, where: str, each_field: list[str] = VALUES
) -> list[Failure]:
    """Each field of ``form`` (and ``next``) with each of ``each_field``, then all of them at
    once with each of ``VALUES``; every submission in a savepoint rolled back. The CSRF token is
    left alone: any other value is a 403, every time."""
    failures = []
    fields = [name for name in form.names if name != "csrfmiddlewaretoken"]
    fields += [] if "next" in fields else ["next"]
    tries = [
        (name, value, {name: value}) for name in one_per_row_kind(fields) for value in each_field
    ]
    tries += [("every field", value, dict.fromkeys(fields, value)) for value in VALUES]
    for name, value, changed in tries:
        with transaction.atomic():
            send = client.post if form.method == "post" else client.get
            response = send(form.action, {**form.submitted(), **changed})
            transaction.set_rollback(True)
        if response.status_code >= 500:
            failures.append(Failure(where, name, value, response.status_code))
    return failures


def one_per_row_kind(fields: list[str]) -> list[str]:
    """The fields tried one by one. Fields whose names differ only in a number are one form
    field repeated on rows (``item-0-main``, ``item-1-main``; ``delta-12``, ``delta-13``): of each
    such kind the first and the last are tried (a formset's last row is its blank new one, whose
    fields are checked differently), and every row takes the every-field pass."""
    kinds: dict[str, list[str]] = {}
    for name in fields:
        kinds.setdefault(re.sub(r"\d+", "#", name), []).append(name)
    chosen = {name for names in kinds.values() for name in (names[0], names[-1])}
    return [name for name in fields if name in chosen]


def _shape(form: page_form.Form) -> tuple:
    """A form's kind: where it goes (the route, not the row), how, and what it holds."""
    return (resolve(form.action).route, form.method, tuple(form.names))


# The household in turn in each state that shows forms the others do not. Each step builds on
# the one before (one open conversation at a time); every state's pages are crawled afresh.
def _reviewed(alice, household):
    """No conversation open: the greeting, with open threads, one resolved thread, and a
    dismissed observation and dream to bring back."""
    review.confirm(conversation=household["pending"])
    item = MemoryItem.objects.filter(
        memory__owner=alice, is_active=True, type__in=MemoryItem.OPEN_TYPES
    ).first()
    threads.resolve(owner=alice, item_id=item.pk, how="done")
    # A fact and a decision replaced this week: "This week" offers their Undo.
    kept = item.memory
    now = timezone.now()
    newer = MemoryItem.objects.create(memory=kept, type="decision", data={"what": "quartz"})
    MemoryItem.objects.create(
        memory=kept, type="decision", data={"what": "oak"}, valid_to=now, superseded_by=newer
    )
    later = Memory.objects.create(owner=alice, act=kept.act, kind="fact", content="Tiles: grey.")
    Memory.objects.create(
        owner=alice,
        act=kept.act,
        kind="fact",
        content="Tiles: white.",
        valid_to=now,
        superseded_by=later,
    )
    insights.dismiss(Observation.objects.filter(owner=alice).first())
    insights.dismiss_dream(Dream.objects.filter(owner=alice).first())


def _talking(alice, household):
    """A conversation being had, whose last message waited too long for its reply."""
    conversation, message = conversation_services.add_message(
        owner=alice, content="The boiler is making noise again"
    )
    Message.objects.filter(pk=message.pk).update(created_at=timezone.now() - timedelta(hours=2))
    household["open"] = conversation


def _paused(alice, household):
    conversation_services.set_paused(conversation=household["open"], paused=True)


def _closing(alice, household):
    conversation_services.set_paused(conversation=household["open"], paused=False)
    conversation_services.request_close(conversation=household["open"])


def _failed(alice, household):
    """Its compression failed: Retry is offered."""
    conversation_services.confirm_close(conversation=household["open"])  # no commit: not run
    Conversation.objects.filter(pk=household["open"].pk).update(
        compression_stage=Conversation.Stage.FAILED, compression_error="the model went away"
    )


def _import_stopped(alice, household):
    """An import that stopped half way: Try again is offered on its page."""
    ConversationImport.objects.create(
        owner=alice,
        source=ConversationImport.Source.CLAUDE,
        status=ConversationImport.Status.FAILED,
        error="Piano lessons: RuntimeError: the worker went away",
        report=[
            {"key": "claude:1", "title": "Piano lessons", "started_at": "2026-02-10T20:00:00",
             "messages": 3, "state": "waiting", "conversation": None}
        ],
    )  # fmt: skip


STATES = [
    ("a conversation waiting for review", lambda alice, household: None),
    ("nothing open", _reviewed),
    ("talking", _talking),
    ("paused", _paused),
    ("ready to close", _closing),
    ("compression failed", _failed),
    ("an import stopped", _import_stopped),
]


def test_no_form_field_answers_a_server_error(alice, household, templates_as_served):
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    failures: list[Failure] = []
    fuzzed: set[str] = set()
    done: set[tuple] = set()

    for state, prepare in STATES:
        prepare(alice, household)
        pages = crawl(client, ["/", reverse("settings"), reverse("members"), *household["start"]])
        for form in forms_of(pages):
            fuzzed.add(_url_name(form.action))
            if _shape(form) not in done:
                done.add(_shape(form))
                failures += fuzz(client, form, f"{state}: {form.method.upper()} {form.action}")

    assert not failures, "\n".join(map(str, failures[:30]))
    assert fuzzed >= FORM_URLS, f"no form reached {FORM_URLS - fuzzed}"


def test_the_signed_out_forms_answer_no_server_error(alice, bob):
    """Signing in, and a member's one-time link from a password reset."""
    link = passwords.reset(member=bob, by=alice)
    client = Client(raise_request_exception=False)
    forms: list[page_form.Form] = []
    for url in (reverse("login"), reverse("reset-link", args=[link.uidb64, link.token])):
        response = client.get(url, follow=True)
        forms += page_form.all_forms(response.content, response.wsgi_request.path)
    failures = []
    for form in forms:
        failures += fuzz(client, form, f"{form.method.upper()} {form.action}")

    assert {_url_name(form.action) for form in forms} >= {"login", "reset-link"}
    assert not failures, "\n".join(map(str, failures[:30]))


def admin_forms(client: Client, alice) -> list[tuple[str, page_form.Form]]:
    found = []
    for model, model_admin in admin.site._registry.items():
        info = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        # A row of alice's own to change, else the add form (the same fields either way).
        own = model_admin.get_queryset(_request_of(alice)).first()
        urls = [reverse(f"{info}_change", args=[own.pk]) if own else reverse(f"{info}_add")]
        if model_admin.has_add_permission(_request_of(alice)) and own is not None:
            urls.append(reverse(f"{info}_add"))
        for url in urls:
            response = client.get(url)
            if response.status_code != 200:
                continue  # add is refused for the read-only ones
            for form in page_form.all_forms(response.content, url):
                if form.method == "post" and form.id.endswith("_form"):
                    found.append((f"{model.__name__} {url}", form))
    return found


def _request_of(user):
    request = RequestFactory().get("/admin/")
    request.user = user
    return request


def test_no_admin_form_field_answers_a_server_error(alice, household, templates_as_served):
    """The attack found a 500 for compression_report=NaN (also Infinity, 1e309, empty, null) on
    the admin's Conversation form."""
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    forms = admin_forms(client, alice)
    failures = []
    for where, form in forms:
        failures += fuzz(client, form, where, each_field=DATABASE_BREAKERS)

    models = {where.split()[0] for where, _ in forms}
    assert models >= {"Conversation", "Memory", "User", "Act", "Observation", "Narrative"}
    assert not failures, "\n".join(map(str, failures[:30]))


def _form_urls() -> set[str]:
    """Every URL name outside the admin, but those that take no form."""
    names = set()

    def walk(patterns, namespace=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.namespace == "admin":
                    continue
                inner = f"{pattern.namespace}:" if pattern.namespace else namespace
                walk(pattern.url_patterns, inner)
            elif isinstance(pattern, URLPattern) and pattern.name:
                names.add(f"{namespace}{pattern.name}")

    walk(get_resolver().url_patterns)
    return names - set(NOT_A_FORM) - {"login", "reset-link"}


FORM_URLS = _form_urls()


def test_every_form_url_is_fuzzed():
    """The list the crawl must reach is the URLconf's, not a hand-kept subset."""
    assert {"memories:reinforce", "conversations:review", "member-reset"} <= FORM_URLS
    assert "conversations:send" in FORM_URLS and "memories:observation-edit" in FORM_URLS


def test_repeated_rows_are_fuzzed_first_and_last_and_every_other_field_alone():
    fields = ["action", "item-0-main", "item-1-main", "item-2-main", "item-TOTAL_FORMS"]
    fields += ["delta-12", "delta-30", "delta-31", "split-4-keep", "split-4", "next"]

    assert one_per_row_kind(fields) == [
        "action",
        "item-0-main",
        "item-2-main",
        "item-TOTAL_FORMS",
        "delta-12",
        "delta-31",
        "split-4-keep",
        "split-4",
        "next",
    ]
