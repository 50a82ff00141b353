"""The review screen: what a closed conversation will be remembered as — its narrative, items and
facts beside one another, the earlier threads it closes and the decisions and facts it replaces
(each accepted or declined), the act it goes to, or a split across acts. Works without
JavaScript: one form, posted and redirected.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from conversations import review
from conversations.models import Conversation
from conversations.services import TransitionError
from memories.models import Act, Memory, MemoryItem, StateDelta

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
    if request.method == "POST":
        try:
            done = _apply(request, conversation, memory, acts)
        except (TransitionError, ValidationError) as error:
            text = error.message if isinstance(error, TransitionError) else " ".join(error.messages)
            messages.error(request, text)
            return redirect("conversations:review", pk=pk)
        except Act.DoesNotExist:
            messages.error(request, "That act is not one of yours.")
            return redirect("conversations:review", pk=pk)
        if done:
            messages.success(
                request,
                f"Remembered in {', '.join(m.act.title for m in done)}. The conversation is "
                "archived.",
            )
            return redirect("memories:detail", pk=done[0].pk)
        messages.success(request, "Changes saved.")
        return redirect("conversations:review", pk=pk)
    report = conversation.compression_report
    route = report.get("route", {})
    deltas = list(memory.deltas.select_related("item__memory", "old_fact", "new_item", "new_fact"))
    return render(
        request,
        "conversations/review.html",
        {
            "conversation": conversation,
            "memory": memory,
            "items": list(memory.items.all()),
            "facts": review.facts_of(memory),
            "item_types": MemoryItem.Type.choices,
            "resolutions": [d for d in deltas if d.resolves],
            "supersessions": [d for d in deltas if d.type == StateDelta.Type.SUPERSEDED],
            "new_threads": [
                d for d in deltas if not d.resolves and d.type != StateDelta.Type.SUPERSEDED
            ],
            "acts": acts,
            "suggested": next((a for a in acts if a.pk == route.get("act_id")), None),
            "route": route,
            "report": report,
        },
    )


def edits_from(post, memory: Memory) -> review.Edits:
    """The form's changes to the narrative, items and facts."""
    edits = review.Edits(narrative=post.get("narrative"))
    for item in memory.items.all():
        if post.get(f"item-{item.pk}-remove"):
            edits.remove_items.append(item.pk)
        elif f"item-{item.pk}-main" in post:
            edits.items[item.pk] = (
                post.get(f"item-{item.pk}-main", ""),
                post.get(f"item-{item.pk}-detail", ""),
            )
    for fact in review.facts_of(memory):
        if post.get(f"fact-{fact.pk}-remove"):
            edits.remove_facts.append(fact.pk)
        elif f"fact-{fact.pk}-text" in post:
            edits.facts[fact.pk] = post[f"fact-{fact.pk}-text"]
    if (main := post.get("new-main", "").strip()) and post.get("new-type"):
        edits.add_items.append((post["new-type"], main, post.get("new-detail", "")))
    if new_fact := post.get("new-fact", "").strip():
        edits.add_facts.append(new_fact)
    return edits


def _apply(request: HttpRequest, conversation, memory: Memory, acts: list[Act]):
    """Save the form's edits; then confirm or split if asked. Returns the kept memories."""
    post = request.POST
    action = post.get("action", "save")
    edits = edits_from(post, memory)
    narrative, edits.narrative = edits.narrative, None  # confirm and split decide on it below
    review.edit(memory, edits)
    declined = [
        delta.pk
        for delta in memory.deltas.all()
        if (delta.resolves or delta.type == StateDelta.Type.SUPERSEDED)
        and not post.get(f"delta-{delta.pk}")
    ]
    if action == "confirm":
        return review.confirm(
            conversation=conversation,
            destination=_chosen_act(post.get("destination"), {a.pk: a for a in acts}),
            narrative=narrative,
            declined=declined,
        )
    if action == "split":
        return review.split(
            conversation=conversation, parts=_split_parts(post, memory, acts), declined=declined
        )
    if narrative is not None:
        review.save_edits(conversation=conversation, narrative=narrative)
    return []


def _split_parts(post, memory: Memory, acts: list[Act]) -> list[review.Part]:
    """The acts that keep a part: ticked, given items or facts, or given text of their own.
    Every box starts with the extracted narrative, so a box left as it was does not choose."""
    memory.refresh_from_db()
    items = list(memory.items.all())
    facts = review.facts_of(memory)
    parts = []
    for act in acts:
        chosen = str(act.pk)
        item_ids = [i.pk for i in items if post.get(f"item-{i.pk}-act") == chosen]
        fact_ids = [f.pk for f in facts if post.get(f"fact-{f.pk}-act") == chosen]
        text = post.get(f"split-{act.pk}", "")
        rewritten = " ".join(text.split()) != " ".join(memory.content.split())
        if post.get(f"split-{act.pk}-keep") or item_ids or fact_ids or (text.strip() and rewritten):
            parts.append(review.Part(act=act, text=text, item_ids=item_ids, fact_ids=fact_ids))
    return parts


def _chosen_act(value: str | None, by_id: dict[int, Act]) -> Act | None:
    if not value:
        return None
    try:
        return by_id[int(value)]
    except (KeyError, ValueError):
        raise Act.DoesNotExist("Act matching query does not exist.") from None
