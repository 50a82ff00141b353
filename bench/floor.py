"""Calibrate recall's relevance floor (memories/recall/floor.py) on the development chats and
report it on the frozen ones.

    .venv/bin/python bench/floor.py                       # calibrate on dev, report dev and test
    .venv/bin/python bench/floor.py --retention 0.95

Stores tests/data/realchat/dev and /test as the app does (bench/locomo.py's conversation path,
one member per chat) and asks every question of categories 1-4 twice: of the member whose chat
holds the answer, and of another member of the same split, whose chat never spoke of it (what
that member is shown is noise by construction). For each pair of thresholds (cosine similarity,
BM25 in the member's own index) it counts

- *evidence kept*: of the evidence turns recall put in a question's top 10, the share that clear
  the floor (on their own, or through the neighbour that lifted them);
- *noise shown*: hits that clear it among the top 10 of a question asked of the wrong member,
  and the share of those questions that show nothing at all;

and picks, on the dev split only, the floor that shows the least noise while keeping at least
``--retention`` of the evidence. The test split is scored at that floor and never chooses it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import locomo  # noqa: E402

SIMILARITIES = [round(0.20 + 0.025 * n, 3) for n in range(15)]  # 0.20 … 0.55
BM25S = [2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, float("inf")]
K = 10


@dataclass
class Seen:
    """One hit of a top 10: what the floor reads of it, and whether it answers."""

    evidence: bool
    own: dict  # the hit's components
    lifted_by: dict | None  # the components the neighbour that lifted it had, if one did

    def clears(self, similarity: float, bm25: float) -> bool:
        from memories.recall import floor  # after django.setup(), as every app module

        return any(
            parts is not None and floor.clears_alone(parts, similarity=similarity, bm25=bm25)
            for parts in (self.own, self.lifted_by)
        )


def seen(hit, evidence: bool) -> Seen:
    neighbours = hit.components.get("neighbours", {})
    lifted_by = None
    if "source_similarity" in neighbours:  # floor.mark() notes what the neighbour brought
        lifted_by = {
            "meaning": {"similarity": neighbours["source_similarity"]},
            "keywords": {"bm25": neighbours["source_bm25"]},
        }
    return Seen(evidence=evidence, own=hit.components, lifted_by=lifted_by)


def ask(conversations: list[dict]) -> tuple[list[list[Seen]], list[list[Seen]]]:
    """(per answerable question its top 10, per question asked of the wrong member its top 10)"""
    from django.contrib.auth import get_user_model

    from memories.recall import recall

    answerable, wrong = [], []
    for n, conversation in enumerate(conversations):
        other = conversations[(n + 1) % len(conversations)]
        member = get_user_model().objects.get(username=f"locomo{conversation['index']}")
        stranger = get_user_model().objects.get(username=f"locomo{other['index']}")
        to_dialog, at = locomo.turn_of(conversation, member), locomo.asked_at(conversation)
        for question in conversation["questions"]:
            if question["category"] not in locomo.HEADLINE:
                continue
            evidence = set(question["evidence"])
            hits = recall(member, question["question"], k=K, at=at).hits
            answerable.append([seen(h, to_dialog[h.memory_id] in evidence) for h in hits])
            hits = recall(stranger, question["question"], k=K, at=at).hits
            wrong.append([seen(h, False) for h in hits])
    return answerable, wrong


def score(answerable, wrong, similarity: float, bm25: float) -> dict:
    evidence = [s for top in answerable for s in top if s.evidence]
    kept = sum(s.clears(similarity, bm25) for s in evidence)
    shown_wrong = [sum(s.clears(similarity, bm25) for s in top) for top in wrong]
    other = [s for top in answerable for s in top if not s.evidence]
    return {
        "kept": kept / len(evidence) if evidence else 1.0,
        "evidence": len(evidence),
        "noise_per_question": sum(shown_wrong) / len(wrong),
        "silent": sum(n == 0 for n in shown_wrong) / len(wrong),
        "non_evidence_shown": sum(s.clears(similarity, bm25) for s in other) / max(len(other), 1),
    }


def line(name: str, figures: dict) -> str:
    return (
        f"| {name} | {100 * figures['kept']:.1f} % of {figures['evidence']} | "
        f"{figures['noise_per_question']:.2f} | {100 * figures['silent']:.0f} % | "
        f"{100 * figures['non_evidence_shown']:.0f} % |"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dev", type=Path, default=ROOT / "tests/data/realchat/dev")
    parser.add_argument("--test", type=Path, default=ROOT / "tests/data/realchat/test")
    parser.add_argument("--retention", type=float, default=0.95)
    args = parser.parse_args(argv)

    dev, test = locomo.load(args.dev), locomo.load(args.test)
    for n, conversation in enumerate(test):  # one member per chat across both splits
        conversation["index"] = len(dev) + n
    locomo.setup_django(Path(tempfile.mkdtemp(prefix="talkingrock-floor-")))
    from django.conf import settings

    facts = locomo.ingest(dev + test)
    print(f"stored and indexed {facts['memories']:,} turns")
    splits = {"dev": ask(dev), "test": ask(test)}

    best = None
    for similarity in SIMILARITIES:
        for bm25 in BM25S:
            figures = score(*splits["dev"], similarity, bm25)
            if figures["kept"] < args.retention:
                continue
            key = (figures["noise_per_question"], -similarity, -bm25)
            if best is None or key < best[0]:
                best = (key, similarity, bm25)
    configured = (settings.TALKINGROCK_RECALL["floor_similarity"],
                  settings.TALKINGROCK_RECALL["floor_bm25"])  # fmt: skip
    print(
        "\n| floor | split | evidence in the top 10 kept | noise shown per question asked "
        "of the wrong member | of those, showing nothing | other hits of answerable questions "
        "shown |\n|---|---|---|---|---|---|"
    )
    rows = [("no floor", (-1.0, 0.0)), ("configured", configured)]
    if best is not None:
        rows.append(("chosen on dev", (best[1], best[2])))
    for name, (similarity, bm25) in rows:
        for split, (answerable, wrong) in splits.items():
            label = f"{name}: cosine ≥ {similarity:g} or BM25 ≥ {bm25:g}"
            print(line(f"{label} | {split}", score(answerable, wrong, similarity, bm25)))
    if best is None:
        print(f"\nno floor keeps {args.retention:.0%} of the dev evidence")
    else:
        print(f"\nchosen on dev (keeps ≥ {args.retention:.0%} of the evidence, least noise): "
              f"floor_similarity {best[1]:g}, floor_bm25 {best[2]:g}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
