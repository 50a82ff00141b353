"""Test settings: tasks run inline and passwords hash fast."""

from talkingrock.settings import *  # noqa: F403
from talkingrock.settings import Q_CLUSTER

Q_CLUSTER = {**Q_CLUSTER, "sync": True}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
LOGGING = {"version": 1, "disable_existing_loggers": False}
# `make run` collects static files; tests serve them straight from the finders instead, so an
# uncollected checkout neither warns nor breaks the browser tests.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
