"""Issue 56 point 1: a deck opens in Chromium with the network off (a workshop room's wifi
fails) and steps through to its end: reveal.js and everything else it loads come from the
course's own files, nothing fails to load, and the text is large enough for a projector."""

from __future__ import annotations

from test_lab import chromium  # noqa: E402  (pytest puts this folder on the path)

from helpers import slides


def test_a_deck_steps_through_in_chromium_with_the_network_off(tmp_path):
    from playwright.sync_api import sync_playwright
    slides.build(tmp_path, only=["03"])
    deck = tmp_path / "03-local-memory.slides.html"
    asked, failed, errors = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context(viewport={"width": 1280, "height": 800}, offline=True)

        def route(r):
            asked.append(r.request.url)
            r.continue_() if r.request.url.startswith("file://") else r.abort()
        context.route("**/*", route)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: failed.append(r.url))
        page.goto(deck.as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=30_000)
        total = page.evaluate("Reveal.getTotalSlides()")
        seen = set()
        for _ in range(total + 5):
            seen.add(page.evaluate("JSON.stringify(Reveal.getIndices())"))
            if page.evaluate("Reveal.isLastSlide()"):
                break
            page.keyboard.press("Space")         # the presenter's key: next slide, down then right
            page.wait_for_timeout(50)
        title = page.evaluate("document.title")
        body_px = page.evaluate(
            "parseFloat(getComputedStyle(document.querySelector('.reveal .slides p')).fontSize)")
        browser.close()
    assert errors == [] and failed == [], (errors, failed)
    assert [u for u in asked if not u.startswith("file://")] == []
    assert any(u.endswith("/reveal/dist/reveal.js") for u in asked)
    assert total >= 10 and len(seen) == total, (total, len(seen))
    assert "03-local-memory" in title
    assert body_px >= 24, body_px          # a projector's text (reveal scales it with the window)
