"""The review screen: what a closed conversation will be remembered as — its narrative, items and
facts beside one another, the earlier threads it closes and the decisions and facts it replaces
(each accepted or declined), the act it goes to, or a split across acts. Works without
JavaScript: one form (a Django form and two formsets, conversations/forms.py), posted and
redirected; posted with a mistake, it comes back as typed, with what is wrong.

A new act can be named beside any act choice (made when the review is saved or confirmed), and
the whole conversation can be forgotten instead of kept, after a second, explicit confirmation.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from conversations import review, services
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
        "reading": _how_it_was_read(report),
        "new_threads": [
            d for d in deltas if not d.resolves and d.type != StateDelta.Type.SUPERSEDED
        ],
        "suggested": suggested,
        "route": route,
        "report": report,
    }


# The stages that read the conversation with a language model when one answers (the indexing
# stage always runs on this computer and says nothing about Ollama).
READ_STAGES = ("entities", "facts", "deltas", "route", "narrative")


def _how_it_was_read(report: dict) -> dict:
    """One plain line at most for the page ("Read on this computer without Ollama."), and each
    stage's engine and reason for the fold below it."""
    stages = [
        {
            "stage": stage,
            "engine": info.get("engine", ""),
            "model": info.get("model", ""),
            "reason": info.get("fallback_reason", "") if info.get("engine") == "offline" else "",
        }
        for stage, info in report.items()
        if isinstance(info, dict) and info.get("engine")
    ]
    engines = {row["engine"] for row in stages if row["stage"] in READ_STAGES}
    if engines == {"offline"}:
        line = "Read on this computer without Ollama."
    elif "offline" in engines:
        line = "Partly read on this computer: Ollama did not answer for every part."
    else:
        line = ""
    # One reason for every stage (Ollama down) is said once, above the list, not per stage.
    reasons = {row["reason"] for row in stages if row["reason"]}
    shared = reasons.pop() if len(reasons) == 1 else ""
    if shared:
        for row in stages:
            row["reason"] = ""
    return {"line": line, "reason": shared, "stages": stages}


def _apply(conversation: Conversation, memory: Memory, form: ReviewForms) -> list[Memory]:
    """Make the acts named, save the edits (through review.edit, as the edit_memory tool does),
    then confirm or split if asked, or keep the choices on the draft. Returns the kept memories.

    All or nothing: when confirm or split refuses (the form has already checked what it can, so
    this is a race, such as the conversation archived from another tab), the edits made just
    before (and an act just named) are rolled back too, so the page can come back as posted and
    be posted again."""
    owner = conversation.owner
    with transaction.atomic():
        destination = form.destination
        if form.new_act and form.action != "split":  # a split goes by its parts instead
            destination = review.act_named(owner=owner, name=form.new_act)
        fact_acts = {
            pk: review.act_named(owner=owner, name=act) if isinstance(act, str) else act
            for pk, act in form.fact_choices().items()
        }
        review.edit(memory, form.edits())
        if form.action == "confirm":
            return review.confirm(
                conversation=conversation,
                destination=destination,
                narrative=form.narrative,
                declined=form.declined(),
                fact_acts=fact_acts,
            )
        if form.action == "split":
            return review.split(
                conversation=conversation,
                parts=form.split_parts(fact_acts),
                declined=form.declined(),
            )
        review.save_edits(
            conversation=conversation,
            narrative=form.narrative,
            destination=destination,
            fact_acts=fact_acts,
        )
        return []


@login_required
def forget(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Forget this conversation": asked first (this page, or the fold on the review), then the
    draft, the transcript and what was found in it are gone. A GET only asks."""
    conversation = get_object_or_404(Conversation, pk=pk, owner=request.user)
    if conversation.status == Status.ARCHIVED:
        messages.error(
            request, "This conversation was kept; delete its memories if you want them gone."
        )
        return redirect("conversations:detail", pk=pk)
    if request.method != "POST":
        return render(request, "conversations/forget.html", {"conversation": conversation})
    try:
        services.forget(conversation=conversation)
    except TransitionError as error:
        messages.error(request, error.message)
        return redirect("home")
    messages.success(request, "Forgotten: nothing of that conversation is kept.")
    return redirect("home")
