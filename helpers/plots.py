"""matplotlib figures that render statically (also in an HTML export and under nbval).

Each function takes measured results (the dicts :mod:`helpers.bench` returns) and returns a Figure;
widgets draw through these same functions.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import Patch

KIND_COLORS = {"set-up": "#d55e00", "transfer": "#999999", "execution": "#0072b2"}


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3g} ms" if ms >= 0.01 else f"{ms * 1e3:.3g} µs"


def runtime_profile(profile: dict, title: str | None = None) -> Figure:
    """Horizontal bars, one per stage of the start-up profile, on a log scale of milliseconds."""
    stages = profile["stages"]
    names = [s["stage"] for s in stages]
    secs = [s["seconds"] for s in stages]
    fig, ax = plt.subplots(figsize=(8, 0.42 * len(stages) + 1.2))
    colors = [KIND_COLORS[s["kind"]] for s in stages]
    y = range(len(stages))[::-1]
    ax.barh(list(y), [s * 1e3 for s in secs], color=colors)
    ax.set_yticks(list(y), names)
    ax.set_xscale("log")
    ax.set_xlabel("milliseconds (log scale; wall-clock on the host)")
    for yi, s in zip(y, secs, strict=True):
        ax.text(s * 1e3 * 1.08, yi, _ms(s), va="center", fontsize=9)
    ax.set_xlim(right=max(secs) * 1e3 * 8)
    dev = profile["environment"]["device"]
    ax.set_title(title or f"Where the time goes: copying {profile['bytes'] / 2**20:.0f} MiB on "
                 f"{dev['device']}\n({dev['platform']}, driver {dev['driver_version']})",
                 fontsize=10)
    ax.legend(handles=[Patch(color=c, label=k) for k, c in KIND_COLORS.items()],
              loc="lower right", frameon=False, fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return fig
