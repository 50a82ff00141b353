"""How well a question's parts to add up or take off are read (conversations/sum_parts.py).

    .venv/bin/python bench/sum_parts.py [--split dev|test|both] [--verbose]

The questions are tests/data/sum_parts/ (dev may be read and tuned on; test was frozen when it
was written, before the reading existed, and is only scored). A question is read right when
the parts it adds up and the parts it takes off are each as many as its gold ones, and each
gold head word is in a part of its own. ``--verbose`` lists the dev split's misreadings.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")


def matches(gold: list[str], read: list, content_terms) -> bool:
    """Whether ``read`` has as many parts as ``gold`` and each gold head is in its own part."""
    if len(gold) != len(read):
        return False
    left = [part.terms for part in read]
    for head in gold:
        stems = content_terms(head)
        part = next((p for p in left if stems & p), None)
        if part is None:
            return False
        left.remove(part)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()

    import django

    django.setup()
    from conversations.sum_parts import parts_of, taken_off
    from conversations.terms import content_terms

    for split in ("dev", "test") if args.split == "both" else (args.split,):
        cases = json.loads((ROOT / "tests" / "data" / "sum_parts" / f"{split}.json").read_text())
        right = {"parts": 0, "less": 0, "both": 0}
        for case in cases:
            parts, less = parts_of(case["question"]), taken_off(case["question"])
            ok_parts = matches(case["parts"], parts, content_terms)
            ok_less = matches(case["less"], less, content_terms)
            right["parts"] += ok_parts
            right["less"] += ok_less
            right["both"] += ok_parts and ok_less
            if args.verbose and split == "dev" and not (ok_parts and ok_less):
                print(
                    f"  {case['question']!r}: parts {[p.words for p in parts]}, "
                    f"taken off {[p.words for p in less]}"
                )
        n = len(cases)
        print(
            f"{split}: {right['both']} of {n} questions read right "
            f"(parts added {right['parts']} of {n}, parts taken off {right['less']} of {n})"
        )


if __name__ == "__main__":
    main()
