"""The layering contracts (pyproject.toml, [tool.importlinter]) hold on the code, and they are
not vacuous: a copy of the code with one import pointing up a layer, or a domain module
importing a transport, breaks them, naming the import."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("talkingrock", "memories", "narratives", "conversations")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    env = os.environ | {"PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_code_keeps_its_layering_contracts():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.fixture
def copy_of_the_code(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            tmp_path / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.pt", "*.npz", "*.json", "data"),
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add_import(module: Path, line: str) -> None:
    text = module.read_text()
    marker = "from __future__ import annotations\n"
    assert marker in text
    module.write_text(text.replace(marker, marker + "\n" + line + "\n", 1))


@pytest.mark.parametrize(
    ("module", "line", "named"),
    [
        (
            "memories/services.py",
            "from narratives import services as upward",
            "memories.services -> narratives.services",
        ),
        (
            "narratives/services.py",
            "from conversations import chat as upward",
            "narratives.services -> conversations.chat",
        ),
        (
            "talkingrock/tools.py",
            "from memories import models as upward",
            "talkingrock.tools -> memories.models",
        ),
        (
            "conversations/services.py",
            "from conversations import views as transport",
            "conversations.services -> conversations.views",
        ),
    ],
)
def test_an_import_that_points_the_wrong_way_breaks_a_contract(
    copy_of_the_code: Path, module: str, line: str, named: str
):
    _add_import(copy_of_the_code / module, line)
    result = lint_imports(copy_of_the_code)
    assert result.returncode != 0
    assert named in result.stdout
