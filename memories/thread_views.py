"""Open threads ticked off by hand: mark an open item done or dismissed, and undo. A form that
works without JavaScript: post, then on to its ``next``, a page where the item still is, with
its Undo (the greeting's "This week", or the item's memory; that is also where a form without a
usable ``next`` goes). With HTMX only the item's line is swapped, showing how it closed and its
Undo in place."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memories import threads
from memories.models import MemoryItem
from talkingrock.navigation import next_url


def _answer(request: HttpRequest, item: MemoryItem, note: str) -> HttpResponse:
    if request.htmx:
        context = {
            "item": item,
            "open_types": MemoryItem.OPEN_TYPES,
            "with_type": bool(request.POST.get("with_type")),
            "with_act": bool(request.POST.get("with_act")),
            "closed_shown": bool(request.POST.get("closed_shown")),
            # The page the line is on, for its forms' next (this request's path is the POST's).
            "back": next_url(request, "").partition("#")[0],
        }
        return render(request, "memories/_thread.html", context)
    messages.success(request, note)
    return HttpResponseRedirect(next_url(request, _where_it_is(item)))


def _where_it_is(item: MemoryItem) -> str:
    """The item's memory, which lists it open or closed, with Done or Undo beside it."""
    return f"{reverse('memories:detail', args=[item.memory_id])}#thread-{item.pk}"


def _refuse(request: HttpRequest, error: threads.ThreadError) -> HttpResponse:
    if request.htmx:
        return HttpResponse(error.message, status=409)
    messages.error(request, error.message)
    return HttpResponseRedirect(next_url(request, "/"))


def _change(request: HttpRequest, change, pk: int, said, **options) -> HttpResponse:
    """``change`` (threads.resolve, reopen or make_current) applied to the member's item, then
    the item's line or back where the member was, with ``said(item)``; the refusal when it
    cannot be done; another member's item, or none, is a 404."""
    try:
        item = change(owner=request.user, item_id=pk, **options)
    except MemoryItem.DoesNotExist:
        raise Http404("No such thread.") from None
    except threads.ThreadError as error:
        return _refuse(request, error)
    return _answer(request, item, said(item))


def _how(item: MemoryItem) -> str:
    return "dismissed" if item.resolution == MemoryItem.Resolution.DISMISSED else "done"


@login_required
@require_POST
def resolve(request: HttpRequest, pk: int) -> HttpResponse:
    how = request.POST.get("how", "")
    return _change(
        request,
        threads.resolve,
        pk,
        lambda item: f"“{item.main}” marked {_how(item)}. Undo is beside it.",
        how=how,
    )


@login_required
@require_POST
def reopen(request: HttpRequest, pk: int) -> HttpResponse:
    return _change(request, threads.reopen, pk, lambda item: f"“{item.main}” is open again.")


@login_required
@require_POST
def make_current(request: HttpRequest, pk: int) -> HttpResponse:
    """Undo a replacement (the greeting's "This week"): the decision holds again."""
    return _change(request, threads.make_current, pk, lambda item: f"“{item.main}” holds again.")
