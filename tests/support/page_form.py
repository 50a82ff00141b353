"""A rendered form, posted as a browser would post it untouched: what tests change is then only
what a member would change. ``all_forms`` reads every form of a page, for tests that try each.

``form_data(html, "review-form")`` reads the form's inputs, textareas and selects: text and
hidden inputs with their values, checkboxes and radios only when checked, a select's selected
option (its first otherwise), a textarea's text. Buttons are left out: a test names the action.
"""

from __future__ import annotations

from html.parser import HTMLParser


class _FormReader(HTMLParser):
    def __init__(self, form_id: str):
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.data: dict[str, str] = {}
        self.textarea: str | None = None
        self.select: str | None = None
        self.first_option: str | None = None
        self.option_text: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = {name: value if value is not None else "" for name, value in attrs}
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
        if not self.inside:
            return
        name = attrs.get("name")
        if tag == "input" and name and attrs.get("type", "text") not in ("submit", "button"):
            if attrs.get("type") in ("checkbox", "radio"):
                if "checked" in attrs:
                    self.data[name] = attrs.get("value", "on")
            else:
                self.data[name] = attrs.get("value", "")
        elif tag == "textarea" and name:
            self.textarea, self.data[name] = name, ""
        elif tag == "select" and name:
            self.select, self.first_option = name, None
        elif tag == "option" and self.select:
            value = attrs.get("value")
            if self.first_option is None:
                self.first_option = value
            if "selected" in attrs:
                self.data[self.select] = value
            # An option without a value posts its text (not used by these forms).

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "textarea":
            self.textarea = None
        elif tag == "select" and self.select:
            self.data.setdefault(self.select, self.first_option or "")
            self.select = None

    def handle_data(self, data):
        if self.textarea is not None:
            text = self.data[self.textarea] + data
            # A newline straight after <textarea> is not part of its value (HTML spec).
            self.data[self.textarea] = (
                text.removeprefix("\n") if not self.data[self.textarea] else text
            )


def form_data(html: str | bytes, form_id: str) -> dict[str, str]:
    reader = _FormReader(form_id)
    reader.feed(html.decode() if isinstance(html, bytes) else html)
    return reader.data


def row(data: dict[str, str], prefix: str, pk: int) -> str:
    """The formset prefix ("item-2") of the row whose hidden id is ``pk``."""
    for name, value in data.items():
        if name.startswith(f"{prefix}-") and name.endswith("-id") and value == str(pk):
            return name.removesuffix("-id")
    raise KeyError(f"no {prefix} row with id {pk}")


def new_row(data: dict[str, str], prefix: str) -> str:
    """The formset prefix of the first empty row, for adding one."""
    return f"{prefix}-{data[f'{prefix}-INITIAL_FORMS']}"


# --- every form of a page -----------------------------------------------------------------------


class Form:
    """One form as a browser would submit it untouched with its first named button."""

    def __init__(self, action: str, method: str, form_id: str):
        self.action, self.method, self.id = action, method, form_id
        self.data: dict[str, str] = {}
        self.names: list[str] = []  # every field's name, in order, each once
        self.button: tuple[str, str] | None = None

    def add(self, name: str, value: str | None) -> None:
        if name not in self.names:
            self.names.append(name)
        if value is not None:
            self.data.setdefault(name, value)

    def submitted(self) -> dict[str, str]:
        data = dict(self.data)
        if self.button:
            data[self.button[0]] = self.button[1]
        return data


class _AllForms(HTMLParser):
    def __init__(self, page_url: str):
        super().__init__(convert_charrefs=True)
        self.page_url = page_url
        self.forms: list[Form] = []
        self.form: Form | None = None
        self.textarea: str | None = None
        self.select: str | None = None
        self.first_option: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = {name: value if value is not None else "" for name, value in attrs}
        if tag == "form":
            action = attrs.get("action") or self.page_url
            method = (attrs.get("method") or "get").lower()
            self.form = Form(action, method, attrs.get("id", ""))
            self.forms.append(self.form)
            return
        if self.form is None:
            return
        if tag == "option" and self.select:
            value = attrs.get("value", "")
            if self.first_option is None:
                self.first_option = value
            if "selected" in attrs:
                self.form.data[self.select] = value
            return
        name = attrs.get("name")
        if not name:
            return
        kind = attrs.get("type", "text").lower()
        if tag == "button" or (tag == "input" and kind in ("submit", "image")):
            if self.form.button is None and kind != "button":
                self.form.button = (name, attrs.get("value", ""))
            self.form.add(name, None)
        elif tag == "input" and kind in ("checkbox", "radio"):
            self.form.add(name, attrs.get("value", "on") if "checked" in attrs else None)
        elif tag == "input" and kind != "file":
            self.form.add(name, attrs.get("value", ""))
        elif tag == "textarea":
            self.textarea = name
            self.form.add(name, "")
        elif tag == "select":
            self.select, self.first_option = name, None
            self.form.add(name, None)

    def handle_endtag(self, tag):
        if tag == "form":
            self.form = None
        elif tag == "textarea":
            self.textarea = None
        elif tag == "select" and self.select and self.form is not None:
            self.form.data.setdefault(self.select, self.first_option or "")
            self.select = None

    def handle_data(self, data):
        if self.textarea is not None and self.form is not None:
            current = self.form.data.get(self.textarea, "")
            # A newline straight after <textarea> is not part of its value (HTML spec).
            self.form.data[self.textarea] = current + data if current else data.removeprefix("\n")


def all_forms(html: str | bytes, page_url: str) -> list[Form]:
    """Every form of a page: its action (the page itself when it names none), method, fields."""
    reader = _AllForms(page_url)
    reader.feed(html.decode() if isinstance(html, bytes) else html)
    return reader.forms
