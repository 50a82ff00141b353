"""The review screen: what a closed conversation will be remembered as — its narrative, items and
facts beside one another, the earlier threads it closes and the decisions and facts it replaces
(each accepted or declined), the act it goes to, or a split across acts. Works without
JavaScript: one form (a Django form and two formsets, conversations/forms.py), posted and
redirected; posted with a mistake, it comes back as typed, with what is wrong.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from conversations import review
from conversations.forms import NOT_YOURS, ReviewForms
from conversations.models import Conversation
from conversations.services import TransitionError
from memories.models import Act, Memory, StateDelta

Status = Conversation.Status


@login_required
def review_page(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = get_object_or_404(
        Conversation.objects.select_related("act"), pk=pk, owner=request.user
    )
    if conversation.status == Status.ARCHIVED:
        return redirect("conversations:detail", pk=pk)
    memory = review.draft_of(conversation)
    if not conversation.review_ready or memory is None:
        return redirect("home")
    acts = list(Act.objects.filter(owner=request.user, status=Act.Status.ACTIVE))
    if request.method != "POST":
        return render(request, "conversations/review.html", _context(conversation, memory, acts))
    context = _context(conversation, memory, acts, data=request.POST)
    form: ReviewForms = context["form"]
    if form.is_valid():
        try:
            done = _apply(conversation, memory, form)
        except (TransitionError, ValidationError) as error:
            form.refuse(
                error.message if isinstance(error, TransitionError) else " ".join(error.messages)
            )
        except Act.DoesNotExist:
            form.refuse(NOT_YOURS)
        else:
            if done:
                messages.success(
                    request,
                    f"Remembered in {', '.join(m.act.title for m in done)}. The conversation is "
                    "archived.",
                )
                return redirect("memories:detail", pk=done[0].pk)
            messages.success(request, "Changes saved.")
            return redirect("conversations:review", pk=pk)
    # Nothing was written: the page comes back as it was posted, with what is wrong.
    context["problems"] = form.problems()
    return render(request, "conversations/review.html", context, status=400)


def _context(conversation: Conversation, memory: Memory, acts: list[Act], data=None) -> dict:
    report = conversation.compression_report
    route = report.get("route", {})
    deltas = list(memory.deltas.select_related("item__memory", "old_fact", "new_item", "new_fact"))
    suggested = next((a for a in acts if a.pk == route.get("act_id")), None)
    form = ReviewForms(
        memory,
        acts=acts,
        deltas=[d for d in deltas if d.resolves or d.type == StateDelta.Type.SUPERSEDED],
        items=list(memory.items.all()),
        facts=review.facts_of(memory),
        suggested=suggested,
        data=data,
    )
    return {
        "conversation": conversation,
        "memory": memory,
        "form": form,
        "new_threads": [
            d for d in deltas if not d.resolves and d.type != StateDelta.Type.SUPERSEDED
        ],
        "suggested": suggested,
        "route": route,
        "report": report,
    }


def _apply(conversation: Conversation, memory: Memory, form: ReviewForms) -> list[Memory]:
    """Save the edits (through review.edit, as the edit_memory tool does), then confirm or
    split if asked. Returns the kept memories.

    All or nothing: when confirm or split refuses (the form has already checked what it can, so
    this is a race, such as the conversation archived from another tab), the edits made just
    before are rolled back too, so the page can come back as posted and be posted again."""
    with transaction.atomic():
        review.edit(memory, form.edits())
        if form.action == "confirm":
            return review.confirm(
                conversation=conversation,
                destination=form.destination,
                narrative=form.narrative,
                declined=form.declined(),
            )
        if form.action == "split":
            return review.split(
                conversation=conversation, parts=form.split_parts(), declined=form.declined()
            )
        review.save_edits(conversation=conversation, narrative=form.narrative)
        return []
