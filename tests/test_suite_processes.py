"""`make test` runs the suite on two processes at once: each keeps what it writes to disk (the
workers' locks, talkingrock/jobs.py) in a folder of its own, and leaves none behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from tests.support.processes import ROOT

SAY_DATA_DIR = (
    "import django; django.setup(); from django.conf import settings; print(settings.DATA_DIR)"
)


def test_each_test_process_has_a_data_directory_of_its_own_and_leaves_it_behind_it():
    other = subprocess.run(
        [sys.executable, "-c", SAY_DATA_DIR],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "talkingrock.settings.test"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(other) != settings.DATA_DIR
    assert settings.DATA_DIR != settings.BASE_DIR / "var"
    assert not Path(other).exists()  # removed when that process ended
