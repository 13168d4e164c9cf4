"""Write tests/data/seed_lines.json from ../shared/seeds/: the seed lines the tests check the course
against, quoted whole and by number, with each seed's sha256 digest and length (tests/seed_lines.py
says what is quoted and why). Run it after changing a claim, a figure or a cited line.

    python tools/seed_lines.py [--check]

``--check``: change nothing, exit 1 if the file differs from what the seeds give (0 if not)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers


def main() -> int:
    from tests import seed_lines
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the file differs")
    args = ap.parse_args()
    if not seed_lines.SEEDS.is_dir():
        print(f"no seeds at {seed_lines.SEEDS}: nothing to quote from", file=sys.stderr)
        return 2
    new = seed_lines.rendered(seed_lines.build())
    old = seed_lines.QUOTES.read_text(encoding="utf-8") if seed_lines.QUOTES.exists() else ""
    if args.check:
        print("tests/data/seed_lines.json " + ("is up to date" if new == old
                                               else "differs from the seeds"))
        return 0 if new == old else 1
    seed_lines.QUOTES.write_text(new, encoding="utf-8")
    quoted = sum(len(s["quoted"]) for s in seed_lines.build()["seeds"].values())
    print(f"wrote {seed_lines.QUOTES} ({quoted} lines of {len(new.encode())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
