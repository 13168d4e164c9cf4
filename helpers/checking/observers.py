"""Who hears of each verdict: the checker publishes every check's report to the observers
registered here and knows nothing else of them (the hub's class view registers its reporter from
its own side, :func:`helpers.hub.events.register`). An observer is called as
``observer(report, seconds)`` after the verdict is known; it must not block, and what it raises is
swallowed: an observer never costs a learner a verdict."""

from __future__ import annotations

from collections.abc import Callable

Observer = Callable[["object", float], object]
_observers: list[Observer] = []


def subscribe(observer: Observer) -> Callable[[], None]:
    """Register ``observer`` (once, however often it is subscribed); returns its unsubscribe."""
    if observer not in _observers:
        _observers.append(observer)
    return lambda: unsubscribe(observer)


def unsubscribe(observer: Observer) -> None:
    if observer in _observers:
        _observers.remove(observer)


def publish(report, seconds: float) -> None:
    """Tell every observer of ``report`` (a :class:`~.verdict.CheckReport`) and the seconds its
    check took."""
    for observer in list(_observers):
        try:
            observer(report, seconds)
        except Exception:   # an observer's trouble is its own
            pass
