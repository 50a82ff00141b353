"""Memory browser: thin views over memories.services. Every page works without JavaScript;
with HTMX, actions swap just the memory card, "Older memories" appends the next page and the
search box replaces only the results."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from conversations import reasoning
from memories import evidence, insights, services, sharing
from memories import search as memory_search
from memories.acts import ensure_your_story, live_count
from memories.entities import listed
from memories.forms import MemoryForm, SearchForm
from memories.models import Act, Entity, Memory, MemoryItem, MemoryLink
from memories.recall import recall
from memories.recall.results import keyword_because
from narratives import services as narrative_services
from narratives.models import Narrative
from talkingrock.navigation import next_url
from talkingrock.text import MAX_SEARCH_CHARS, shortened

PAGE_SIZE = 20
SEARCH_LIMIT = 25
SAID_LIMIT = 10  # what was said in conversations, beside the keyword results
RELATED_LIMIT = 10
OBSERVED_LIMIT = 10  # an entity's observations on its page; the rest on the Observations page

# Pages that answer HTMX with a fragment and everyone else with the whole page: the same URL
# has two bodies, so caches (the browser's back button included) must key on the header.
varies_on_htmx = vary_on_headers("HX-Request")


def get_memory_for_user(request: HttpRequest, pk: int) -> Memory:
    return get_object_or_404(Memory.objects.select_related("act"), pk=pk, owner=request.user)


def get_act_for_user(request: HttpRequest, pk: int) -> Act:
    return get_object_or_404(Act, pk=pk, owner=request.user)


NAMED_CHARS = 60  # a memory named in a message


def _first_words(memory: Memory) -> str:
    """A memory named by its words in a message (never by its id)."""
    return shortened(memory.content, chars=NAMED_CHARS)


def _page(request: HttpRequest, queryset):
    return Paginator(queryset, PAGE_SIZE).get_page(request.GET.get("page"))


def _wants_fragment(request: HttpRequest) -> bool:
    # htmx restoring history after a cache miss asks for the whole page, not the fragment.
    return bool(request.htmx) and not request.htmx.history_restore_request


@login_required
def story(request: HttpRequest) -> HttpResponse:
    return redirect("memories:act", pk=ensure_your_story(owner=request.user).pk)


def _live_memories(request: HttpRequest, act: Act):
    return Memory.objects.filter(
        owner=request.user, act=act, archived_at=None, status=Memory.Status.CONFIRMED
    ).select_related("act")


def _act_context(request: HttpRequest, act: Act, form: MemoryForm) -> dict:
    # One query for the sidebar, with each act's count of live, confirmed memories (a draft
    # waiting for review is not in the act yet).
    acts = Act.objects.filter(owner=request.user, status=Act.Status.ACTIVE).annotate(
        live_count=live_count()
    )
    open_items = MemoryItem.objects.filter(
        memory__owner=request.user,
        memory__act=act,
        memory__status=Memory.Status.CONFIRMED,
        is_active=True,
        type__in=MemoryItem.OPEN_TYPES,
    ).order_by("-created_at")[:50]
    return {
        "act": act,
        "acts": acts,
        "sharing": _sharing_context(request, act),
        "themes": reasoning.identity_context(request.user)["themes"] if act.is_your_story else [],
        "open_items": open_items,
        "open_types": MemoryItem.OPEN_TYPES,
        "page": _page(request, _live_memories(request, act)),
        "form": form,
    }


def _sharing_context(request: HttpRequest, act: Act) -> dict | None:
    """A shared act's members, and who else in the household could join it."""
    if act.shared_id is None:
        return None
    members = list(sharing.members_of(act.shared))
    manages = sharing.may_manage(act)
    return {
        "members": members,
        "manages": manages,
        "others": sharing.household().exclude(pk__in=[m.pk for m in members]) if manages else [],
    }


@login_required
@varies_on_htmx
def act_memories(request: HttpRequest, pk: int) -> HttpResponse:
    """Your Story's timeline, or one act's memories, newest first, a page at a time."""
    act = get_act_for_user(request, pk)
    if _wants_fragment(request):
        page = _page(request, _live_memories(request, act))
        return render(request, "memories/act.html#memory-page", {"act": act, "page": page})
    form = MemoryForm(owner=request.user, initial={"act": act})
    return render(request, "memories/act.html", _act_context(request, act, form))


@login_required
@varies_on_htmx
def search(request: HttpRequest) -> HttpResponse:
    """Keywords (memory_query, with each rank factor) or meaning (hybrid recall, with the lists,
    entity path and time window behind each hit)."""
    form = SearchForm(request.GET)
    result = recalled = None
    said = []
    if form.is_valid() and form.cleaned_data["q"]:
        query, archived = form.cleaned_data["q"], form.cleaned_data["archived"]
        if form.cleaned_data["mode"] == "meaning":
            recalled = recall(request.user, query, k=SEARCH_LIMIT, include_archived=archived)
        else:
            result = services.memory_query(
                owner=request.user, query=query, limit=SEARCH_LIMIT, include_archived=archived
            )
            said = evidence.find(owner=request.user, query=query, limit=SAID_LIMIT)
    context = {
        "search_form": form,
        "cut": getattr(form, "cut", False),
        "max_search_chars": MAX_SEARCH_CHARS,
        "result": result,
        # Each keyword hit with why it was found, in words; the rank factors go in its details.
        # What a later one replaced comes after what is current (as recall orders it), and its
        # card says it was replaced.
        "keyword_hits": [
            (memory, hit, keyword_because(memory, result.terms))
            for memory, hit in sorted(result.hits, key=lambda found: found[0].valid_to is not None)
        ]
        if result
        else [],
        "recalled": recalled,
        "said": said,
        "limit": SEARCH_LIMIT,
        "score_factor": memory_search.SCORE_FACTOR,
        "recency_per_day": memory_search.RECENCY_PER_DAY,
    }
    if _wants_fragment(request):
        return render(request, "memories/search.html#results", context)
    return render(request, "memories/search.html", context)


@login_required
@varies_on_htmx
def archive(request: HttpRequest) -> HttpResponse:
    memories = Memory.objects.filter(owner=request.user, archived_at__isnull=False)
    context = {
        "page": _page(request, memories.select_related("act").order_by("-archived_at", "-id"))
    }
    if _wants_fragment(request):
        return render(request, "memories/archive.html#memory-page", context)
    return render(request, "memories/archive.html", context)


@login_required
@varies_on_htmx
def detail(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_memory_for_user(request, pk)
    if _wants_fragment(request):
        # "Keep it" on an inline delete confirmation brings the card back.
        return render(request, "memories/_card.html", {"memory": memory, "next": next_url(request)})
    related = (
        MemoryLink.objects.filter(memory=memory, related__owner=request.user)
        .select_related("related")
        .order_by("-strength", "-updated_at")[:RELATED_LIMIT]
    )
    # Seed 000's recall chain: the memory → its narrative → that narrative's other memories.
    stamped = Narrative.objects.filter(pk=memory.narrative_id, owner=request.user).first()
    siblings = (
        Memory.objects.filter(owner=request.user, narratives=stamped)
        .exclude(pk=memory.pk)
        .order_by("-created_at")[:RELATED_LIMIT]
        if stamped
        else []
    )
    return render(
        request,
        "memories/detail.html",
        {
            "memory": memory,
            "entities": memory.entities.filter(owner=request.user).order_by("name"),
            "related": related,
            "stamped": stamped,
            "siblings": siblings,
            "linking": memory.narratives.filter(owner=request.user).order_by("-created_at")[:10],
            "items": memory.items.select_related("superseded_by", "resolved_by"),
            "open_types": MemoryItem.OPEN_TYPES,
            "facts": memory.facts.filter(owner=request.user, status=Memory.Status.CONFIRMED),
            "replaces": memory.supersedes.filter(owner=request.user).order_by("-valid_to"),
            "influence": reasoning.influence_chain(request.user, memory.pk, limit=20),
            "places": sharing.places(request.user) if memory.share_id is None else [],
            "share_changes": sharing.changes_of(memory),
        },
    )


def get_entity_for_user(request: HttpRequest, pk: int) -> Entity:
    return get_object_or_404(Entity, pk=pk, owner=request.user)


@login_required
def entities(request: HttpRequest) -> HttpResponse:
    """Everyone and everything the member's memories name, most mentioned first: not a day nor
    an "X and Y" pair stored before the extraction rules left those out (entities.listed)."""
    rows = listed(
        Entity.objects.filter(owner=request.user)
        .annotate(mention_count=Count("mentions"))
        .order_by("-mention_count", "name")
    )
    return render(request, "memories/entities.html", {"page": _page(request, rows)})


@login_required
@varies_on_htmx
def entity(request: HttpRequest, pk: int) -> HttpResponse:
    """Every memory that mentions one entity, newest first."""
    named = get_entity_for_user(request, pk)
    memories = (
        Memory.objects.filter(owner=request.user, mentions__entity=named)
        .select_related("act")
        .order_by("-created_at", "-id")
    )
    context = {"entity": named, "page": _page(request, memories)}
    if _wants_fragment(request):
        return render(request, "memories/entity.html#memory-page", context)
    context["observations"] = insights.with_previously(
        insights.observations(request.user.pk, entity=named)[:OBSERVED_LIMIT]
    )
    return render(request, "memories/entity.html", context)


@login_required
@require_POST
def create(request: HttpRequest) -> HttpResponse:
    form = MemoryForm(request.POST, owner=request.user)
    if form.is_valid():
        try:
            memory = services.memory_store(
                owner=request.user,
                content=form.cleaned_data["content"],
                tags=form.cleaned_data["tags"],
                source=Memory.Source.MANUAL,
                act=form.cleaned_data["act"],
                narrative_id=narrative_services.latest_id(request.user),  # the active link's stamp
            )
        except ValidationError as error:
            form.add_error("content", error)
        else:
            messages.success(request, f"Remembered: “{_first_words(memory)}”.")
            return redirect("memories:act", pk=memory.act_id)
    act = form.cleaned_data.get("act") or ensure_your_story(owner=request.user)
    return render(request, "memories/act.html", _act_context(request, act, form), status=400)


@login_required
def edit(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_memory_for_user(request, pk)
    form = MemoryForm(
        request.POST or None,
        owner=request.user,
        initial={"content": memory.content, "tags": memory.tags, "act": memory.act},
        content_rows=8,
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.memory_update(
                owner=request.user,
                memory_id=memory.pk,
                content=form.cleaned_data["content"],
                tags=form.cleaned_data["tags"],
                act=form.cleaned_data["act"],
            )
        except ValidationError as error:
            form.add_error("content", error)
        except sharing.ShareError as error:
            form.add_error("act", error.message)
        else:
            messages.success(request, "Saved your changes.")
            return redirect("memories:detail", pk=memory.pk)
    status = 400 if form.errors else 200
    return render(request, "memories/edit.html", {"memory": memory, "form": form}, status=status)


def _card_or_back(request: HttpRequest, memory: Memory, note: str) -> HttpResponse:
    """After an action: the updated card for HTMX, else back where the member was."""
    back = next_url(request)
    if request.htmx:
        return render(
            request, "memories/_card.html", {"memory": memory, "note": note, "next": back}
        )
    messages.success(request, note)
    return HttpResponseRedirect(back or memory.get_absolute_url())


@login_required
@require_POST
def make_current(request: HttpRequest, pk: int) -> HttpResponse:
    """Undo a replacement: the memory holds again."""
    memory = get_memory_for_user(request, pk)
    memory = services.memory_make_current(owner=request.user, memory_id=memory.pk)
    return _card_or_back(request, memory, f"“{_first_words(memory)}” holds again.")


@login_required
@require_POST
def reinforce(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_memory_for_user(request, pk)
    memory = services.memory_reinforce(owner=request.user, memory_id=memory.pk)
    return _card_or_back(request, memory, "Reinforced: it ranks higher in search now.")


@login_required
@require_POST
def demote(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_memory_for_user(request, pk)
    memory = services.memory_demote(owner=request.user, memory_id=memory.pk)
    return _card_or_back(request, memory, "Demoted: it ranks lower in search now.")


@login_required
@require_POST
def archive_memory(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_memory_for_user(request, pk)
    memory = services.memory_archive(owner=request.user, memory_id=memory.pk)
    return _card_or_back(request, memory, "Archived: it stays searchable and can be restored.")


@login_required
@require_POST
def restore(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_memory_for_user(request, pk)
    memory = services.memory_restore(owner=request.user, memory_id=memory.pk)
    return _card_or_back(request, memory, "Restored.")


@login_required
@varies_on_htmx
def delete(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks for confirmation (inline in the card with HTMX); POST deletes for real: the
    member's own explicit choice, the one place where a memory is not merely archived."""
    memory = get_memory_for_user(request, pk)
    back = next_url(request)
    if request.method == "POST":
        services.memory_delete(owner=request.user, memory_id=memory.pk)
        note = f"Deleted “{_first_words(memory)}” for good."
        if request.htmx:
            return render(request, "memories/delete.html#deleted", {"pk": pk, "note": note})
        messages.success(request, note)
        # Going back to the memory's own page would be a 404 now.
        if back and not back.startswith(memory.get_absolute_url()):
            return HttpResponseRedirect(back)
        return redirect("memories:act", pk=memory.act_id)
    context = {"memory": memory, "next": back}
    if _wants_fragment(request):
        return render(request, "memories/delete.html#confirm", context)
    return render(request, "memories/delete.html", context)
