"""The middle stages of a compression: what the conversation changes (the member's open items
it closes, the decisions and facts it replaces), which act it belongs to, and its narrative.

The offline engine's proposals (talkingrock/language/offline/changes.py, route.py, narrative.py) are
always computed; with Ollama the model's answers are checked against the ids it was shown and
added to them (resolutions, supersessions) or preferred (route, narrative).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from conversations import prompts
from conversations.asking import Produced, ask
from conversations.models import Conversation
from memories.models import Act, Memory, MemoryItem, Mention, StateDelta
from talkingrock.language import offline
from talkingrock.language.names import display_name
from talkingrock.language.offline.changes import Earlier, Proposal
from talkingrock.language.offline.pipeline import Extraction
from talkingrock.language.offline.route import ActProfile

MAX_EARLIER = 300  # open items, and current decisions and facts, a conversation is checked against


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.casefold()) if len(w) > 2}


def earlier_of(owner, conversation: Conversation | None) -> tuple[list[Earlier], list[Earlier]]:
    """(open items, current decisions and facts) of the member's other conversations; for an
    imported one, those from before it (a conversation from March cannot replace May's)."""
    confirmed = MemoryItem.objects.filter(
        memory__owner=owner, memory__status=Memory.Status.CONFIRMED
    ).exclude(memory__conversation=conversation)
    kept_facts = Memory.objects.filter(
        owner=owner,
        kind=Memory.Kind.FACT,
        status=Memory.Status.CONFIRMED,
        valid_to=None,
        archived_at=None,
    ).exclude(conversation=conversation)
    if conversation is not None and conversation.imported_from and conversation.last_message_at:
        confirmed = confirmed.filter(created_at__lt=conversation.last_message_at)
        kept_facts = kept_facts.filter(created_at__lt=conversation.last_message_at)
    open_items = [
        Earlier(("item", item.pk), item.type, item.text, who=str(item.data.get("who", "")))
        for item in confirmed.filter(is_active=True, type__in=MemoryItem.OPEN_TYPES).order_by(
            "-created_at"
        )[:MAX_EARLIER]
    ]
    decisions = [
        Earlier(("item", item.pk), "decision", item.main, relation="choice")
        for item in confirmed.filter(type="decision", valid_to=None).order_by("-created_at")[
            :MAX_EARLIER
        ]
    ]
    facts = [
        Earlier(
            ("fact", fact.pk), "fact", fact.content, subject=fact.subject, relation=fact.relation
        )
        for fact in kept_facts.order_by("-created_at")[:MAX_EARLIER]
    ]
    return open_items, decisions + facts


@dataclass
class Found:
    """What the conversation changes, before it is written as state deltas of the draft."""

    produced: Produced
    entities: dict
    resolutions: list[Proposal] = field(default_factory=list)
    supersessions: list[Proposal] = field(default_factory=list)
    priority_changes: list[dict] = field(default_factory=list)

    def sentences(self, earlier: dict) -> list[str]:
        """What changed, for the narrative."""
        out = []
        if self.supersessions:
            first = self.supersessions[0]
            out.append(
                f"That replaces the earlier “{earlier.get(first.key, '')[:120]}”."
                if earlier.get(first.key)
                else ""
            )
        if self.resolutions:
            closed = [earlier.get(p.key, "") for p in self.resolutions if earlier.get(p.key)]
            if closed:
                out.append(f"It closes what was open: {'; '.join(c[:100] for c in closed[:2])}.")
        return [sentence for sentence in out if sentence]

    def deltas(self, memory: Memory, items: list[MemoryItem], facts: list[Memory]) -> list:
        """The draft's state deltas: new waiting-ons and threads, resolutions, supersessions."""
        rows = (
            [
                StateDelta(memory=memory, type=StateDelta.Type.NEW_WAITING_ON, data=row)
                for row in self.entities.get("waiting_on", [])
            ]
            + [
                StateDelta(
                    memory=memory, type=StateDelta.Type.NEW_THREAD, data={"thread": row["question"]}
                )
                for row in self.entities.get("questions_opened", [])
                if row.get("question")
            ]
            + [
                StateDelta(memory=memory, type=StateDelta.Type.PRIORITY_CHANGE, data=row)
                for row in self.priority_changes
            ]
        )
        item_ids = [p.key[1] for p in self.resolutions + self.supersessions if p.key[0] == "item"]
        fact_ids = [p.key[1] for p in self.supersessions if p.key[0] == "fact"]
        old_items = MemoryItem.objects.in_bulk(item_ids)
        old_facts = Memory.objects.in_bulk(fact_ids)
        for proposal in self.resolutions:
            if (item := old_items.get(proposal.key[1])) is None:
                continue
            kind = (
                StateDelta.Type.RESOLVED_WAITING_ON
                if item.type == "waiting_on"
                else StateDelta.Type.RESOLVED_THREAD
            )
            data = {"item": item.text, "by": proposal.by, "why": proposal.why}
            data |= {"evidence": proposal.evidence, "similarity": round(proposal.score, 3)}
            rows.append(
                StateDelta(memory=memory, type=kind, item=item, data=data, ticked=proposal.sure)
            )
        decisions = [i for i in items if i.type == "decision"]
        for proposal in self.supersessions:
            old_item = old_items.get(proposal.key[1]) if proposal.key[0] == "item" else None
            old_fact = old_facts.get(proposal.key[1]) if proposal.key[0] == "fact" else None
            if old_item is None and old_fact is None:
                continue
            new_fact = _closest(proposal.replacement, facts, lambda f: f.content)
            new_item = _closest(proposal.replacement, decisions, lambda i: i.main)
            old = old_item.main if old_item else old_fact.content
            data = {"old": old, "new": proposal.replacement, "by": proposal.by, "why": proposal.why}
            data["evidence"] = proposal.evidence
            rows.append(
                StateDelta(
                    memory=memory,
                    type=StateDelta.Type.SUPERSEDED,
                    item=old_item,
                    old_fact=old_fact,
                    new_item=new_item,
                    new_fact=new_fact,
                    data=data,
                    ticked=proposal.sure,
                )
            )
        return rows


def _closest(text: str, rows, text_of):
    wanted = _words(text)
    scored = [(len(wanted & _words(text_of(row))), row) for row in rows]
    scored = [pair for pair in scored if pair[0] > 0]
    return max(scored, key=lambda pair: pair[0])[1] if scored else None


def _by(proposals: list[Proposal], by: str) -> list[Proposal]:
    return [Proposal(**{**p.__dict__, "by": by}) for p in proposals]


def find(owner, conversation, reading: Extraction, entities, facts, *, use_llm: bool) -> Found:
    """Stage 2: the open items this conversation closes and the current decisions and facts it
    replaces, by the rules and, with Ollama, by the model too."""
    open_items, current = earlier_of(owner, conversation)
    found = Found(Produced(None, "offline"), entities)
    found.resolutions = _by(offline.resolutions(reading, open_items), "rules")
    found.supersessions = _by(offline.supersessions(reading, current), "rules")
    reason = "Ollama is not available." if not use_llm else "Nothing earlier to check against."
    found.produced.fallback_reason = reason
    if not (use_llm and (open_items or current)):
        return found
    listed = [{"id": n, "type": e.type, "text": e.text} for n, e in enumerate(open_items)]
    standing = [{"id": n, "type": e.type, "text": e.text} for n, e in enumerate(current)]
    produced = ask(
        True,
        lambda: {"resolved": [], "superseded": []},
        system=prompts.DELTA_SYSTEM,
        schema=prompts.DELTA_SCHEMA,
        prompt=f"Open items:\n{listed}\n\nCurrent decisions and facts:\n{standing}\n\n"
        f"Newly extracted entities:\n{entities}\n\nNew facts:\n{[f['text'] for f in facts]}",
    )
    found.produced = produced
    taken = {p.key for p in found.resolutions + found.supersessions}
    for row in produced.value.get("resolved", []):
        if 0 <= row["item_id"] < len(open_items) and open_items[row["item_id"]].key not in taken:
            item = open_items[row["item_id"]]
            found.resolutions.append(
                Proposal(item.key, item.type, "resolves", "", 1.0, row["why"], by="model")
            )
    for row in produced.value.get("superseded", []):
        if 0 <= row["id"] < len(current) and current[row["id"]].key not in taken:
            item = current[row["id"]]
            # The model's alone is shown unticked: the rules did not find the same subject,
            # relation and a change (issue 22: a wrong replacement must not be one click away).
            found.supersessions.append(
                Proposal(
                    item.key,
                    item.type,
                    "supersedes",
                    "",
                    1.0,
                    row["why"],
                    row["new"],
                    by="model",
                    sure=False,
                )
            )
    found.priority_changes = produced.value.get("priority_changes", [])
    return found


def profiles(owner) -> tuple[list[ActProfile], ActProfile]:
    """Each active act as routing sees it, and Your Story."""
    acts = list(Act.objects.filter(owner=owner, status=Act.Status.ACTIVE))
    described = []
    for act in acts:
        memories = list(
            Memory.objects.filter(
                owner=owner, act=act, status=Memory.Status.CONFIRMED, archived_at=None
            )
            .order_by("-created_at")
            .values_list("content", flat=True)[:20]
        )
        people = set(
            Mention.objects.filter(
                memory__act=act, memory__owner=owner, entity__kind="person"
            ).values_list("entity__name", flat=True)[:200]
        )
        described.append(ActProfile(act.pk, act.title, act.description, memories, people))
    story = next((p for p, a in zip(described, acts, strict=True) if a.is_your_story), None)
    others = [p for p, a in zip(described, acts, strict=True) if not a.is_your_story]
    return others, story or ActProfile(None, "Your Story")


def suggest_route(owner, reading: Extraction, entities, *, use_llm: bool) -> Produced:
    """Stage 3a: the act the memory belongs in, by meaning, people and words; or the model's."""
    acts, story = profiles(owner)
    said = " ".join(u.text for u in reading.reading.units if u.label != "small_talk")
    people = {row["name"] for row in entities.get("people", []) if row.get("name")}
    rules = offline.route(said, people, acts, story)
    value = {"act_id": rules.act_id, "confidence": rules.confidence, "reason": rules.reason}
    reason = "Ollama is not available." if not use_llm else "There is no act besides Your Story."
    produced = Produced(value, "offline", fallback_reason=reason)
    if not (use_llm and acts):
        return produced
    listing = "\n".join(f"- {act.title}: {act.description}" for act in acts)
    answer = ask(
        True,
        lambda: None,
        system=prompts.ROUTE_SYSTEM,
        schema=prompts.ROUTE_SCHEMA,
        prompt=f"Memory:\n{said[:2000]}\n\nMemory entities:\n{entities}\n\n"
        f"Active Acts:\n{listing}\n- Your Story: everything else",
    )
    if answer.engine != "ollama":
        produced.fallback_reason = answer.fallback_reason
        return produced
    by_title = {act.title.casefold(): act.id for act in acts}
    wanted = answer.value["suggested_destination"].strip().casefold()
    if wanted in by_title or wanted == "your story":
        value = {
            "act_id": by_title.get(wanted),
            "confidence": float(answer.value["confidence"]),
            "reason": answer.value["reasoning"],
        }
        return Produced(value, "ollama", answer.model, answer.attempts)
    produced.fallback_reason = f"The model named an act that does not exist: {wanted}."
    return produced


def write_narrative(conversation, reading: Extraction, entities, found: Found, route, *, use_llm):
    """Stage 3b: 2–4 sentences of what the conversation meant, in the act it goes to."""
    owner = conversation.owner
    act = (
        Act.objects.filter(pk=route.get("act_id"), owner=owner).first()
        if route.get("act_id")
        else None
    )
    title = act.title if act else "Your Story"
    person = display_name(owner)
    day = (conversation.started_at or conversation.closed_at).date()
    earlier = _earlier_texts(found)
    shown = Extraction(reading.reading, entities, reading.facts)

    def by_rules() -> str:
        return offline.narrative(shown, person=person, day=day, changed=found.sentences(earlier))

    produced = ask(
        use_llm,
        lambda: {"narrative": by_rules()},
        system=prompts.NARRATIVE_SYSTEM,
        schema=prompts.NARRATIVE_SCHEMA,
        prompt=f"Conversation entities:\n{entities}\n\nConversation context:\n- Active Act: "
        f"{title}\n- Date: {day.isoformat()}\n- Person: {person}\n\nWrite the memory narrative.",
    )
    narrative = " ".join(str(produced.value["narrative"]).split())
    if not narrative:  # a blank answer is no narrative: the rules always write one
        narrative = by_rules()
        produced.engine = "offline"
        produced.fallback_reason = "The model wrote an empty narrative."
    produced.value = narrative
    return produced


def _earlier_texts(found: Found) -> dict:
    items = MemoryItem.objects.in_bulk(
        [p.key[1] for p in found.resolutions + found.supersessions if p.key[0] == "item"]
    )
    facts = Memory.objects.in_bulk([p.key[1] for p in found.supersessions if p.key[0] == "fact"])
    texts = {("item", pk): item.text for pk, item in items.items()}
    texts |= {("fact", pk): fact.content for pk, fact in facts.items()}
    return texts
