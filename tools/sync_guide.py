"""Write each facilitator's guide's misconceptions (docs/guide/NN-*.md) from the checker's likely
mistakes of its notebook's exercises (helpers/guide.py), so that the guide names them in the words
the class view tallies; --check only says which guides are stale (exit 1).

    python tools/sync_guide.py [--check]"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.guide import GUIDES, synced  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    stale = []
    for path in sorted(GUIDES.glob("[0-9][0-9]-*.md")):
        text = path.read_text(encoding="utf-8")
        new = synced(text, path.stem)
        if new != text:
            stale.append(path.name)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    verb = "stale" if args.check else "written"
    print(f"{len(stale)} guides {verb}" + (f": {', '.join(stale)}" if stale else ""))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
