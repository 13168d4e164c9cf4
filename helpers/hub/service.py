"""The class view: a JupyterHub service that takes the learners' check events and shows the
instructor the class, live (``python -m helpers.hub.service``; deploy/jupyterhub/jupyterhub_config.py
has the hub start it, as JupyterHub starts its services, with the environment it gives them).

Under the service's prefix (``/services/class-view/``):

- ``POST events``: one check's event (see :mod:`helpers.hub.events`), with a hub token in the
  ``Authorization`` header (a learner's server's own). The hub says whose token it is; the token
  must carry the scope ``custom:class-view:report``, which the course's hub gives every user and
  their servers. The learner is the token's owner, never anything in the event. Cookies do not
  count here (no page can post for a logged-in visitor). Bad input gets a 4xx and nothing is stored:
  a body over 2 KB (413), not a JSON object of the right fields (400), an exercise the course does
  not have (422), more than ``COURSE_CLASS_RATE`` events a minute from one learner (429).
- ``GET`` (the page), ``state.json``, ``class.csv``: through the hub's OAuth, for the hub's admins
  and the members of the group ``COURSE_INSTRUCTORS_GROUP`` (default ``instructors``) only; any
  other user gets 403 (the hub itself refuses them the service, see the roles in the hub's
  configuration; this is the second lock).

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

from ..words import plural
from .store import Cell, ClassState, Store, class_state, grader_csv

REPORT_SCOPE = "custom:class-view:report"
EVENT_BYTES = 2048
KERNEL_HASH = re.compile(r"^[0-9a-f]{0,64}$")


def settings_from_environment() -> dict:
    env = os.environ
    return {"db": env.get("COURSE_CLASS_DB", "class-view.sqlite"),
            "instructors": env.get("COURSE_INSTRUCTORS_GROUP", "instructors"),
            "stuck_minutes": float(env.get("COURSE_STUCK_MINUTES", "15")),
            "stuck_fails": int(env.get("COURSE_STUCK_FAILS", "3")),
            "rate": int(env.get("COURSE_CLASS_RATE", "30")),
            "refresh": float(env.get("COURSE_CLASS_REFRESH", "10"))}


def course_exercises() -> list[str]:
    from ..checking.exercises import exercises
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


def validated(body: bytes, known: set[str]) -> tuple[int, str, dict | None]:
    """(status, why, event): 200 and the event, or the 4xx and why nothing is stored."""
    if len(body) > EVENT_BYTES:
        return 413, f"an event is at most {EVENT_BYTES} bytes", None
    try:
        e = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return 400, "the body is not JSON", None
    fields = {"exercise": str, "passed": bool, "mistake": str, "seconds": (int, float),
              "kernel": str}
    if not isinstance(e, dict) or set(e) != set(fields):
        return 400, f"an event is a JSON object with exactly {sorted(fields)}", None
    for k, t in fields.items():
        if not isinstance(e[k], t) or (k == "seconds" and isinstance(e[k], bool)):
            return 400, f"{k} has the wrong type", None
    if not 0 <= e["seconds"] <= 3600 or len(e["mistake"]) > 200 or \
            not KERNEL_HASH.match(e["kernel"]):
        return 400, "seconds, mistake or kernel out of range", None
    if e["exercise"] not in known:
        return 422, f"the course has no exercise {e['exercise'][:60]!r}", None
    if e["passed"] and e["mistake"]:
        return 400, "a passed check has no mistake", None
    return 200, "", e


class EventsHandler(web.RequestHandler):
    async def post(self):
        from jupyterhub.services.auth import HubAuth
        auth: HubAuth = self.settings["hub_auth"]
        token = auth.get_token(self, in_cookie=False)
        model = await auth.user_for_token(token, sync=False) if token else None
        if not model or model.get("kind", "user") != "user" or \
                REPORT_SCOPE not in model.get("scopes", []):
            raise web.HTTPError(403, "a learner's server's hub token is needed")
        status, why, e = validated(self.request.body, self.settings["exercises"])
        if e is None:
            self.set_status(status)
            return self.finish({"stored": False, "why": why})
        if not self.settings["rate"].allow(model["name"]):
            self.set_status(429)
            return self.finish({"stored": False, "why": "too many events a minute"})
        n = self.settings["store"].add(model["name"], e["exercise"], e["passed"], e["mistake"],
                                       float(e["seconds"]), e["kernel"])
        self.finish({"stored": True, "id": n})


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
    explain = "".join(
        f"<li><b>{esc(x)}</b>: " + "; ".join(f"{esc(m)} ({n})" for m, n in ms[:3]) + "</li>"
        for x, ms in state.mistakes.items()) or "<li>no failed checks right now</li>"
    head = "".join(f"<th class='ex'><span>{esc(x)}</span></th>" for x in state.exercises)
    rows = []
    stuck_keys = {(s["learner"], s["exercise"]) for s in state.stuck}
    for lr in state.learners:
        cells = []
        for x in state.exercises:
            c = state.cells.get((lr, x), Cell())
            if c.state == "passed":
                text = f"passed, {c.attempts} tr{'y' if c.attempts == 1 else 'ies'}"
                tip = f"passed {_minutes(c.passed_at - c.first)} after the first check"
            elif c.state == "trying":
                text = f"{c.attempts} tr{'y' if c.attempts == 1 else 'ies'}, " \
                       f"{_minutes(now - c.first)}"
                tip = f"latest: {c.last_mistake}" if c.last_mistake else "latest check passed"
            else:
                text, tip = "", "not tried"
            cls = c.state.replace(" ", "-") + (" stuck" if (lr, x) in stuck_keys else "")
            cells.append(f"<td class='{cls}' title='{esc(tip, quote=True)}'>{esc(text)}</td>")
        done = sum(state.cells.get((lr, x), Cell()).state == "passed" for x in state.exercises)
        rows.append(f"<tr><th>{esc(lr)}</th>{''.join(cells)}<td>{done}</td></tr>")
    return f"""<p id="summary">{plural(len(state.learners), 'learner')}, \
{plural(len(state.exercises), 'exercise')},
{plural(state.events, 'check')}; updated {time.strftime('%H:%M:%S', time.localtime(now))}.
<a href="class.csv">The matrix as CSV</a> (the grader's grades.csv format).</p>
<h2>Stuck</h2><p class="rule">Stuck: {esc(rule)}.</p><ul id="stuck">{stuck}</ul>
<h2>What to explain to the room</h2>
<p class="rule">Per exercise, the likely mistakes of the latest failed check of each learner still
trying it (how many learners).</p><ul id="mistakes">{explain}</ul>
<h2>The class</h2>
<table id="matrix"><tr><th>learner</th>{head}<th>passed</th></tr>
{chr(10).join(rows)}</table>
<p class="legend"><span class="passed">passed</span> <span class="trying">trying</span>
<span class="trying stuck">stuck</span> <span class="not-tried">not tried</span></p>"""


PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Class view</title><style>
body {{ font-family: sans-serif; margin: 1em 2em; }}
table {{ border-collapse: collapse; font-size: 85%; }}
td, th {{ border: 1px solid #bbb; padding: 3px 5px; text-align: left; white-space: nowrap; }}
th.ex {{ height: 9em; vertical-align: bottom; }}
th.ex span {{ writing-mode: vertical-rl; transform: rotate(180deg); }}
.passed {{ background: #c8e6c9; }} .trying {{ background: #fff3c4; }}
.stuck {{ background: #ffab91; font-weight: bold; }} .not-tried {{ background: #f4f4f4; }}
.legend span {{ padding: 0 6px; }} .rule {{ color: #555; }}
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
                                    "attempts": c.attempts, "failed": c.failed,
                                    "first": c.first, "passed_at": c.passed_at,
                                    "mistake": c.last_mistake}
                                   for (lr, x), c in sorted(s.cells.items())],
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

    return PageHandler, StateHandler, CsvHandler


def make_app(store: Store, prefix: str, settings: dict | None = None, hub_auth=None):
    from jupyterhub.services.auth import HubOAuth, HubOAuthCallbackHandler
    from jupyterhub.utils import url_path_join
    settings = {**settings_from_environment(), **(settings or {})}
    order = settings.pop("exercise_order", None) or course_exercises()
    page, state, csv_ = page_handlers()
    return web.Application([
        (url_path_join(prefix, "events"), EventsHandler),
        (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler),
        (url_path_join(prefix, "state.json"), state),
        (url_path_join(prefix, "class.csv"), csv_),
        (prefix.rstrip("/") + "/?", page),
    ], cookie_secret=os.urandom(32), hub_auth=hub_auth or HubOAuth.instance(), store=store,
        exercises=set(order), exercise_order=order, rate=RateLimit(settings["rate"]),
        **{k: v for k, v in settings.items() if k not in ("db", "rate")})


def main() -> None:
    import asyncio

    from tornado.httpserver import HTTPServer

    async def serve() -> None:
        settings = settings_from_environment()
        store = Store(settings["db"])
        prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/class-view/")
        url = urlsplit(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"))
        server = HTTPServer(make_app(store, prefix), max_body_size=64 * 1024, xheaders=True)
        server.listen(url.port or 80, url.hostname or "127.0.0.1")
        print(f"class view: {prefix} on {url.hostname}:{url.port}, events in {store.path}",
              flush=True)
        await asyncio.Event().wait()
    asyncio.run(serve())


if __name__ == "__main__":
    main()
