"""Write docs/platforms.md's driver section from helpers/data/drivers.json (the section from its
heading "## What the course knows about drivers" to the end of the file).

    python tools/platforms_doc.py [--check]

``--check``: change nothing, exit 1 if the file differs from the data (0 if not)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HEADING = "## What the course knows about drivers"


def rendered(current: str) -> str:
    """``current`` with its driver section (and what follows) replaced by the data's."""
    from helpers.driver_facts import platforms_markdown
    before = current.split(HEADING, 1)[0]
    return before + platforms_markdown()


def main() -> int:
    from helpers.paths import ROOT
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/platforms.md differs")
    args = ap.parse_args()
    path = ROOT / "docs" / "platforms.md"
    current = path.read_text(encoding="utf-8")
    new = rendered(current)
    if args.check:
        print("docs/platforms.md " + ("is up to date" if new == current else "differs from the data"))
        return 0 if new == current else 1
    path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
