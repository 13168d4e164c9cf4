"""The class view: a JupyterHub service that takes the learners' check events and shows the
instructor the class, live (``python -m helpers.hub.service``; deploy/jupyterhub/jupyterhub_config.py
has the hub start it, as JupyterHub starts its services, with the environment it gives them).

Under the service's prefix (``/services/class-view/``):

- ``POST events``: one check's event (see :mod:`helpers.hub.events`), with a hub token in the
  ``Authorization`` header (a learner's server's own). The hub says whose token it is; the token
  must carry the scope ``custom:class-view:report``, which the course's hub gives every user and
  their servers. The learner is the token's owner, never anything in the event. Cookies do not
  count here (no page can post for a logged-in visitor). Bad input gets a 4xx and nothing is stored:
  a body over 2 KB without a ``source`` (413), not a JSON object of the right fields or a
  ``source`` over 1 MiB (400), an exercise the course does not have (422), more than
  ``COURSE_CLASS_RATE`` events a minute from one learner (429).
- ``GET`` (the page), ``state.json``, ``class.csv``: through the hub's OAuth, for the hub's admins
  and the members of the group ``COURSE_INSTRUCTORS_GROUP`` (default ``instructors``) only; any
  other user gets 403 (the hub itself refuses them the service, see the roles in the hub's
  configuration; this is the second lock).

What a learner's server posts is **self-reported**, and shown so: the server runs the learner's code
with the learner's rights, so a learner can post ``passed: true`` with their own token. An event that
carries its kernel's text (``source``) is checked again by the service itself, in the background
(:mod:`.recheck`; ``COURSE_CLASS_RECHECK=0`` turns that off): its verdict, *verified*, replaces the
server's.

The events are kept in SQLite at ``COURSE_CLASS_DB`` (default ``class-view.sqlite`` in the service's
working folder). The learners come from the hub's user list (the service's token reads it), less
the admins and instructors; anyone who sent an event is shown too.
"""

from __future__ import annotations

import html
import json
import os
import re
import time
from collections import defaultdict, deque
from urllib.parse import urlsplit

from tornado import web
from tornado.httpclient import AsyncHTTPClient, HTTPRequest

from .. import settings
from ..wording import plural
from .recheck import SOURCE_BYTES, Rechecker
from .store import SELF_REPORTED, Cell, ClassState, Store, class_state, grader_csv

REPORT_SCOPE = "custom:class-view:report"
EVENT_BYTES = 2048          # an event without its kernel's text
# with it: JSON writes a character of the text in at most 6 bytes (\u00XX)
BODY_BYTES = EVENT_BYTES + 6 * SOURCE_BYTES + 64
KERNEL_HASH = re.compile(r"^[0-9a-f]{0,64}$")


def settings_from_environment() -> dict:
    t, n = settings.text, settings.number
    return {"db": t("COURSE_CLASS_DB"), "instructors": t("COURSE_INSTRUCTORS_GROUP"),
            "stuck_minutes": n("COURSE_STUCK_MINUTES"), "stuck_fails": int(n("COURSE_STUCK_FAILS")),
            "rate": int(n("COURSE_CLASS_RATE")), "refresh": n("COURSE_CLASS_REFRESH"),
            "recheck": t("COURSE_CLASS_RECHECK").strip().lower() not in ("0", "false", "no", "off")}


def course_exercises() -> list[str]:
    from ..exercises import exercises
    return [ex.name for ex in exercises()]


class RateLimit:
    """At most ``per_minute`` events of one learner in any 60 s."""

    def __init__(self, per_minute: int):
        self.per_minute = per_minute
        self.seen: dict[str, deque] = defaultdict(deque)

    def allow(self, who: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        q = self.seen[who]
        while q and now - q[0] > 60:
            q.popleft()
        if len(q) >= self.per_minute:
            return False
        q.append(now)
        return True


def _parsed(body: bytes) -> dict | list | None:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def validated(body: bytes, known: set[str]) -> tuple[int, str, dict | None]:
    """(status, why, event): 200 and the event, or the 4xx and why nothing is stored. The event's
    ``source`` (the kernel's text) is optional; every other field is required."""
    if len(body) > BODY_BYTES:
        return 413, f"an event is at most {BODY_BYTES} bytes with its kernel's source", None
    e = _parsed(body)
    if len(body) > EVENT_BYTES and not (isinstance(e, dict) and "source" in e):
        return 413, f"an event is at most {EVENT_BYTES} bytes without its kernel's source", None
    if e is None:
        return 400, "the body is not JSON", None
    fields = {"exercise": str, "passed": bool, "mistake": str, "seconds": (int, float),
              "kernel": str}
    if not isinstance(e, dict) or not set(fields) <= set(e) <= {*fields, "source"}:
        return 400, f"an event is a JSON object with exactly {sorted(fields)} and perhaps " \
                    f"'source'", None
    for k, t in (*fields.items(), ("source", str)):
        if k in e and (not isinstance(e[k], t) or (k == "seconds" and isinstance(e[k], bool))):
            return 400, f"{k} has the wrong type", None
    if not 0 <= e["seconds"] <= 3600 or len(e["mistake"]) > 200 or \
            not KERNEL_HASH.match(e["kernel"]):
        return 400, "seconds, mistake or kernel out of range", None
    if "source" in e:
        try:
            size = len(e["source"].encode("utf-8"))
        except UnicodeEncodeError:
            return 400, "source is not text (it holds a lone surrogate)", None
        if size > SOURCE_BYTES:
            return 400, f"source is at most {SOURCE_BYTES} bytes of UTF-8 (1 MiB)", None
    if e["exercise"] not in known:
        return 422, f"the course has no exercise {e['exercise'][:60]!r}", None
    if e["passed"] and e["mistake"]:
        return 400, "a passed check has no mistake", None
    return 200, "", e


def receive(settings: dict, learner: str, body: bytes) -> tuple[int, dict]:
    """An event of ``learner`` (the token's owner): (status, answer). Stored self-reported; its
    re-check, if it carries its source, is queued (never waited for)."""
    status, why, e = validated(body, settings["exercises"])
    if e is None:
        return status, {"stored": False, "why": why}
    if not settings["rate"].allow(learner):
        return 429, {"stored": False, "why": "too many events a minute"}
    rechecker: Rechecker = settings["rechecker"]
    recheck = rechecker.reserve(learner) if "source" in e else ""
    try:
        n = settings["store"].add(learner, e["exercise"], e["passed"], e["mistake"],
                                  float(e["seconds"]), e["kernel"], recheck=recheck)
    except BaseException:
        if recheck == "pending":
            rechecker.release(learner)
        raise
    if recheck == "pending":
        rechecker.start(n, learner, e["exercise"], e["source"])
    return 200, {"stored": True, "id": n, "verified": False, "recheck": recheck or "no source"}


class EventsHandler(web.RequestHandler):
    async def post(self):
        auth = self.settings["hub_auth"]      # jupyterhub.services.auth.HubAuth
        token = auth.get_token(self, in_cookie=False)
        model = await auth.user_for_token(token, sync=False) if token else None
        if not model or model.get("kind", "user") != "user" or \
                REPORT_SCOPE not in model.get("scopes", []):
            raise web.HTTPError(403, "a learner's server's hub token is needed")
        status, answer = receive(self.settings, model["name"], self.request.body)
        self.set_status(status)
        self.finish(answer)


def _instructor_mixin():
    from jupyterhub.services.auth import HubOAuthenticated, UserNotAllowed

    class InstructorOnly(HubOAuthenticated):
        """The hub's admins and the instructors group; everyone else 403."""

        def check_hub_user(self, model):
            group = self.settings["instructors"]
            if model.get("kind", "user") == "user" and (
                    model.get("admin") or group in (model.get("groups") or [])):
                return model
            raise UserNotAllowed(model)
    return InstructorOnly


async def learners(settings: dict) -> list[str] | None:
    """The hub's users less its admins and instructors (cached 30 s); None if the hub says
    nothing."""
    cached = settings.get("_learners")
    if cached and time.monotonic() - cached[0] < 30:
        return cached[1]
    api, token = os.environ.get("JUPYTERHUB_API_URL"), os.environ.get("JUPYTERHUB_API_TOKEN")
    if not api or not token:
        return None
    try:
        r = await AsyncHTTPClient().fetch(HTTPRequest(
            api.rstrip("/") + "/users", headers={"Authorization": f"token {token}"},
            request_timeout=5))
        users = json.loads(r.body)
    except Exception:
        return cached[1] if cached else None
    group = settings["instructors"]
    names = sorted(u["name"] for u in users if not u.get("admin")
                   and group not in (u.get("groups") or []))
    settings["_learners"] = (time.monotonic(), names)
    return names


async def current(settings: dict) -> ClassState:
    return class_state(settings["store"].events(), settings["exercise_order"],
                       await learners(settings), stuck_minutes=settings["stuck_minutes"],
                       stuck_fails=settings["stuck_fails"])


def _minutes(seconds: float) -> str:
    m = seconds / 60
    return f"{m:.0f} min" if m >= 1 else "<1 min"


def _tries(n: int) -> str:
    return f"{n} tr{'y' if n == 1 else 'ies'}"


def _cell(c: Cell, now: float, stuck: bool) -> tuple[str, str, str]:
    """A matrix cell: (its classes, its text, its tooltip)."""
    state = c.state
    pending = f"; {plural(c.pending, 're-check')} still waiting" \
        if c.pending and state != "passed (self-reported)" else ""
    refuted = (f"; the learner's server reported {plural(c.refuted, 'check')} passed that the "
               f"service's re-check failed") if c.refuted else ""
    if state == "passed (verified)":
        text = f"passed (verified), {_tries(c.attempts)}"
        tip = (f"passed the service's own re-check of the kernel, "
               f"{_minutes(c.passed_at - c.first)} after the first check")
    elif state == "passed (self-reported)":
        text = f"passed (self-reported), {_tries(c.attempts)}"
        tip = (f"self-reported: {SELF_REPORTED}; not verified: {c.unverified}; "
               f"{_minutes(c.passed_at - c.first)} after the first check")
    elif state == "failed (verified)":
        text = f"failed (verified), {_tries(c.attempts)}, {_minutes(now - c.first)}" + \
               ("; reported passed" if c.refuted else "")
        tip = f"the service's re-check failed it; latest: {c.last_mistake or 'passed'}"
    elif state == "trying (self-reported)":
        text = f"{_tries(c.attempts)}, {_minutes(now - c.first)}"
        tip = (f"self-reported ({SELF_REPORTED}); latest: " +
               (c.last_mistake or "passed"))
    else:
        return "not-tried", "", "not tried"
    kind, _, how = state.partition(" (")
    cls = f"{kind} {how.rstrip(')')}" + (" refuted" if c.refuted else "") + \
        (" stuck" if stuck else "")
    return cls, text, tip + refuted + pending


LEGEND = """<p class="legend"><span class="passed verified">passed (verified)</span>: the class
view re-checked the learner's kernel itself, and it passed.
<span class="passed self-reported">passed (self-reported)</span>: only the learner's own server
said so, not re-checked; a learner could forge it.
<span class="failed verified refuted">failed (verified); reported passed</span>: the service's
re-check failed a kernel the learner's server reported passed.
<span class="failed verified">failed (verified)</span> <span class="trying">trying
(self-reported)</span> <span class="trying stuck">stuck</span>
<span class="not-tried">not tried</span>. {rechecks}</p>"""


def _explain(state: ClassState, settings: dict) -> str:
    """What to explain to the room: per exercise, its likely mistakes, each linked to its entry
    in the facilitator's guide (served under the service's ``guide/``)."""
    from ..guide import link
    esc, base = html.escape, settings.get("guide_base", "guide/")

    def explained(x: str, m: str, n: int) -> str:
        where = link(x, m).replace("guide/", base, 1)
        said = f"{esc(m)} ({n})"
        return f"<a href='{esc(where, quote=True)}'>{said}</a>" if where else said
    return "".join(
        f"<li><b>{esc(x)}</b>: " + "; ".join(explained(x, m, n) for m, n in ms[:3]) + "</li>"
        for x, ms in state.mistakes.items()) or "<li>no failed checks right now</li>"


def _room(state: ClassState, settings: dict) -> str:
    """Which notebooks the room is on: that of each learner's latest check, most first, each
    linked to its guide."""
    from ..guide import room
    esc, base = html.escape, settings.get("guide_base", "guide/")
    latest: dict[str, tuple[float, str]] = {}
    for (lr, x), c in state.cells.items():
        if c.last is not None and (lr not in latest or c.last > latest[lr][0]):
            latest[lr] = (c.last, x)
    on = room({lr: x for lr, (_, x) in latest.items()})
    return "; ".join(f"<a href='{esc(base + s, quote=True)}'>{esc(s)}</a> "
                     f"({plural(n, 'learner')})" for s, n in on) or "no check yet"


def main_html(state: ClassState, settings: dict) -> str:
    esc = html.escape
    now = state.now
    rule = (f"trying one exercise for at least {plural(settings['stuck_minutes'], 'minute', fmt='g')} "
            f"since the first check, with at least {plural(settings['stuck_fails'], 'failed check')} "
            f"and no pass")
    stuck = "".join(
        f"<li><b>{esc(s['learner'])}</b> on <b>{esc(s['exercise'])}</b>: "
        f"{plural(s['failed'], 'failed check')} in {_minutes(s['minutes'] * 60)}; latest: "
        f"{esc(s['mistake'])}</li>"
        for s in state.stuck) or "<li>nobody</li>"
    explain = _explain(state, settings)
    where = _room(state, settings)
    head = "".join(f"<th class='ex'><span>{esc(x)}</span></th>" for x in state.exercises)
    rows = []
    stuck_keys = {(s["learner"], s["exercise"]) for s in state.stuck}
    for lr in state.learners:
        cells = []
        for x in state.exercises:
            cls, text, tip = _cell(state.cells.get((lr, x), Cell()), now, (lr, x) in stuck_keys)
            cells.append(f"<td class='{cls}' title='{esc(tip, quote=True)}'>{esc(text)}</td>")
        mine = [state.cells.get((lr, x), Cell()).state for x in state.exercises]
        done = str(mine.count("passed (verified)"))
        if "passed (self-reported)" in mine:
            done += f" (+{mine.count('passed (self-reported)')} self-reported)"
        rows.append(f"<tr><th>{esc(lr)}</th>{''.join(cells)}<td>{done}</td></tr>")
    unsandboxed = settings.get("recheck_unsandboxed")
    rechecks = ("Re-checks are off on this hub (COURSE_CLASS_RECHECK=0): every verdict here is "
                "self-reported." if not settings.get("recheck", True) else
                f"Re-checks need the sandbox, which this machine cannot run ({unsandboxed}): "
                f"the service runs no learner's kernel, and every verdict here is self-reported."
                if unsandboxed else
                "The service re-checks every check whose server sent the kernel's text, in "
                "workers of that learner's own.")
    return f"""<p id="summary">{plural(len(state.learners), 'learner')}, \
{plural(len(state.exercises), 'exercise')},
{plural(state.events, 'check')} ({state.verified} verified by the service's re-check, \
{state.pending} waiting for it); updated {time.strftime('%H:%M:%S', time.localtime(now))}.
<a href="class.csv">The matrix as CSV</a> (the grader's grades.csv format, with a column
<code>verified</code>).</p>
<p id="room">The room is on: {where} (the notebook of each learner's latest check; each
links to its facilitator's guide).</p>
<h2>Stuck</h2><p class="rule">Stuck: {esc(rule)}.</p><ul id="stuck">{stuck}</ul>
<h2>What to explain to the room</h2>
<p class="rule">Per exercise, the likely mistakes of the latest failed check of each learner still
trying it (how many learners); each links to its entry in the facilitator's guide.</p>
<ul id="mistakes">{explain}</ul>
<h2>The class</h2>
<table id="matrix"><tr><th>learner</th>{head}<th>passed (verified)</th></tr>
{chr(10).join(rows)}</table>
{LEGEND.format(rechecks=esc(rechecks))}"""


PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Class view</title><style>
body {{ font-family: sans-serif; margin: 1em 2em; }}
table {{ border-collapse: collapse; font-size: 85%; }}
td, th {{ border: 1px solid #bbb; padding: 3px 5px; text-align: left; white-space: nowrap; }}
th.ex {{ height: 9em; vertical-align: bottom; }}
th.ex span {{ writing-mode: vertical-rl; transform: rotate(180deg); }}
.passed.verified {{ background: #a5d6a7; }} .trying {{ background: #fff3c4; }}
.passed.self-reported {{ background: repeating-linear-gradient(45deg, #e8f5e9 0 6px, #fff 6px 12px);
  font-style: italic; }}
.failed.verified {{ background: #ffe0b2; }} .refuted {{ outline: 2px solid #c62828; }}
.stuck {{ background: #ffab91; font-weight: bold; }} .not-tried {{ background: #f4f4f4; }}
.legend span {{ padding: 0 6px; }} .legend {{ line-height: 1.8; }} .rule {{ color: #555; }}
</style></head><body>
<h1>Class view</h1>
<main id="main">{main}</main>
<script>
// the page refreshes itself: the class's part every {refresh:g} s, without a reload
setInterval(async () => {{
  try {{
    const r = await fetch("?part=main", {{credentials: "same-origin"}});
    if (r.ok) document.getElementById("main").innerHTML = await r.text();
  }} catch (e) {{}}
}}, {refresh_ms});
</script>
</body></html>"""


def page_handlers():
    base = _instructor_mixin()

    class PageHandler(base, web.RequestHandler):
        @web.authenticated
        async def get(self):
            state = await current(self.settings)
            main = main_html(state, self.settings)
            self.set_header("Cache-Control", "no-store")
            if self.get_argument("part", "") == "main":
                return self.finish(main)
            self.finish(PAGE.format(main=main, refresh=self.settings["refresh"],
                                    refresh_ms=int(self.settings["refresh"] * 1000)))

    class StateHandler(base, web.RequestHandler):
        @web.authenticated
        async def get(self):
            s = await current(self.settings)
            self.set_header("Cache-Control", "no-store")
            self.finish({"learners": s.learners, "exercises": s.exercises, "events": s.events,
                         "cells": [{"learner": lr, "exercise": x, "state": c.state,
                                    "verified": c.verified, "attempts": c.attempts,
                                    "failed": c.failed, "first": c.first,
                                    "passed_at": c.passed_at, "mistake": c.last_mistake,
                                    "reported_passed_failed_recheck": c.refuted,
                                    "rechecks_waiting": c.pending}
                                   for (lr, x), c in sorted(s.cells.items())],
                         "verified": s.verified, "rechecks_waiting": s.pending,
                         "stuck": s.stuck, "mistakes": s.mistakes,
                         "rule": {"stuck_minutes": self.settings["stuck_minutes"],
                                  "stuck_fails": self.settings["stuck_fails"]}})

    class CsvHandler(base, web.RequestHandler):
        @web.authenticated
        async def get(self):
            s = await current(self.settings)
            self.set_header("Content-Type", "text/csv; charset=utf-8")
            self.set_header("Content-Disposition", "attachment; filename=class.csv")
            self.finish(grader_csv(s))

    class GuideHandler(base, web.RequestHandler):
        @web.authenticated
        async def get(self, stem):
            from ..guide import page
            text = page(stem)
            if text is None:
                raise web.HTTPError(404)
            self.finish(text)

    return PageHandler, StateHandler, CsvHandler, GuideHandler


def app_settings(store: Store, settings: dict | None = None) -> dict:
    """The application's settings but its hub's (those of the environment, then ``settings``):
    what :func:`receive` and the pages read. ``rechecker`` may be given (tests)."""
    settings = {**settings_from_environment(), **(settings or {})}
    order = settings.pop("exercise_order", None) or course_exercises()
    rechecker = settings.pop("rechecker", None) or Rechecker(store, enabled=settings["recheck"])
    settings["recheck"] = rechecker.enabled
    if rechecker.enabled and "recheck_unsandboxed" not in settings:
        from ..checking.sandbox import why_not
        settings["recheck_unsandboxed"] = why_not()     # None: re-checks run in the sandbox
    return {"store": store, "exercises": set(order), "exercise_order": order,
            "rate": RateLimit(settings["rate"]), "rechecker": rechecker,
            **{k: v for k, v in settings.items() if k not in ("db", "rate")}}


def make_app(store: Store, prefix: str, settings: dict | None = None, hub_auth=None):
    from jupyterhub.services.auth import HubOAuth, HubOAuthCallbackHandler
    from jupyterhub.utils import url_path_join
    page, state, csv_, guide = page_handlers()
    return web.Application([
        (url_path_join(prefix, "events"), EventsHandler),
        (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler),
        (url_path_join(prefix, "state.json"), state),
        (url_path_join(prefix, "class.csv"), csv_),
        (url_path_join(prefix, r"guide/(\d\d-[\w-]+)"), guide),
        (prefix.rstrip("/") + "/?", page),
    ], cookie_secret=os.urandom(32), hub_auth=hub_auth or HubOAuth.instance(),
        **app_settings(store, settings))


def http_server(app):
    """The service's HTTP server: a body as large as an event with its source may be."""
    from tornado.httpserver import HTTPServer
    return HTTPServer(app, max_body_size=BODY_BYTES + 1024, xheaders=True)


def main() -> None:
    import asyncio
    if settings_from_environment()["recheck"]:   # an ordinary user's service starts again in
        from ..checking.scratch import restart_with_own_mounts  # mounts of its own: each
        restart_with_own_mounts()                # re-check worker's folder a tmpfs

    async def serve() -> None:
        settings = settings_from_environment()
        store = Store(settings["db"])
        prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/class-view/")
        url = urlsplit(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"))
        server = http_server(make_app(store, prefix))
        server.listen(url.port or 80, url.hostname or "127.0.0.1")
        print(f"class view: {prefix} on {url.hostname}:{url.port}, events in {store.path}, "
              f"re-checks {'on' if settings['recheck'] else 'off'}", flush=True)
        await asyncio.Event().wait()
    asyncio.run(serve())


if __name__ == "__main__":
    main()
