"""How the readers of language cope with long hostile text: a run of one short phrase repeated
thousands of times ("two two two …", "the 3rd the 3rd …"), as a paste or a stuck key sends.

    .venv/bin/python bench/hostile_text.py            # 300 and 1,200 repeats
    .venv/bin/python bench/hostile_text.py --repeats 1000 4000

Each reader gets each run at two lengths and the script prints the seconds and their ratio. A
reader whose time grows with the text's length shows a ratio near the lengths' ratio (4); one
that backtracks or rescans shows its square (16) and is named at the end. No reader may take
long on any text a member can send: 1,200 repeats of "the 3rd " is a message at its cap
(``max_message_chars``, 10,000 characters).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")

import django  # noqa: E402

django.setup()

from conversations import questions, sentence_values, terms  # noqa: E402
from talkingrock.language import amounts, dates  # noqa: E402

SAID_ON = date(2026, 11, 1)
ABOUT = frozenset({"room"})
READERS = {
    "amounts.find": lambda text: amounts.find(text, default_currency="£"),
    "dates.find": lambda text: dates.find(text, today=SAID_ON),
    "questions.asked_part": questions.asked_part,
    "terms.said_terms": terms.said_terms,
    "value_in: date": lambda text: sentence_values.value_in(text, "date", said_on=SAID_ON),
    "value_in: time": lambda text: sentence_values.value_in(text, "time", said_on=SAID_ON),
    "value_in: amount": lambda text: sentence_values.value_in(text, "amount", said_on=SAID_ON),
    "value_in: number": lambda text: sentence_values.value_in(
        text, "number", said_on=SAID_ON, about=ABOUT
    ),
    "replaced_in: amount": lambda text: sentence_values.replaced_in(
        text, "amount", said_on=SAID_ON
    ),
}
PHRASES = ["two ", "1 ", "and ", " ", "now ", "room ", "£1,", ", i ", "not ", "the 3rd ", "at 3 "]
SLOW = 1.0  # seconds: a reader slower than this on the longer run is named


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, nargs=2, default=(300, 1200))
    short, long = parser.parse_args().repeats
    for reader in READERS.values():
        reader("what room is it, £2 and a half grand on the 3rd at 3")  # load what they load
    print(f"repeats: {short:,} and {long:,} (the longer text {len('the 3rd ') * long:,} chars)")
    print(f"{'reader':<22} {'phrase':<10} {'short s':>8} {'long s':>8} {'ratio':>6}")
    worst = []
    for name, reader in READERS.items():
        for phrase in PHRASES:
            seconds = []
            for repeats in (short, long):
                text = "what " + phrase * repeats
                started = time.perf_counter()
                reader(text)
                seconds.append(time.perf_counter() - started)
            ratio = seconds[1] / max(seconds[0], 1e-4)
            print(f"{name:<22} {phrase!r:<10} {seconds[0]:>8.3f} {seconds[1]:>8.3f} {ratio:>6.1f}")
            worst.append((seconds[1], name, phrase))
    worst.sort(reverse=True)
    print(f"\nslowest on the longer run: {worst[0][1]} on {worst[0][2]!r}, {worst[0][0]:.2f} s")
    slow = [f"{name} on {phrase!r}" for seconds, name, phrase in worst if seconds > SLOW]
    print(f"slower than {SLOW:.0f} s: {', '.join(slow) or 'none'}")
    print(f"total on the longer runs: {sum(seconds for seconds, _, _ in worst):.2f} s")


if __name__ == "__main__":
    main()
