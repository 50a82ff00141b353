"""What the household shares, as pages: a new shared act and who is in it, a memory or a thread
shared into one and taken back. Thin views over memories/sharing.py; every id is looked up among
the member's own rows (their place in an act, their memory, their thread), so another member's
id is a 404 whether or not the two share an act. Forms post and come back; no JavaScript."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from memories import sharing, threads
from memories.forms import MembersForm, PlaceForm, SharedActForm
from memories.models import Act, Memory, MemoryItem
from talkingrock.navigation import next_url

CHOOSE_A_PLACE = "Choose a shared act you are in."


def _place(request: HttpRequest, pk: int) -> Act:
    """The member's place in a shared act."""
    return get_object_or_404(Act, pk=pk, owner=request.user, shared__isnull=False)


def _chosen_place(request: HttpRequest) -> Act | None:
    """The place posted as ``place``: one of the member's, else None (refused by the caller)."""
    form = PlaceForm(request.POST, places=sharing.places(request.user))
    return form.cleaned_data["place"] if form.is_valid() else None


def _ids(request: HttpRequest, form_class=MembersForm, **initial) -> tuple[list[int], dict]:
    """The members posted (each a member of the household, else refused) and the form's data."""
    form = form_class(request.POST, household=sharing.household())
    if not form.is_valid():
        raise sharing.ShareError("Choose members of this household.")
    return [member.pk for member in form.cleaned_data["members"]], form.cleaned_data


def _done(request: HttpRequest, fallback: str, *, note: str = "", error: str = "") -> HttpResponse:
    if error:
        messages.error(request, error)
    else:
        messages.success(request, note)
    return redirect(next_url(request, fallback))


@login_required
@require_POST
def create(request: HttpRequest) -> HttpResponse:
    try:
        ids, data = _ids(request, SharedActForm)
        place = sharing.create_shared_act(creator=request.user, title=data["title"], member_ids=ids)
    except sharing.ShareError as error:
        return _done(request, "/acts/", error=error.message)
    messages.success(request, f"Shared act “{place.title}” made.")
    return redirect("memories:act", pk=place.pk)


@login_required
@require_POST
def add_members(request: HttpRequest, pk: int) -> HttpResponse:
    place = _place(request, pk)
    try:
        added = sharing.add_members(place=place, member_ids=_ids(request)[0])
    except sharing.ShareError as error:
        return _done(request, place.get_absolute_url(), error=error.message)
    names = ", ".join(sharing.name_of(member) for member in added) or "No one new"
    return _done(request, place.get_absolute_url(), note=f"{names} added.")


@login_required
@require_POST
def remove_member(request: HttpRequest, pk: int, member: int) -> HttpResponse:
    """Take a member out of the act, or leave it (``member`` is the one asking)."""
    place = _place(request, pk)
    try:
        sharing.remove_member(place=place, member_id=member)
    except sharing.ShareError as error:
        return _done(request, place.get_absolute_url(), error=error.message)
    if member == request.user.pk:
        messages.success(
            request, f"You left “{place.title}”; what you shared stays with the others."
        )
        return redirect("conversations:acts")
    return _done(request, place.get_absolute_url(), note="Removed from the shared act.")


@login_required
@require_POST
def share_memory(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_object_or_404(Memory, pk=pk, owner=request.user)
    if (place := _chosen_place(request)) is None:
        return _done(request, memory.get_absolute_url(), error=CHOOSE_A_PLACE)
    try:
        sharing.share_memory(memory=memory, place=place)
    except sharing.ShareError as error:
        return _done(request, memory.get_absolute_url(), error=error.message)
    return _done(request, memory.get_absolute_url(), note=f"Shared into “{place.title}”.")


@login_required
@require_POST
def take_back(request: HttpRequest, pk: int) -> HttpResponse:
    memory = get_object_or_404(Memory, pk=pk, owner=request.user)
    try:
        sharing.take_back(memory=memory)
    except sharing.ShareError as error:
        return _done(request, memory.get_absolute_url(), error=error.message)
    return _done(request, memory.get_absolute_url(), note="Taken back: only you have it now.")


def _item(request: HttpRequest, pk: int) -> MemoryItem:
    """One of the member's threads in a kept memory (threads.item_of); anyone else's is a 404."""
    try:
        return threads.item_of(request.user, pk)
    except MemoryItem.DoesNotExist:
        raise Http404("No such thread.") from None


@login_required
@require_POST
def share_item(request: HttpRequest, pk: int) -> HttpResponse:
    item = _item(request, pk)
    back = item.memory.get_absolute_url()
    if (place := _chosen_place(request)) is None:
        return _done(request, back, error=CHOOSE_A_PLACE)
    try:
        sharing.share_item(item=item, place=place)
    except sharing.ShareError as error:
        return _done(request, back, error=error.message)
    return _done(request, back, note=f"Shared “{item.main}” into “{place.title}”.")


@login_required
@require_POST
def take_back_item(request: HttpRequest, pk: int) -> HttpResponse:
    item = _item(request, pk)
    back = item.memory.get_absolute_url()
    try:
        sharing.take_back_item(item=item)
    except sharing.ShareError as error:
        return _done(request, back, error=error.message)
    return _done(request, back, note="Taken back: only you have it now.")
