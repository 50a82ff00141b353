"""Sharing an act (issue 25) opens no door to anyone's private rows, nor to another member's row
of what is shared: tests/test_isolation.py's proof, tried by a member inside a shared act and
one outside it.

Alice (with every private row of tests/test_isolation.py's ``alices``) and bob share "Kitchen
remodel": alice shares Dave's quote with its open waiting-on, bob shares his tiles. Carol is in
no shared act. Bob, inside, is refused alice's private rows exactly as before and alice's rows of
what they share too: he reaches the quote only through his own copy's id. Carol, outside, is
refused all of it, bob's copies included. Every id URL, every tool, the pages that list, search
and export, the admin, and MCP over stdio; nothing of alice's (or of what is shared) changes.
"""

from __future__ import annotations

import dataclasses
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from memories import services, sharing
from memories.acts import ensure_your_story
from memories.models import Act, Entity, Memory, MemoryItem, Share, ShareChange, SharedAct
from talkingrock.tools import REGISTRY, ToolError, call_tool
from tests import test_admin_isolation as admin_walk
from tests import test_isolation as isolation
from tests.support import processes
from tests.support.mcp_client import connected, shared_memories, stdio_parameters, stdio_session
from tests.test_isolation import (
    HTMX,
    ID_URL_CASES,
    SAID,
    Alices,
    arguments_with_alices_ids,
    assert_nothing_of_alices_shown,
    ids_in,
    snapshot,
)

# The fixtures these tests build on: alice's private rows, and bob's for the admin walk.
alices = isolation.alices
bobs = admin_walk.bobs

ACT_TITLE = "Kitchen remodel"
QUOTE = "The builder Dave quoted $38,000 for the kitchen worktops"
TILES = "Bob picked terracotta tiles for the kitchen floor"
CAROLS = "Carol's kitchen tap drips at night"
# What is shared in "Kitchen remodel": none of it may reach carol, who is not in it.
SHARED_WORDS = (QUOTE, TILES, ACT_TITLE, "final quote", "terracotta", "38,000")
# The URLs whose ids name a row that can be shared, or a member of a shared act.
SHAREABLE = {"memory", "archived", "item", "act", "entity", "member"}


@dataclass
class Household:
    alice: Any
    bob: Any
    carol: Any
    private: Alices  # alice's private rows (tests/test_isolation.py)
    shared: Alices  # the same, with alice's shared rows where a memory, thread or act goes
    copies: Alices  # the same, with bob's rows of the shared act: his copy, its thread, his place
    quote: Memory  # alice's original, shared
    copy: Memory  # bob's copy of it
    tiles: Memory  # bob's original, shared
    tiles_copy: Memory  # alice's copy of it
    carols: Memory  # carol's own kitchen memory

    def rows_of(self, member) -> set[int]:
        return set(Memory.everything.filter(owner=member).values_list("pk", flat=True))


@pytest.fixture
def household(alices, bob, remember, index) -> Household:
    alice = alices.member
    carol = get_user_model().objects.create_user("carol", password="carol's own password")
    place = sharing.create_shared_act(creator=alice, title=ACT_TITLE, member_ids=[bob.pk])
    bobs_place = sharing.place_of(bob, place.shared)
    quote = remember(QUOTE)
    MemoryItem.objects.create(
        memory=quote, type="waiting_on", data={"who": "Dave", "what": "final quote"}
    )
    sharing.share_memory(memory=quote, place=place)
    tiles = remember(TILES, owner=bob)
    sharing.share_memory(memory=tiles, place=bobs_place)
    carols = remember(CAROLS, owner=carol)
    for member in (alice, bob, carol):
        index(member)
        ensure_your_story(owner=member)  # made now, not by the first visit below
    quote.refresh_from_db()
    copy = Memory.objects.get(owner=bob, share=quote.share)

    def dave(member) -> Entity:
        return Entity.objects.get(owner=member, normalized="dave")

    shared = dataclasses.replace(
        alices,
        memory=quote,
        archived=quote,
        item=quote.items.get(),
        act=place,
        entity=dave(alice),
    )
    copies = dataclasses.replace(
        alices,
        member=bob,
        memory=copy,
        archived=copy,
        item=copy.items.get(),
        act=bobs_place,
        entity=dave(bob),
    )
    return Household(
        alice=alice,
        bob=bob,
        carol=carol,
        private=alices,
        shared=shared,
        copies=copies,
        quote=quote,
        copy=copy,
        tiles=tiles,
        tiles_copy=Memory.objects.get(owner=alice, share=tiles.share),
        carols=carols,
    )


def shared_snapshot(household: Household, visitor) -> tuple:
    """Everything alice and bob own (tests/test_isolation.py's snapshot), but the visitor's own
    (what bob does with his own rows is his), and every row of what is shared: the shared acts
    and each member's place, the shares and their changes, every member's row of a shared memory
    and of its threads."""
    return (
        *(snapshot(member) for member in (household.alice, household.bob) if member != visitor),
        list(SharedAct.objects.order_by("pk").values()),
        list(Act.objects.filter(shared__isnull=False).order_by("pk").values()),
        list(Share.objects.order_by("pk").values()),
        list(ShareChange.objects.order_by("pk").values()),
        list(Memory.everything.filter(share__isnull=False).order_by("pk").values()),
        list(MemoryItem.objects.filter(share_key__isnull=False).order_by("pk").values()),
    )


def signed_in(member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def assert_none_shown(body: str, words, where: str) -> None:
    shown = [word for word in words if word in body]
    assert not shown, f"{shown} shown at {where}"


def visits_of(only=None) -> int:
    """How many visits ``try_every_id_url`` makes."""
    return sum(
        len(visits)
        for target, visits, _ in ID_URL_CASES.values()
        if only is None or {*(target if isinstance(target, tuple) else (target,))} & only
    )


def try_every_id_url(client, visitor, rows: Alices, household: Household, *, only=None) -> int:
    """Every visit of ``ID_URL_CASES`` (those naming a shareable row when ``only`` is given) with
    ``rows``' ids: each answers as the case expects, shows none of alice's private words nor any
    of what is shared (bob reaches that at his own ids only), and changes nothing. How many."""
    before = shared_snapshot(household, visitor)
    visited = 0
    for name, (target, visits, expected) in ID_URL_CASES.items():
        targets = target if isinstance(target, tuple) else (target,)
        if only is not None and not set(targets) & only:
            continue
        url = reverse(name, args=[rows.pk_of(t) for t in targets])
        for visit in visits:
            data = visit.data(visitor) if callable(visit.data) else visit.data
            response = getattr(client, visit.method)(url, data, **(HTMX if visit.htmx else {}))
            where = f"{visitor} {visit.method.upper()} {url} ({name}, {visit})"

            assert response.status_code == expected, f"{where}: {response.status_code}"
            assert_nothing_of_alices_shown(response)
            assert_none_shown(response.content.decode(), SHARED_WORDS, where)
            assert shared_snapshot(household, visitor) == before, f"{where} changed a row"
            visited += 1
    return visited


# --- Every URL that takes an id ------------------------------------------------------------


def test_bob_inside_the_act_is_refused_alices_private_and_shared_rows_at_every_url(household):
    bob = signed_in(household.bob)

    private = try_every_id_url(bob, household.bob, household.private, household)
    shared = try_every_id_url(bob, household.bob, household.shared, household, only=SHAREABLE)

    assert private == visits_of() and shared == visits_of(SHAREABLE) > 30  # none skipped
    # The same visits fail for the right reason: bob reaches the quote through his own copy.
    page = bob.get(reverse("memories:detail", args=[household.copy.pk]))
    assert page.status_code == 200 and QUOTE in page.content.decode()
    assert "final quote" in page.content.decode()
    act = bob.get(reverse("memories:act", args=[household.copies.act.pk])).content.decode()
    assert QUOTE in act and TILES in act
    assert_nothing_of_alices_shown(page)


def test_carol_outside_the_act_is_refused_everyones_rows_of_it_at_every_url(household):
    carol = signed_in(household.carol)

    for rows in (household.private, household.shared, household.copies):
        only = None if rows is household.private else SHAREABLE
        assert try_every_id_url(carol, household.carol, rows, household, only=only) == visits_of(
            only
        )


def test_no_one_shares_into_or_stores_in_another_members_place(household):
    """A place in a shared act is its member's own act: nobody else's memory, thread or form can
    name it, whether or not they are in the act."""
    alice, bob, carol = household.alice, household.bob, household.carol
    alices_place, bobs_place = household.shared.act, household.copies.act
    tries = [(bob, alices_place), (carol, alices_place), (carol, bobs_place)]

    for member, place in tries:
        client = signed_in(member)
        before = shared_snapshot(household, member)
        own = services.memory_store(owner=member, content=f"{member} keeps this to themselves")
        thread = MemoryItem.objects.create(memory=own, type="task", data={"description": "Mow"})
        where = f"{member} into {place.owner}'s place"
        for name, row in (("memories:share", own), ("memories:thread-share", thread)):
            # Refused exactly as no place, or one that does not exist: the same answer, message.
            url = reverse(name, args=[row.pk])
            _, told = admin_walk.answer(client, admin_walk.Visit(name, url, "post"), url)
            theirs = admin_walk.Visit(name, url, "post", {"place": place.pk})
            missing = admin_walk.Visit(name, url, "post", {"place": admin_walk.MISSING})
            assert admin_walk.answer(client, theirs, url)[1] == told, where
            assert admin_walk.answer(client, missing, url)[1] == told, where
        stored = client.post(reverse("memories:create"), {"content": "Sneaked in", "act": place.pk})
        assert stored.status_code == 400 and "act" in stored.context["form"].errors, where
        moved = client.post(
            reverse("memories:edit", args=[own.pk]), {"content": own.content, "act": place.pk}
        )
        assert moved.status_code == 400 and "act" in moved.context["form"].errors, where
        own.refresh_from_db()
        thread.refresh_from_db()
        assert own.share is None and own.act.shared is None and thread.share_key is None, where
        with pytest.raises(ToolError) as refused:
            call_tool(member, "confirm_memory", memory_id=own.pk, destination_act_id=place.pk)
        assert refused.value.status == 404, where
        assert shared_snapshot(household, member) == before, where

    assert not Memory.objects.filter(content="Sneaked in").exists()
    assert Memory.objects.filter(share__isnull=False, owner=carol).count() == 0
    assert {m.owner for m in Memory.objects.filter(share=household.quote.share)} == {alice, bob}


# --- Every tool ------------------------------------------------------------------------------


def try_every_tool(member, id_sets: list[Alices], household: Household) -> list[str]:
    """Every registry tool as ``member``: one naming a row (with each set of ids) is refused as
    missing; one naming none answers with the member's own memories only. The id tools."""
    words = [SAID, *(SHARED_WORDS if member == household.carol else ())]
    before = shared_snapshot(household, member)
    id_tools = []
    for tool in REGISTRY.values():
        args, names_a_row = arguments_with_alices_ids(tool, id_sets[0])
        if not names_a_row:
            answer = json.dumps(call_tool(member, tool.name, **args))
            assert ids_in(json.loads(answer)) <= household.rows_of(member), tool.name
            assert_none_shown(answer, words, f"{tool.name} for {member}")
        else:
            id_tools.append(tool.name)
            for rows in id_sets:
                args, _ = arguments_with_alices_ids(tool, rows)
                with pytest.raises(ToolError) as refused:
                    call_tool(member, tool.name, **args)
                assert refused.value.status == 404, (tool.name, member, args)
                assert_none_shown(refused.value.message, words, f"{tool.name} for {member}")
        assert shared_snapshot(household, member) == before, f"{tool.name} for {member} changed"
    return id_tools


def test_every_tool_refuses_bob_and_carol_rows_not_their_own(household):
    bobs_tools = try_every_tool(household.bob, [household.private, household.shared], household)
    carols_tools = try_every_tool(
        household.carol, [household.private, household.shared, household.copies], household
    )

    assert bobs_tools == carols_tools
    named = {"memory_reinforce", "memory_update", "resolve_item", "get_open_threads"}
    assert named | {"search_memories", "confirm_memory", "edit_memory"} <= set(bobs_tools)


def test_bob_recalls_his_copy_and_carol_nothing_of_the_act(household):
    """The positive side of the refusals above: the same tools find bob's copy by his ids, and
    carol's own memory for carol, never anything of the act."""
    bob, carol, copy = household.bob, household.carol, household.copy

    for tool in ("search_memories", "memory_query"):
        found = call_tool(bob, tool, query="Dave quoted the kitchen worktops", limit=20)
        found_ids = ids_in(found)
        assert copy.pk in found_ids, tool
        assert found_ids <= household.rows_of(bob), tool
        theirs = call_tool(carol, tool, query="Dave quoted the kitchen worktops", limit=20)
        assert ids_in(theirs) == {household.carols.pk}, tool  # her tap, not the act's kitchen
        assert_none_shown(json.dumps(theirs), SHARED_WORDS, f"{tool} for carol")
    threads = call_tool(bob, "get_open_threads", act_id=household.copies.act.pk)
    assert "final quote" in json.dumps(threads)
    assert call_tool(bob, "memory_reinforce", id=copy.pk)["id"] == copy.pk
    assert ACT_TITLE in json.dumps(call_tool(bob, "list_acts"))
    assert ACT_TITLE not in json.dumps(call_tool(carol, "list_acts"))


# --- Pages that list, search and export ------------------------------------------------------


def test_lists_searches_and_exports_show_bob_his_copies_and_carol_nothing(household):
    words = "zanzibar safe 7391 quixotic locker balloons loft dave worktops tiles floor"
    pages = [
        (reverse("home"), {}, {}),
        (reverse("conversations:acts"), {}, {}),
        (reverse("memories:search"), {"q": words}, {}),
        (reverse("memories:search"), {"q": words, "archived": "on"}, HTMX),
        (reverse("memories:search"), {"q": words, "mode": "meaning"}, {}),
        (reverse("find"), {"q": words}, {}),
        (reverse("memories:timeline"), {}, {}),
        (reverse("memories:entities"), {}, {}),
        (reverse("memories:observations"), {}, {}),
        (reverse("memories:dreams"), {}, {}),
        (reverse("narratives:index"), {}, {}),
        (reverse("export", args=["json"]), {}, {}),
        (reverse("export", args=["markdown"]), {}, {}),
    ]
    alices_urls = [
        reverse("memories:detail", args=[pk])
        for pk in household.rows_of(household.alice) - {household.tiles_copy.pk}
    ]
    bob, carol = signed_in(household.bob), signed_in(household.carol)

    for url, params, headers in pages:
        for member, client in ((household.bob, bob), (household.carol, carol)):
            response = client.get(url, params, follow=True, **headers)
            body = response.content.decode()
            where = f"{member} at {url} {params}"

            assert response.status_code == 200, where
            assert_nothing_of_alices_shown(response)
            assert household.private.token.hint not in body, where
            assert_none_shown(body, [f'href="{u}"' for u in alices_urls], where)
            if member == household.carol:
                assert_none_shown(body, SHARED_WORDS, where)

    exported = json.loads(bob.get(reverse("export", args=["json"])).content)
    # His own words travel; his copy of alice's does not (household/backup.py: hers to export).
    assert [m["content"] for m in exported["memories"]] == [TILES]
    assert QUOTE not in json.dumps(exported)
    found = bob.get(reverse("memories:search"), {"q": "dave worktops"}).content.decode()
    assert reverse("memories:detail", args=[household.copy.pk]) in found  # his copy, found
    assert ACT_TITLE in bob.get(reverse("conversations:acts")).content.decode()


# --- The admin -------------------------------------------------------------------------------


def test_the_admin_shows_a_household_admin_her_own_rows_of_what_is_shared_only(client, alice, bobs):
    """What an admin sees of shared rows: her own, as any member does. Alice (a household
    admin, a superuser) and bob share "Allotment rota"; each shares a memory with an open thread.
    In the Memory and Act admin alice lists, opens and changes her own original, her copy of
    bob's memory and her place in the act; bob's original, his copy of hers and his place answer
    her exactly as a missing id does, as do all of bob's private rows (tests/
    test_admin_isolation.py's walk, once with bob's private rows and once with his shared ones).
    No admin page lists threads (MemoryItem is not registered): a thread is seen, by its owner
    only, on its memory's page in the app."""
    bob = bobs.member
    bobs_place = sharing.create_shared_act(
        creator=bob, title="Allotment rota", member_ids=[alice.pk]
    )
    alices_place = sharing.place_of(alice, bobs_place.shared)
    originals = {}
    for member, place, words in (
        (bob, bobs_place, "Bob waters the allotment beans on Sundays"),
        (alice, alices_place, "Alice brings the compost on Saturdays"),
    ):
        memory = services.memory_store(owner=member, content=words)
        MemoryItem.objects.create(memory=memory, type="task", data={"description": "Buy twine"})
        sharing.share_memory(memory=memory, place=place)
        originals[member] = memory
    bobs_copy = Memory.objects.get(owner=bob, share=originals[alice].share)
    alices_copy = Memory.objects.get(owner=alice, share=originals[bob].share)
    shared_rows = {**bobs.rows, Memory: originals[bob], Act: bobs_place}
    walks = [bobs, admin_walk.Bobs(member=bob, rows=shared_rows)]
    walks.append(admin_walk.Bobs(member=bob, rows={**shared_rows, Memory: bobs_copy}))
    client.force_login(alice)
    secrets = admin_walk.secrets_for(alice)
    before = admin_walk.snapshot(bobs)

    assert MemoryItem not in admin.site._registry
    for walk in walks:
        for model in (Memory, Act):
            visits = admin_walk.model_pages(model, admin.site._registry[model], walk, alice)
            for visit in visits:
                response, told = admin_walk.answer(client, visit, visit.url, visit.row_id)

                assert response.status_code < 500, visit
                body = response.content.decode().lower()
                shown = [word for word in secrets if word.lower() in body]
                assert not shown, f"{shown} shown to alice at {visit.label}: {visit.url}"
                if visit.missing_url:
                    _, missing = admin_walk.answer(
                        client, visit, visit.missing_url, admin_walk.MISSING
                    )
                    assert told == missing, f"{visit.label} tells bob's row from a missing one"
    assert admin_walk.snapshot(bobs) == before

    # Her own rows of the act, at the same pages: the refusals above are for the right reason.
    listed = client.get(admin_walk._admin_url(Memory, "changelist")).content.decode()
    for memory in (originals[alice], alices_copy):
        assert admin_walk._admin_url(Memory, "change", memory.pk) in listed
        page = client.get(admin_walk._admin_url(Memory, "change", memory.pk)).content.decode()
        assert memory.content in page
    for memory in (originals[bob], bobs_copy):
        assert admin_walk._admin_url(Memory, "change", memory.pk) not in listed
    acts = client.get(admin_walk._admin_url(Act, "changelist")).content.decode()
    assert admin_walk._admin_url(Act, "change", alices_place.pk) in acts
    assert admin_walk._admin_url(Act, "change", bobs_place.pk) not in acts
    assert (
        client.get(f"/admin/memories/memoryitem/{bobs_copy.items.get().pk}/change/").status_code
        == 404
    )


# --- MCP -------------------------------------------------------------------------------------

MCP_MEMBER = "writer0"


@pytest.fixture(scope="module")
def mcp_household(tmp_path_factory):
    """writer0 is in "Kitchen remodel" with writer1, who shares the quote into it; writer1 and
    writer2 share "Garden plans", which writer0 is not in. writer0 speaks MCP over stdio, its
    server starting while the rows are made (each process reads the database afresh)."""
    env = processes.file_env(tmp_path_factory.mktemp("mcp-shared"))
    shares = [
        ("writer1", "writer0", QUOTE, ACT_TITLE),
        ("writer1", "writer2", "The garden pond liner is torn near the heron", "Garden plans"),
    ]
    errlog = tmp_path_factory.mktemp("mcp-shared-log") / "stderr.txt"
    with ThreadPoolExecutor(max_workers=1) as pool:
        made = pool.submit(shared_memories, env, shares)
        with connected(stdio_session(stdio_parameters(env, MCP_MEMBER), errlog)) as client:
            client.answer("search_memories", {"query": "warm up"})  # loads its model meanwhile
            inside, outside = made.result()
            yield client, inside, outside


class Ids:
    """Row ids by what they name, as ``arguments_with_alices_ids`` asks for them."""

    def __init__(self, **ids: int):
        self.ids = ids

    def pk_of(self, target: str) -> int:
        return self.ids[target]


def mcp_id_tools(rows: Ids) -> dict[str, dict]:
    """Every tool whose ids all name a memory, a thread or an act, with ``rows``' ids."""
    tools = {}
    for tool in REGISTRY.values():
        try:
            args, names_a_row = arguments_with_alices_ids(tool, rows)
        except KeyError:
            continue  # names a conversation, a narrative, ...: tests/test_mcp.py's ground
        if names_a_row:
            tools[tool.name] = args
    return tools


def test_over_mcp_a_member_reaches_only_his_own_row_of_what_is_shared(mcp_household):
    """Over MCP (stdio, its own process and database file), writer0 is refused by every memory,
    thread and act tool the sharer's original and private rows in the act he is in, and every
    row of the act he is not in; his own copy's ids answer, and search finds his copy only."""
    client, inside, outside = mcp_household
    refused_sets = {
        "the sharer's original in his act": Ids(
            memory=inside["original"], item=inside["item"], act=inside["place"]
        ),
        "the sharer's private memory (and his thread and place)": Ids(
            memory=inside["private"], item=inside["item"], act=inside["place"]
        ),
        "the sharer's original in an act he is not in": Ids(
            memory=outside["original"], item=outside["item"], act=outside["place"]
        ),
        "another member's copy in that act": Ids(
            memory=outside["copy"], item=outside["copy_item"], act=outside["copy_place"]
        ),
    }
    tried = set()

    for label, rows in refused_sets.items():
        for name, args in mcp_id_tools(rows).items():
            result = client.call(name, args)
            text = result.content[0].text
            assert result.is_error and text.endswith("not found."), (label, name, text)
            assert "38,000" not in text and "heron" not in text, (label, name)
            tried.add(name)

    assert {"memory_reinforce", "memory_update", "resolve_item", "search_memories"} <= tried
    own = Ids(memory=inside["copy"], item=inside["copy_item"], act=inside["copy_place"])
    for name in ("memory_reinforce", "get_memory_influence_chain", "get_open_threads"):
        answer = client.answer(name, mcp_id_tools(own)[name])
        assert "error" not in answer, (name, answer)
    threads = client.answer("get_open_threads", {"act_id": inside["copy_place"]})
    assert "final quote" in json.dumps(threads)
    for name in ("memory_query", "search_memories"):
        found = client.answer(name, {"query": "Dave quoted the kitchen worktops"})
        assert [hit["id"] for hit in found["results"]] == [inside["copy"]], name
        pond = client.answer(name, {"query": "garden pond liner heron"})
        assert not {hit["id"] for hit in pond["results"]} & {outside["original"], outside["copy"]}
        assert "heron" not in json.dumps(pond["results"]), name
