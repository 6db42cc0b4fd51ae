"""The page's Content-Security-Policy in headless Chromium: the page still plays under it (a table
against bots, with its coloured pieces and its move composer, and not one violation reported),
and the browser enforces it (an inline script injected into the page does not run, refused by
Trusted Types and, without them, by script-src; a page of
another loopback origin cannot frame /play, by frame-ancestors, nor by X-Frame-Options alone for a
browser that predates frame-ancestors).

Chromium is Debian's (``/usr/bin/chromium``), driven by Playwright; the ``browser`` fixture is in
conftest.py. The headers themselves, on every kind of response, are in test_rest_security_headers.py.
"""

from __future__ import annotations

import contextlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

from rest_helpers import LiveRest
from hustings.service.embedded_redis import EmbeddedRedis

pytestmark = pytest.mark.slow
WAIT_MS = 20_000
# Each violation the page reports, kept where page.evaluate can read it (an init script runs
# through the DevTools protocol, which no page policy binds).
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample });
});
"""
INJECT_INLINE_SCRIPT = """() => new Promise((resolve) => {
  const before = window.__violations.length;
  let refused = null;
  try {
    const script = document.createElement("script");
    script.textContent = "window.__injected = 'ran'";
    document.body.append(script);
  } catch (e) {
    refused = e.name;  // Trusted Types: a script's text from a plain string throws
  }
  // A refused script reports its violation asynchronously; wait for it, a bounded while.
  const started = performance.now();
  const check = () => {
    if (window.__violations.length > before || performance.now() - started > 5000) resolve({ ran: window.__injected ?? null, refused });
    else setTimeout(check, 20);
  };
  check();
})"""


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    with LiveRest(redis_server.url) as server:
        yield server


class Watched:
    """A browser page whose policy violations and console messages are recorded."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context()
        self.context.add_init_script(RECORD_VIOLATIONS)
        self.page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.console: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))

    def violations(self) -> list[dict[str, Any]]:
        return self.page.evaluate("window.__violations")  # type: ignore[no-any-return]

    def policy_messages(self) -> list[str]:
        return [m for m in self.console if any(word in m for word in ("Content Security Policy", "Refused to", "Trusted"))]


@contextlib.contextmanager
def watched(browser: Any) -> Iterator[Watched]:
    page = Watched(browser)
    try:
        yield page
    finally:
        page.context.close()


@contextlib.contextmanager
def framing_site(target: str) -> Iterator[str]:
    """Another loopback origin (its own port) whose page frames ``target``; yields its URL."""
    page = f'<!doctype html><title>framing</title><iframe id="framed" src="{target}" onload="document.title = \'loaded\'"></iframe>'.encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_the_page_plays_under_its_policy_without_a_violation(browser: Any, live: LiveRest) -> None:
    """A Wahlspiel table against bots: the lobby, the table with its pieces coloured by style
    attributes (the policy's one allowance for styles), a move composer; no violation at all."""
    from playwright.sync_api import expect

    with watched(browser) as watched_page:
        page = watched_page.page
        answer = page.goto(live.base_url + "/play")
        assert answer is not None and "script-src 'self'" in answer.headers.get("content-security-policy", "")
        page.fill("#player-name", "Ada")
        page.select_option("#new-kind", "wahlspiel")
        page.fill("#new-players", "3")
        page.dispatch_event("#new-players", "change")
        page.click("#play-bots")
        page.wait_for_url("**/play#/game/*")
        expect(page.locator("#you")).to_contain_text("seat 0")
        expect(page.locator("#moves")).to_be_visible()
        assert page.locator("#moves button").count() >= 1, "the composer offers something to click"
        pieces = page.locator(".token.piece")
        assert pieces.count() >= 1
        colour = pieces.first.evaluate("(n) => getComputedStyle(n).backgroundColor")
        assert colour not in ("", "transparent", "rgba(0, 0, 0, 0)"), "a piece's colour (a style attribute) was refused"
        expect(page.locator("#error")).to_be_hidden()
        assert watched_page.violations() == []
        assert watched_page.policy_messages() == []


def test_the_browser_refuses_an_injected_inline_script(browser: Any, live: LiveRest) -> None:
    """As served, Trusted Types refuse the script's text from a string at once."""
    with watched(browser) as watched_page:
        page = watched_page.page
        page.goto(live.base_url + "/play")
        page.wait_for_selector("#create-game")
        assert page.evaluate(INJECT_INLINE_SCRIPT) == {"ran": None, "refused": "TypeError"}, "the injected inline script ran"
        (violation,) = watched_page.violations()
        assert violation["directive"] == "require-trusted-types-for", violation
        assert any("TrustedScript" in m for m in watched_page.policy_messages()), watched_page.console


def test_script_src_alone_refuses_an_injected_inline_script(browser: Any, live: LiveRest) -> None:
    """With the Trusted Types directives taken out of the page's policy (on the way into this
    browser), script-src still refuses the inline script: each layer holds by itself."""

    def without_trusted_types(route: Any) -> None:
        answer = route.fetch()
        headers = dict(answer.headers)
        if "content-security-policy" in headers:
            policy = headers["content-security-policy"]
            headers["content-security-policy"] = "; ".join(d for d in policy.split("; ") if "trusted-types" not in d)
        route.fulfill(response=answer, headers=headers)

    with watched(browser) as watched_page:
        page = watched_page.page
        watched_page.context.route(live.base_url + "/play", without_trusted_types)
        page.goto(live.base_url + "/play")
        page.wait_for_selector("#create-game")
        assert page.evaluate(INJECT_INLINE_SCRIPT) == {"ran": None, "refused": None}, "the injected inline script ran"
        (violation,) = watched_page.violations()
        assert violation["directive"] == "script-src-elem" and violation["blocked"] == "inline", violation
        assert any("inline script" in m for m in watched_page.policy_messages()), watched_page.console


def _framed_page_shown(page: Any) -> bool:
    """Whether the iframe shows /play (its client's #app), once the iframe has loaded."""
    page.wait_for_function("document.title === 'loaded'", timeout=WAIT_MS)
    (frame,) = [f for f in page.frames if f is not page.main_frame]
    try:
        return bool(frame.evaluate("() => !!document.getElementById('app')"))
    except Exception:  # noqa: BLE001 (an error page of the browser's own may refuse evaluation)
        return False


def test_another_origin_cannot_frame_the_page(browser: Any, live: LiveRest) -> None:
    with watched(browser) as watched_page, framing_site(live.base_url + "/play") as framer:
        page = watched_page.page
        page.goto(framer)
        assert not _framed_page_shown(page), "another origin framed /play"
        assert any("frame-ancestors" in m for m in watched_page.console), watched_page.console


def test_x_frame_options_alone_refuses_the_frame(browser: Any, live: LiveRest) -> None:
    """For a browser that knows no frame-ancestors: the page's answer with its policy taken out
    (on the way into this browser) is still refused a frame, by X-Frame-Options."""

    def without_policy(route: Any) -> None:
        answer = route.fetch()
        headers = {k: v for k, v in answer.headers.items() if k.lower() != "content-security-policy"}
        route.fulfill(response=answer, headers=headers)

    with watched(browser) as watched_page, framing_site(live.base_url + "/play") as framer:
        page = watched_page.page
        watched_page.context.route(live.base_url + "/play", without_policy)
        page.goto(framer)
        assert not _framed_page_shown(page), "another origin framed /play"
        assert any("X-Frame-Options" in m for m in watched_page.console), watched_page.console
