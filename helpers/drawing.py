"""The drawing helpers of the course's concept diagrams (:mod:`helpers.diagrams`,
:mod:`helpers.technique_diagrams`): a canvas in data coordinates, boxes with text, arrows, and the
course's colours (:mod:`helpers.chartstyle`'s Okabe-Ito palette)."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.colors import to_rgb
from matplotlib.patches import FancyArrowPatch, Rectangle

from .chartstyle import OKABE_ITO

BLUE, ORANGE, GREEN, PINK, SKY, RED, BLACK, YELLOW = OKABE_ITO
GREY = "#bbbbbb"
PALE = "#eeeeee"


def canvas(width: float, height: float, xlim: tuple[float, float], ylim: tuple[float, float],
            title: str = ""):
    """A figure with one axes and no axis lines: a canvas in data coordinates (y upwards)."""
    fig, ax = plt.subplots(figsize=(width, height))
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=11)
    return fig, ax


def box(ax, x: float, y: float, w: float, h: float, text: str = "", color=PALE,
         edge=BLACK, size: float = 9, **kwargs) -> Rectangle:
    """A rectangle with ``text`` in its middle; a ``gid`` names both (the tests find them by it)."""
    rect = Rectangle((x, y), w, h, facecolor=color, edgecolor=edge, lw=kwargs.pop("lw", 1.0),
                     **kwargs)
    ax.add_patch(rect)
    if text:
        alpha = kwargs.get("alpha") or 1.0   # the colour drawn over white: white text if dark
        dark = color != "none" and sum(1 - alpha + alpha * v for v in to_rgb(color)) < 1.3
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size,
                gid=kwargs.get("gid"), color="white" if dark else BLACK)
    return rect


def arrow(ax, start, end, text: str = "", color: str = BLACK, offset=(0, 0.8),
           size: float = 8.5, **kwargs) -> None:
    """An arrow from ``start`` to ``end`` with ``text`` over its middle."""
    kwargs.setdefault("arrowstyle", "-|>")
    ax.add_patch(FancyArrowPatch(start, end, mutation_scale=12, color=color,
                                 lw=kwargs.pop("lw", 1.4), **kwargs))
    if text:
        ax.text((start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1], text,
                ha="center", va="bottom", fontsize=size, color=color)


def faded(color, alpha: float) -> tuple[float, float, float]:
    """``color`` drawn at ``alpha`` over white, as an opaque colour (for an image's pixels)."""
    return tuple(1 - alpha + alpha * x for x in to_rgb(color))


def pair(v: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(x) for x in v) + ")"
