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
from django.db import models

from talkingrock.text import clean_json, clean_text


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
    """JSON whose strings (keys included) are clean text."""

    django_path = "django.db.models.JSONField"

    def get_prep_value(self, value):
        return super().get_prep_value(clean_json(value))


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
