"""Talk, close, review, acts and the conversation archive: thin views over the services.

Every page works without JavaScript (forms post and redirect); with HTMX the member's message
appears at once and the reply follows, and compression progress polls in place.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from conversations import chat, compression, services
from conversations.greeting import greeting
from conversations.models import Act, Conversation, Message
from conversations.services import TransitionError
from memories.models import Memory, MemoryItem, Recall

Status = Conversation.Status


def _conversation(request: HttpRequest, pk: int) -> Conversation:
    return get_object_or_404(Conversation.objects.select_related("act"), pk=pk, owner=request.user)


def _act(request: HttpRequest, pk: int) -> Act:
    return get_object_or_404(Act, pk=pk, owner=request.user)


def _refuse(request: HttpRequest, error: TransitionError | ValidationError, status: int = 409):
    text = error.message if isinstance(error, TransitionError) else " ".join(error.messages)
    if request.htmx:
        return render(request, "conversations/_error.html", {"error": text}, status=status)
    messages.error(request, text)
    return redirect("home")


@login_required
def home(request: HttpRequest) -> HttpResponse:
    conversation = services.open_conversation(request.user)
    if conversation is None:
        return render(request, "conversations/greeting.html", {"greeting": greeting(request.user)})
    if services.nudge_due(conversation):
        services.nudge(conversation=conversation)
    context = {"conversation": conversation, "messages_list": conversation.messages.all()}
    if conversation.status == Status.READY_TO_CLOSE:
        context["preview"] = compression.preview(conversation)
    if conversation.status == Status.COMPRESSING:
        if conversation.review_ready:
            return redirect("conversations:review", pk=conversation.pk)
        context["stalled"] = services.is_stalled(conversation)
        context["lost"] = services.is_lost(conversation)
    return render(request, "conversations/chat.html", context)


@login_required
@require_POST
def send(request: HttpRequest) -> HttpResponse:
    try:
        conversation, message = services.add_message(
            owner=request.user, content=request.POST.get("content", "")
        )
    except TransitionError as error:
        return _refuse(request, error, status=400)
    if request.htmx:  # the member's words now; the reply is fetched by the placeholder
        return render(
            request,
            "conversations/_sent.html",
            {"message": message, "conversation": conversation},
        )
    chat.respond(conversation=conversation, message=message)
    return redirect("home")


@login_required
@require_POST
def reply(request: HttpRequest, pk: int) -> HttpResponse:
    message = get_object_or_404(
        Message.objects.select_related("conversation__owner"),
        pk=pk,
        conversation__owner=request.user,
        role=Message.Role.USER,
    )
    answered = message.replies.first()
    if answered is None:  # a second click or a retried request answers once
        answered = chat.respond(conversation=message.conversation, message=message)
    return render(request, "conversations/_message.html", {"message": answered})


def _transition(name: str, action, success: str | None = None):
    @login_required
    @require_POST
    def view(request: HttpRequest, pk: int) -> HttpResponse:
        conversation = _conversation(request, pk)
        try:
            action(conversation)
        except TransitionError as error:
            return _refuse(request, error)
        if success:
            messages.success(request, success)
        return redirect("home")

    view.__name__ = name
    return view


pause = _transition("pause", lambda c: services.set_paused(conversation=c, paused=True))
unpause = _transition("unpause", lambda c: services.set_paused(conversation=c, paused=False))
close = _transition("close", lambda c: services.request_close(conversation=c))
resume = _transition(
    "resume", lambda c: services.resume(conversation=c), "Back to the conversation."
)
retry = _transition("retry", lambda c: services.retry_compression(conversation=c))


@login_required
@require_POST
def confirm_close(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = _conversation(request, pk)
    try:
        conversation = services.confirm_close(conversation=conversation)
    except TransitionError as error:
        return _refuse(request, error)
    if conversation.status == Status.ARCHIVED:
        messages.info(
            request, "Nothing was said, so nothing was remembered; the conversation is archived."
        )
        return redirect("home")
    conversation.refresh_from_db()
    if conversation.review_ready:  # no worker: it ran inline
        return redirect("conversations:review", pk=pk)
    return redirect("home")


@login_required
def progress(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = _conversation(request, pk)
    if conversation.review_ready and request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = reverse("conversations:review", args=[pk])
        return response
    return render(
        request,
        "conversations/_progress.html",
        {
            "conversation": conversation,
            "stalled": services.is_stalled(conversation),
            "lost": services.is_lost(conversation),
        },
    )


STAGES = [
    Conversation.Stage.ENTITIES,
    Conversation.Stage.NARRATIVE,
    Conversation.Stage.DELTAS,
    Conversation.Stage.EMBEDDINGS,
]


@login_required
def review(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = _conversation(request, pk)
    if conversation.status == Status.ARCHIVED:
        return redirect("conversations:detail", pk=pk)
    memory = compression.draft_of(conversation)
    if not conversation.review_ready or memory is None:
        return redirect("home")
    acts = list(Act.objects.filter(owner=request.user, status=Act.Status.ACTIVE))
    if request.method == "POST":
        try:
            done = _apply_review(request, conversation, memory, acts)
        except (TransitionError, ValidationError) as error:
            text = error.message if isinstance(error, TransitionError) else " ".join(error.messages)
            messages.error(request, text)
            return redirect("conversations:review", pk=pk)
        except Act.DoesNotExist:
            messages.error(request, "That act is not one of yours.")
            return redirect("conversations:review", pk=pk)
        if done:
            kept = done[0]
            messages.success(
                request,
                f"Remembered in {', '.join(m.act.title for m in done)}. The conversation is archived.",
            )
            return redirect("memories:detail", pk=kept.pk)
        messages.success(request, "Changes saved.")
        return redirect("conversations:review", pk=pk)
    report = conversation.compression_report
    route = report.get("route", {})
    items = list(memory.items.all())
    return render(
        request,
        "conversations/review.html",
        {
            "conversation": conversation,
            "memory": memory,
            "items": items,
            "item_types": MemoryItem.Type.choices,
            "deltas": list(memory.deltas.select_related("item__memory")),
            "acts": acts,
            "suggested": next((a for a in acts if a.pk == route.get("act_id")), None),
            "route": route,
            "report": report,
        },
    )


def _apply_review(request: HttpRequest, conversation, memory: Memory, acts: list[Act]):
    """Save the form's edits; then confirm or split if asked. Returns the kept memories."""
    post = request.POST
    action = post.get("action", "save")
    by_id = {act.pk: act for act in acts}
    for item in list(memory.items.all()):
        if post.get(f"item-{item.pk}-remove"):
            item.delete()
        elif f"item-{item.pk}-main" in post:
            compression.update_item(
                item=item,
                main=post.get(f"item-{item.pk}-main", ""),
                detail=post.get(f"item-{item.pk}-detail", ""),
            )
    if (new_main := post.get("new-main", "").strip()) and post.get("new-type"):
        compression.add_item(
            memory=memory, type=post["new-type"], main=new_main, detail=post.get("new-detail", "")
        )
    declined = [
        delta.pk
        for delta in memory.deltas.all()
        if delta.resolves and not post.get(f"delta-{delta.pk}")
    ]
    narrative = post.get("narrative")
    if action == "confirm":
        destination = _chosen_act(post.get("destination"), by_id)
        return compression.confirm(
            conversation=conversation,
            destination=destination,
            narrative=narrative,
            declined=declined,
        )
    if action == "split":
        return compression.split(
            conversation=conversation, parts=_split_parts(post, memory, acts), declined=declined
        )
    if narrative is not None:
        compression.save_edits(conversation=conversation, narrative=narrative)
    return []


def _split_parts(post, memory: Memory, acts: list[Act]) -> list[compression.Part]:
    """The acts that keep a part: ticked, given items, or given text of their own. Every box
    starts with the extracted narrative, so a box left as it was does not choose its act."""
    parts = []
    for act in acts:
        item_ids = [
            item.pk for item in memory.items.all() if post.get(f"item-{item.pk}-act") == str(act.pk)
        ]
        text = post.get(f"split-{act.pk}", "")
        rewritten = " ".join(text.split()) != " ".join(memory.content.split())
        if post.get(f"split-{act.pk}-keep") or item_ids or (text.strip() and rewritten):
            parts.append(compression.Part(act=act, text=text, item_ids=item_ids))
    return parts


def _chosen_act(value: str | None, by_id: dict[int, Act]) -> Act | None:
    if not value:
        return None
    try:
        return by_id[int(value)]
    except (KeyError, ValueError):
        raise Act.DoesNotExist("Act matching query does not exist.") from None


# --- archive of conversations, acts, why -------------------------------------------------------


@login_required
def archive(request: HttpRequest) -> HttpResponse:
    rows = (
        Conversation.objects.filter(owner=request.user, status=Status.ARCHIVED)
        .annotate(memory_count=Count("memories", filter=Q(memories__status="confirmed")))
        .order_by("-archived_at", "-pk")
    )
    page = Paginator(rows, 20).get_page(request.GET.get("page"))
    return render(request, "conversations/archive.html", {"page": page})


@login_required
def detail(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = _conversation(request, pk)
    return render(
        request,
        "conversations/detail.html",
        {
            "conversation": conversation,
            "messages_list": conversation.messages.all(),
            "memories": conversation.memories.filter(status=Memory.Status.CONFIRMED).select_related(
                "act"
            ),
        },
    )


@login_required
def acts(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            act = services.create_act(
                owner=request.user,
                title=request.POST.get("title", ""),
                description=request.POST.get("description", ""),
            )
        except TransitionError as error:
            messages.error(request, error.message)
            return redirect("conversations:acts")
        messages.success(request, f"Act “{act.title}” created.")
        return redirect("memories:act", pk=act.pk)
    # One query. Both counts walk the same join (act → memories → items), so each is counted
    # distinct: without it an act of 4 memories with 19 items said "19 memories".
    rows = (
        Act.objects.filter(owner=request.user)
        .annotate(
            live_count=Count(
                "memories",
                filter=Q(memories__archived_at=None, memories__status="confirmed"),
                distinct=True,
            ),
            open_count=Count(
                "memories__items",
                filter=Q(
                    memories__items__is_active=True,
                    memories__items__type__in=MemoryItem.OPEN_TYPES,
                    memories__status="confirmed",
                ),
                distinct=True,
            ),
        )
        .order_by("-is_your_story", "status", "title")
    )
    return render(request, "conversations/acts.html", {"acts": rows})


@login_required
@require_POST
def act_edit(request: HttpRequest, pk: int) -> HttpResponse:
    act = _act(request, pk)
    try:
        if "archived" in request.POST:
            services.set_act_archived(act=act, archived=request.POST["archived"] == "1")
        else:
            services.rename_act(
                act=act,
                title=request.POST.get("title", ""),
                description=request.POST.get("description"),
            )
    except TransitionError as error:
        messages.error(request, error.message)
    return redirect("memories:act", pk=act.pk)


@login_required
def why(request: HttpRequest, pk: int) -> HttpResponse:
    trail = get_object_or_404(Recall, pk=pk, owner=request.user)
    hits = trail.hits.select_related("memory").order_by("rank")
    return render(request, "conversations/why.html", {"trail": trail, "hits": hits})
