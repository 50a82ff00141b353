"""Test settings: tasks run inline and passwords hash fast."""

import atexit
import shutil
import tempfile
from pathlib import Path

from talkingrock.settings import *  # noqa: F403
from talkingrock.settings import DATABASES, Q_CLUSTER

# What a test process keeps on disk (the workers' locks, talkingrock/jobs.py) is its own: the
# suite runs on several processes at once (Makefile), each with a household whose ids start
# from 1, and a lock one of them holds on member 1 must not stop the other.
DATA_DIR = Path(tempfile.mkdtemp(prefix="talkingrock-tests-"))
atexit.register(shutil.rmtree, DATA_DIR, ignore_errors=True)

# Each process's test database in its memory, as Django makes a SQLite one (said outright: the
# engine is this project's own, which pytest-django does not take for SQLite when it names a
# database per process).
DATABASES = {"default": {**DATABASES["default"], "TEST": {"NAME": ":memory:"}}}
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
