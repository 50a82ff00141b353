"""The review screen's forms (conversations/review_views.py).

``ReviewForm`` holds what the page has once: the narrative, the action, the destination, the
proposed changes (each accepted or declined) and the split boxes. ``ItemFormSet`` and
``FactFormSet`` hold a row per extracted item and fact (edit it, or tick Remove) and an empty
row to add one. ``ReviewForms`` binds the three and turns their cleaned data into one
``review.Edits``, applied by ``review.edit``: the service behind the edit_memory tool, under the
limits of that tool's schema, so a member and an assistant are held to the same rules.

Text fields are ``CleanFormField``s: control characters are removed, as at every other write
boundary (talkingrock/text.py), rather than refused; what is left is then checked for length
and for being empty.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError

from conversations import review, titles
from memories.models import Act, Memory, MemoryItem, StateDelta
from talkingrock.fields import CleanFormField

# The edit_memory tool's schema (talkingrock/tools.py): a narrative of at most 10,000 characters
# (the memory limit), an item's text 1-300 and its detail up to 300, a fact 1-300; at most 100
# items and 50 facts added at once. Drafts store items and facts within the same 300
# (conversations/drafts.py), so an extracted row always fits its field.
NARRATIVE_MAX = settings.TALKINGROCK_MEMORY["max_content_length"]
ITEM_MAX = 300
FACT_MAX = 300
MAX_NEW_ITEMS = 100
MAX_NEW_FACTS = 50
ITEM_TYPES = [(value, MemoryItem.Type(value).label) for value in MemoryItem.FIELDS]
NOT_YOURS = "That act is not one of yours."
ACT_TITLE_MAX = Act._meta.get_field("title").max_length


def _act_field() -> forms.TypedChoiceField:
    return forms.TypedChoiceField(
        coerce=int, empty_value=None, required=False, error_messages={"invalid_choice": NOT_YOURS}
    )


def _text(limit: int, *, required: bool = True, multiline: bool = False, rows: int = 0, **kw):
    widget = forms.Textarea(attrs={"rows": rows}) if rows else None
    return CleanFormField(
        max_length=limit, required=required, multiline=multiline, widget=widget, **kw
    )


def _new_act_field(**kw) -> CleanFormField:
    """ "or a new act": a name; the act is made (or the member's own of that name found) when the
    review is saved or confirmed (review.act_named)."""
    field = _text(ACT_TITLE_MAX, required=False, **kw)
    field.widget.attrs |= {"placeholder": "or a new act", "class": "new-act"}
    return field


class ReviewForm(forms.Form):
    """The narrative and what to do with it; a tick per proposed resolution and supersession
    (ticked: accepted); per act, whether it keeps a part of a split and that part's text."""

    narrative = _text(NARRATIVE_MAX, required=False, multiline=True, rows=4, label="Narrative")
    action = forms.ChoiceField(
        choices=[("save", "Save edits"), ("confirm", "Confirm"), ("split", "Split and confirm")],
        required=False,
    )
    destination = _act_field()
    new_act = _new_act_field(label="or a new act")

    def __init__(self, *args, memory: Memory, acts: list, deltas: list[StateDelta], **kwargs):
        super().__init__(*args, **kwargs)
        self.acts = {act.pk: act for act in acts}
        self.deltas = deltas
        self.fields["narrative"].initial = memory.content
        # A shared act says so: what is kept there, everyone in it sees (issue 25).
        self.fields["destination"].choices = [
            (act.pk, f"{act.title} (shared)" if act.shared_id else act.title) for act in acts
        ]
        self.fields["destination"].initial = memory.act_id
        self.fields["destination"].label = "Keep it in"
        for delta in deltas:
            self.fields[f"delta-{delta.pk}"] = forms.BooleanField(
                required=False, initial=delta.ticked
            )
        for act in acts:
            self.fields[f"split-{act.pk}-keep"] = forms.BooleanField(required=False)
            # Every box starts with the extracted narrative (review.split says why).
            self.fields[f"split-{act.pk}"] = _text(
                NARRATIVE_MAX,
                required=False,
                multiline=True,
                rows=3,
                initial=memory.content,
                label=f"Text for {act.title}",
            )

    def clean_action(self) -> str:
        return self.cleaned_data["action"] or "save"

    def clean_destination(self):
        chosen = self.cleaned_data["destination"]
        return None if chosen is None else self.acts[chosen]

    def clean(self):
        cleaned = super().clean()
        # A split writes each part from its own box; confirming or saving keeps this text.
        if cleaned.get("action") != "split" and cleaned.get("narrative") == "":
            self.add_error("narrative", "The narrative needs some text.")
        return cleaned

    def declined(self) -> list[int]:
        return [delta.pk for delta in self.deltas if not self.cleaned_data[f"delta-{delta.pk}"]]

    # What the template shows: each tick beside its delta, each act's split box.
    @property
    def supersessions(self) -> list[tuple]:
        return [
            (delta, self[f"delta-{delta.pk}"])
            for delta in self.deltas
            if delta.type == StateDelta.Type.SUPERSEDED
        ]

    @property
    def resolutions(self) -> list[tuple]:
        return [(delta, self[f"delta-{delta.pk}"]) for delta in self.deltas if delta.resolves]

    @property
    def split_boxes(self) -> list[tuple]:
        return [
            (act, self[f"split-{act.pk}-keep"], self[f"split-{act.pk}"])
            for act in self.acts.values()
        ]


class _RowForm(forms.Form):
    """A row of a formset below: an existing one (``row`` is its item or fact; its id travels in
    a hidden field) or a new one (no id)."""

    id = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args, row=None, new: bool = False, acts=(), title: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.row, self.new, self.title = row, new, title
        if new:
            del self.fields["id"], self.fields["act"]
            self.fields.pop("new_act", None)
        else:
            self.fields["act"].choices = [(act.pk, act.title) for act in acts]

    def clean_id(self) -> int:
        if self.row is None or self.row.pk != self.cleaned_data["id"]:
            raise ValidationError("This is not part of this memory.")
        return self.cleaned_data["id"]


class ItemForm(_RowForm):
    main = _text(ITEM_MAX, error_messages={"required": "An item needs some text; or tick Remove."})
    detail = _text(ITEM_MAX, required=False)
    act = _act_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        item, main, detail = self.row, self.fields["main"], self.fields["detail"]
        if self.new:
            kind = forms.ChoiceField(
                choices=[("", "—"), *ITEM_TYPES],
                error_messages={"required": "Choose what kind of item it is."},
            )
            kind.widget.attrs["aria-label"] = "New item type"
            self.fields = {"type": kind, **self.fields}
            main.error_messages["required"] = "A new item needs some text."
            main.widget.attrs |= {"placeholder": "What", "aria-label": "New item text"}
            detail.widget.attrs |= {
                "placeholder": "Detail (optional)",
                "aria-label": "New item detail",
            }
            return
        label = item.get_type_display() if item else "Item"
        main.widget.attrs["aria-label"] = f"{label} text"
        detail.widget.attrs["aria-label"] = f"{label} detail"
        self.fields["act"].widget.attrs["aria-label"] = (
            f"Split destination of {item.main if item else label}"
        )
        if item is not None and not MemoryItem.FIELDS[item.type][1]:
            del self.fields["detail"]  # an open question has no second field


class FactForm(_RowForm):
    """A fact, and the act it is kept in: the memory's unless another is chosen or named (a
    fact's own act wins over the memory's when it is confirmed: review.route)."""

    text = _text(FACT_MAX, error_messages={"required": "A fact needs some text; or tick Remove."})
    act = _act_field()
    new_act = _new_act_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        text = self.fields["text"]
        if self.new:
            text.error_messages["required"] = "A new fact needs some text."
            text.widget.attrs["placeholder"] = "One sentence: “Maya's kitchen budget is £40,000.”"
            return
        text.widget.attrs |= {"aria-label": self.title, "class": "fact-text"}
        self.fields["act"].widget.attrs["aria-label"] = f"Act for {self.title.lower()}"
        self.fields["new_act"].widget.attrs["aria-label"] = f"New act for {self.title.lower()}"


def removing(form: forms.Form) -> bool:
    """Remove is ticked on this row (only existing rows have the box)."""
    return bool(getattr(form, "cleaned_data", {}).get("DELETE"))


class _Rows(forms.BaseFormSet):
    """The existing rows first (their ids checked against the memory's own), then the new."""

    noun = "item"
    new_limit = 0

    def __init__(self, *args, rows: list, acts: list, **kwargs):
        self.rows = {row.pk: row for row in rows}
        self.acts = acts
        super().__init__(*args, **kwargs)
        # The page can send the memory's rows, its new ones and a blank one, and no more: a
        # posted TOTAL_FORMS of a billion builds these forms and is told "at most", where
        # Django's own cap would build two thousand of each kind first.
        self.max_num = self.absolute_max = len(self.rows) + self.new_limit + 1

    def get_form_kwargs(self, index):
        new = index is None or index >= self.initial_form_count()
        row = None if new else self._row(index)
        title = f"New {self.noun}" if new else self.title(index, row)
        return {"row": row, "new": new, "acts": self.acts, "title": title}

    def _row(self, index: int):
        # The row a form edits is the one its id names, so a reordered or tampered page can
        # only ever name the memory's own rows, or none.
        if self.is_bound:
            raw = self.data.get(f"{self.add_prefix(index)}-id")
        else:
            raw = self.initial[index]["id"] if index < len(self.initial or ()) else None
        try:
            return self.rows.get(int(raw))
        except (TypeError, ValueError):
            return None

    def title(self, index: int, row) -> str:
        """How the page's summary of problems names an existing row."""
        return f"{self.noun.capitalize()} {index + 1}"

    def add_fields(self, form, index):
        super().add_fields(form, index)
        if "DELETE" in form.fields:
            form.fields["DELETE"].label = "Remove"
            form.fields["DELETE"].widget.attrs["aria-label"] = f"Remove {form.title}"

    def clean(self):
        if any(form.row is None for form in self.initial_forms):
            raise ValidationError(
                f"A {self.noun} on this page is not part of this memory (it may have been "
                "removed meanwhile): reload the page to see the memory as it is."
            )
        ids = [form.row.pk for form in self.initial_forms]
        if len(ids) != len(set(ids)):
            raise ValidationError(f"The same {self.noun} appears twice: reload the page.")
        if len(self.added()) > self.new_limit:
            raise ValidationError(f"At most {self.new_limit} new {self.noun}s at a time.")

    def kept(self) -> list:
        """The existing rows' forms, Remove not ticked."""
        return [form for form in self.initial_forms if not removing(form)]

    def removed(self) -> list[int]:
        return [form.row.pk for form in self.initial_forms if removing(form)]

    def added(self) -> list:
        return [form for form in self.extra_forms if form.has_changed()]


class _ItemRows(_Rows):
    noun, new_limit = "item", MAX_NEW_ITEMS

    def title(self, index: int, row) -> str:
        return (
            super().title(index, row) if row is None else f"{row.get_type_display()} “{row.main}”"
        )


class _FactRows(_Rows):
    noun, new_limit = "fact", MAX_NEW_FACTS


ItemFormSet = forms.formset_factory(
    ItemForm, formset=_ItemRows, extra=1, can_delete=True, can_delete_extra=False
)
FactFormSet = forms.formset_factory(
    FactForm, formset=_FactRows, extra=1, can_delete=True, can_delete_extra=False
)


class ReviewForms:
    """The review page's form and its two formsets, bound to one POST (or not)."""

    def __init__(self, memory: Memory, *, acts, deltas, items, facts, suggested=None, data=None):
        self.memory = memory
        self.main = ReviewForm(data, memory=memory, acts=acts, deltas=deltas)
        # An item's split destination starts at the suggested act (Your Story otherwise); a
        # fact's act at its own (the memory's, unless it was given another).
        default = suggested or next((act for act in acts if act.is_your_story), None)
        self.items = ItemFormSet(
            data,
            prefix="item",
            rows=items,
            acts=acts,
            initial=[
                {"id": i.pk, "main": i.main, "detail": i.detail, "act": default and default.pk}
                for i in items
            ],
        )
        self.facts = FactFormSet(
            data,
            prefix="fact",
            rows=facts,
            acts=acts,
            initial=[{"id": f.pk, "text": f.content, "act": f.act_id} for f in facts],
        )

    def is_valid(self) -> bool:
        valid = all([self.main.is_valid(), self.items.is_valid(), self.facts.is_valid()])
        if valid and self.action == "split":
            # review.split's own rule, checked before anything is written.
            parts = [p for p in self.split_parts() if p.text.strip() or p.item_ids or p.fact_ids]
            if len(parts) < 2:
                self.refuse("A split needs at least two destinations with text or items.")
                return False
        return valid

    def refuse(self, message: str) -> None:
        """A problem found after the forms were valid (the service refused): shown like theirs."""
        self.main.add_error(None, message)

    @property
    def action(self) -> str:
        return self.main.cleaned_data["action"]

    @property
    def narrative(self) -> str | None:
        """The narrative as the member left it; None when they did not change it (so that a
        narrative written again after an edit is not put back: review.edit)."""
        text = self.main.cleaned_data["narrative"]
        return None if text.replace("\r\n", "\n").strip() == self.memory.content else text

    @property
    def destination(self):
        return self.main.cleaned_data["destination"]

    @property
    def new_act(self) -> str:
        """The name typed beside "Keep it in", if any: it wins over the act chosen."""
        return self.main.cleaned_data["new_act"].strip()

    def fact_choices(self) -> dict[int, Act | str]:
        """The facts given an act other than the one they are in: fact id → the act chosen, or
        the name of a new one typed beside it (which wins)."""
        chosen: dict[int, Act | str] = {}
        for form in self.facts.kept():
            fact, data = form.row, form.cleaned_data
            if data.get("new_act", "").strip():
                chosen[fact.pk] = data["new_act"].strip()
            elif data.get("act") is not None and data["act"] != fact.act_id:
                chosen[fact.pk] = self.main.acts[data["act"]]
        return chosen

    def declined(self) -> list[int]:
        return self.main.declined()

    def edits(self) -> review.Edits:
        """The items and facts changed, removed and added, and the narrative when the member
        rewrote it (a split writes each part's own text instead)."""
        edits = review.Edits(remove_items=self.items.removed(), remove_facts=self.facts.removed())
        if self.action != "split":
            edits.narrative = self.narrative
        for form in self.items.kept():
            item, data = form.row, form.cleaned_data
            changed = (data["main"], data.get("detail", ""))
            if changed != (item.main, item.detail):
                edits.items[item.pk] = changed
        for form in self.items.added():
            data = form.cleaned_data
            edits.add_items.append((data["type"], data["main"], data["detail"]))
        for form in self.facts.kept():
            if form.cleaned_data["text"] != form.row.content:
                edits.facts[form.row.pk] = form.cleaned_data["text"]
        edits.add_facts = [form.cleaned_data["text"] for form in self.facts.added()]
        return edits

    def split_parts(self, fact_acts: dict[int, Act] | None = None) -> list[review.Part]:
        """The acts that keep a part: ticked, given items or facts, or given text of their own.
        Every box starts with the extracted narrative, so a box left as it was does not choose.
        ``fact_acts``: the acts the facts were given by name (made by then), which win."""
        fact_acts = fact_acts or {}
        chosen = self.main.cleaned_data
        items = [(f.row.pk, f.cleaned_data["act"]) for f in self.items.kept()]
        facts = [
            (f.row.pk, fact_acts[f.row.pk].pk if f.row.pk in fact_acts else f.cleaned_data["act"])
            for f in self.facts.kept()
        ]
        extracted = " ".join(self.memory.content.split())
        parts = []
        for act, _, _ in self.main.split_boxes:
            item_ids = [pk for pk, act_id in items if act_id == act.pk]
            fact_ids = [pk for pk, act_id in facts if act_id == act.pk]
            text = chosen[f"split-{act.pk}"]
            rewritten = " ".join(text.split()) != extracted
            if chosen[f"split-{act.pk}-keep"] or item_ids or fact_ids or (text and rewritten):
                parts.append(review.Part(act=act, text=text, item_ids=item_ids, fact_ids=fact_ids))
        # An act named on a fact's row has no box: its part starts from the narrative, as a box.
        named = {act.pk: act for act in fact_acts.values() if act.pk not in self.main.acts}
        for act in named.values():
            fact_ids = [pk for pk, act_id in facts if act_id == act.pk]
            parts.append(
                review.Part(act=act, text=self.memory.content, item_ids=[], fact_ids=fact_ids)
            )
        return parts

    def problems(self) -> list[str]:
        """Every error on the page, each naming where it is, for the summary above the form."""
        found = []
        for name, errors in self.main.errors.items():
            field = self.main.fields.get(name)
            where = f"{field.label}: " if field is not None and field.label else ""
            found += [where + error for error in errors]
        for formset in (self.items, self.facts):
            found += formset.non_form_errors()
            for form in formset.forms:
                if removing(form):
                    continue  # removed: its text does not matter
                for error in form.errors.values():
                    found += [f"{form.title}: {message}" for message in error]
        return found


class ImportForm(forms.Form):
    """The Conversations page's upload: one export file (conversations/importing.py)."""

    file = forms.FileField(
        label="Export file",
        help_text="Talking Rock's own conversations JSON, ChatGPT's conversations.json or "
        "Claude's conversations.json.",
    )


# The one-field form that renames a conversation (its page, conversations/views.py).
class TitleForm(forms.Form):
    # Control characters are removed, not refused (talkingrock/text.py); blank goes back to the
    # first words the member said.
    title = CleanFormField(
        max_length=titles.MAX_TITLE,
        required=False,
        strip=True,
        label="Title",
        help_text="A few words to find it by. Leave it empty to show its first words.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )

    def clean_title(self) -> str:
        return titles.clean(self.cleaned_data["title"])
