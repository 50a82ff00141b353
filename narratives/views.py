"""The narratives pages: the member's links with keyword search, and the chain around a link."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from memories.models import Memory
from narratives import services
from narratives.models import Narrative
from talkingrock.text import MAX_SEARCH_CHARS, search_text

PAGE_SIZE = 25


@login_required
def index(request: HttpRequest) -> HttpResponse:
    """Newest first; ``?q=`` searches summaries and topics by keyword."""
    query, cut = search_text(request.GET.get("q", ""))
    message = ""
    if query:
        found = services.search_narratives(request.user, query=query, limit=PAGE_SIZE)
        rows, message = found.narratives, found.message
        if not rows and not message:
            message = f"No narrative mentions “{query}”."
        elif len(rows) == PAGE_SIZE:
            # Search is not paged: the newest matches, and a nudge to narrow the words.
            message = f"The {PAGE_SIZE} newest matches; add words to narrow the search."
        if cut:
            message = (
                f"Searches are limited to {MAX_SEARCH_CHARS} characters; the first "
                f"{MAX_SEARCH_CHARS} were searched. {message}"
            ).strip()
        page = None
    else:
        everything = services.with_links(Narrative.objects.filter(owner=request.user))
        page = Paginator(everything, PAGE_SIZE).get_page(request.GET.get("page"))
        rows = page.object_list
    return render(
        request,
        "narratives/index.html",
        {
            "narratives": rows,
            "page": page,
            "query": query,
            "message": message,
            "max_search_chars": MAX_SEARCH_CHARS,
        },
    )


@login_required
def detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The chain around one link: walk back through ``previous``, forward through what
    continues it; every link with its memories."""
    try:
        narrative = services.get(request.user, pk)
    except services.NarrativeNotFound:
        raise Http404("No such narrative.") from None
    links = services.chain(narrative)
    later = next(iter(links[-1].continuations.all()), None)
    memory_ids = {link.memory_id for item in links for link in item.links.all()}
    # The owner filter drops nothing by construction (a link only takes its owner's memories);
    # it is here so this page can never show another member's memory.
    memories = Memory.objects.filter(owner=request.user, pk__in=memory_ids).in_bulk()
    shown_next = [*links[1:], later]
    for item, following in zip(links, shown_next, strict=True):
        item.linked = [memories[m.memory_id] for m in item.links.all() if m.memory_id in memories]
        # The branches are the continuations not walked to: viewed from a branch, the chain
        # goes through it, and the first continuation becomes the one to list.
        walked = following.pk if following else None
        item.branches = [other for other in item.continuations.all() if other.pk != walked]
    return render(
        request,
        "narratives/detail.html",
        {
            "narrative": narrative,
            "links": links,
            "earlier": links[0].previous_id,
            "later": later,
        },
    )
