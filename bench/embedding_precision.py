"""The embedding model in float32 and in bfloat16: texts per second on one thread, and how far
the bfloat16 vectors are from the float32 ones (talkingrock/embeddings.py chooses by processor).

Usage (from the project root)::

    .venv/bin/python bench/embedding_precision.py [--texts 2000] [--batch-sizes 16 32]

The texts are LoCoMo's turns (``Speaker: text``, as bench/locomo.py stores them) and the
realchat development chats, read where they lie. Each configuration encodes the same texts
after a warm-up; the rate is the best of ``--repeats`` runs. Agreement is the cosine between
each text's two vectors (mean and minimum), and the share of LoCoMo 0-4 questions whose top 10
turns by vector search are the same set in both precisions.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def turns(path: Path) -> list[str]:
    texts = []
    for sample in json.loads(path.read_text()):
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                texts += [f"{turn['speaker']}: {turn['text']}" for turn in session]
    return texts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[16, 32])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    import numpy as np
    from django.conf import settings

    from talkingrock import embeddings

    locomo = turns(ROOT.parent / "shared" / "data" / "locomo" / "locomo10.json")
    realchat = [
        t for p in sorted((ROOT / "tests/data/realchat/dev").glob("*.json")) for t in turns(p)
    ]
    texts = (locomo[: args.texts // 2] + realchat[: args.texts // 2])[: args.texts]
    print(
        f"{len(texts)} texts, {sum(map(len, texts)) / len(texts):.0f} characters on average; "
        f"processor multiplies bf16 natively: {embeddings.cpu_has_bf16()}"
    )
    vectors = {}
    for precision in ("fp32", "bf16"):
        settings.TALKINGROCK_EMBEDDINGS["precision"] = precision
        embeddings.embed(texts[:64])  # warm-up
        for batch_size in args.batch_sizes:
            best = float("inf")
            for _ in range(args.repeats):
                started = time.perf_counter()
                vectors[precision] = embeddings.embed(texts, batch_size=batch_size)
                best = min(best, time.perf_counter() - started)
            print(f"{precision}, batch {batch_size}: {len(texts) / best:.0f} texts/s")
        started = time.perf_counter()
        for text in texts[:50]:
            embeddings.embed_one(text)
        print(
            f"{precision}, one text at a time: {(time.perf_counter() - started) * 20:.1f} ms each"
        )
    cosine = (vectors["fp32"] * vectors["bf16"]).sum(axis=1)
    print(f"cosine bf16 to fp32: mean {cosine.mean():.6f}, min {cosine.min():.6f}")

    # Does the precision change what vector search returns? Questions of LoCoMo 0-4.
    data = json.loads((ROOT.parent / "shared" / "data" / "locomo" / "locomo10.json").read_text())
    same, asked = 0, 0
    for sample in data[:5]:
        conversation = []
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                conversation += [f"{turn['speaker']}: {turn['text']}" for turn in session]
        questions = [qa["question"] for qa in sample["qa"]]
        tops = {}
        for precision in ("fp32", "bf16"):
            settings.TALKINGROCK_EMBEDDINGS["precision"] = precision
            matrix = embeddings.embed(conversation)
            asked_vectors = embeddings.embed(questions)
            tops[precision] = [set(np.argsort(-(matrix @ q))[:10]) for q in asked_vectors]
        same += sum(a == b for a, b in zip(tops["fp32"], tops["bf16"], strict=True))
        asked += len(questions)
    print(f"LoCoMo 0-4: the same top 10 by vector search for {same} of {asked} questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
