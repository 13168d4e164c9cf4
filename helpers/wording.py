"""How the course writes a count in words: ``plural(1, "element")`` is "1 element",
``plural(3, "element")`` "3 elements". The package's sentences that put a number before a noun go
through :func:`plural`, so that no message says "1 elements"."""

from __future__ import annotations

# nouns whose plural is not the noun and an "s"
IRREGULAR = {"matrix": "matrices", "vertex": "vertices", "index": "indices", "process": "processes",
             "pass": "passes", "batch": "batches", "entry": "entries", "warp patch": "warp patches"}


def plural_of(word: str) -> str:
    """The plural of ``word`` (of its last word, for "work-group" and "compute unit")."""
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def plural(n: float, word: str, words: str | None = None, fmt: str = "") -> str:
    """``n`` and ``word``, the noun in the plural unless ``n`` is one: ``plural(2, "work-item")``
    is "2 work-items". ``words``: the plural where it is not regular; ``fmt``: the number's format
    (``","`` for 1,024; ``".3g"``)."""
    return f"{n:{fmt}} {word if n == 1 else words or plural_of(word)}"
