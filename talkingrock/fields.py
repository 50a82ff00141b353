"""Fields that hold only clean text (talkingrock/text.py): model fields, whatever path writes
them, and the form field people type into.

``save()``, ``create()``, ``bulk_create()``, ``update()`` and the admin all reach the database
through ``get_prep_value``, so cleaning there covers every write, including the ones a service
forgot. Each field deconstructs as the Django field it extends: the columns are the same, so
migrations see no change (and SQLite is not made to rebuild a table, which would drop the FTS
triggers — TECH_NOTES §2.1).
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.forms.fields import InvalidJSONInput, JSONString

from talkingrock.text import clean_json, clean_text
from talkingrock.validation import MAX_INT, read_json


class _DeconstructAsDjango:
    django_path = ""

    def deconstruct(self):
        name, _, args, kwargs = super().deconstruct()
        return name, self.django_path, args, kwargs


class CleanCharField(_DeconstructAsDjango, models.CharField):
    """One line of text: line breaks become spaces, control characters go."""

    django_path = "django.db.models.CharField"

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return clean_text(value, multiline=False) if isinstance(value, str) else value


class CleanTextField(_DeconstructAsDjango, models.TextField):
    """Text with lines: newlines and tabs stay, other control characters go."""

    django_path = "django.db.models.TextField"

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return clean_text(value) if isinstance(value, str) else value


class CleanJSONField(_DeconstructAsDjango, models.JSONField):
    """JSON whose strings (keys included) are clean text; its forms (the admin's) take only
    standard JSON (``StrictJSONFormField``)."""

    django_path = "django.db.models.JSONField"

    def get_prep_value(self, value):
        return super().get_prep_value(clean_json(value))

    def formfield(self, **kwargs):
        empty = self.get_default() if self.has_default() else None
        return super().formfield(
            **{"form_class": StrictJSONFormField, "null": self.null, "empty": empty, **kwargs}
        )


class StrictJSONFormField(forms.JSONField):
    """A form's JSON, refused with a message rather than failing at the database: not JSON,
    NaN or Infinity (``validation.read_json``), nested too deeply, or null (or empty) where the
    column takes no null. An empty box means the column's default (``{}``) where it has one."""

    default_error_messages = {
        "invalid": "Enter valid JSON: numbers must be finite (NaN and Infinity are not JSON).",
        "null": "Enter JSON here; null is not allowed.",
    }

    def __init__(self, *, null: bool = True, empty=None, **kwargs):
        self.null, self.empty = null, empty
        super().__init__(**kwargs)

    def to_python(self, value):
        if self.disabled:
            return value
        if value in self.empty_values:
            return None if self.null else self._empty()
        if not isinstance(value, str):
            return super().to_python(value)
        try:
            converted = read_json(value)
        except ValueError:
            raise ValidationError(
                self.error_messages["invalid"], code="invalid", params={"value": value}
            ) from None
        if converted is None and not self.null:
            raise ValidationError(self.error_messages["null"], code="null")
        return JSONString(converted) if isinstance(converted, str) else converted

    def _empty(self):
        if self.empty is None:
            raise ValidationError(self.error_messages["null"], code="null")
        return self.empty

    def bound_data(self, data, initial):
        if self.disabled or data is None:
            return super().bound_data(data, initial)
        try:
            return read_json(data)
        except ValueError:
            return InvalidJSONInput(data)


class CleanFormField(forms.CharField):
    """A form's text field under the same rule: control characters are removed before the
    field validates (so a pasted NUL or escape code is cleaned like anywhere else, not refused
    by one form and kept by another)."""

    def __init__(self, *args, multiline: bool = False, **kwargs):
        self.multiline = multiline
        super().__init__(*args, **kwargs)

    def to_python(self, value):
        value = super().to_python(value)
        return clean_text(value, multiline=self.multiline) if isinstance(value, str) else value


def _row_id(value) -> bool:
    """Whether a posted value could name a row: a whole number SQLite can hold (a larger one
    overflows its integer before the query runs)."""
    text = str(value).strip()
    return text.isdigit() and int(text) <= MAX_INT


class RowChoiceField(forms.ModelChoiceField):
    """One of a queryset's rows by id; an id out of range is an invalid choice, not an error."""

    def to_python(self, value):
        if value not in self.empty_values and not _row_id(value):
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice")
        return super().to_python(value)


class RowsChoiceField(forms.ModelMultipleChoiceField):
    """Rows of a queryset by id, each checked as RowChoiceField checks one."""

    def _check_values(self, value):
        for pk in value:
            if not _row_id(pk):
                raise ValidationError(
                    self.error_messages["invalid_choice"],
                    code="invalid_choice",
                    params={"value": pk},
                )
        return super()._check_values(value)
