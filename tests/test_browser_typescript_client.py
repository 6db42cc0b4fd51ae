"""The TypeScript client in a browser page, as the README's "In the browser" shows it: the page
and the client's files served by a static file server on one loopback origin, the API on another,
headless Chromium running it. The client once failed there on every call: it called the
browser's `fetch` as a method of itself ("Illegal invocation"), which Node.js lets pass. The
page also reads an answer's `Date` (the server's time) across origins, and follows a game with
`api.watch`.

Chromium is Debian's, driven by Playwright (the ``browser`` fixture in conftest.py); the client
is built by the ``typescript_dist`` fixture.
"""

from __future__ import annotations

import contextlib
import http.server
import mimetypes
import pathlib
import threading
from typing import Any, Iterator

import pytest

from conftest import REPO
from rest_helpers import LiveRest
from hustings.service.embedded_redis import EmbeddedRedis, free_port

pytestmark = pytest.mark.slow
TS_DIR = REPO / "clients" / "typescript"
PREFIX = "/hustings/"  # where the README serves clients/typescript
README_API = "http://127.0.0.1:8080"
WAIT_MS = 20_000
# What a page may load of the client's folder: its build and protobuf-es, nothing else.
SERVED = (TS_DIR / "dist", TS_DIR / "node_modules" / "@bufbuild" / "protobuf" / "dist")


def readme_page() -> str:
    """The README's page: the html block after the sentence that names this test."""
    readme = (REPO / "README.md").read_text()
    start = readme.index("```html\n", readme.index("tests/test_browser_typescript_client.py")) + len("```html\n")
    return readme[start : readme.index("```", start)]


class _Files(http.server.BaseHTTPRequestHandler):
    page = ""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path == "/":
            self._answer(200, "text/html; charset=utf-8", self.page.encode())
            return
        wanted = (TS_DIR / self.path.removeprefix(PREFIX)).resolve() if self.path.startswith(PREFIX) else None
        if wanted is None or not wanted.is_file() or not any(wanted.is_relative_to(root) for root in SERVED):
            self._answer(404, "text/plain", b"not here")
            return
        kind = "text/javascript" if wanted.suffix == ".js" else (mimetypes.guess_type(wanted.name)[0] or "application/octet-stream")
        self._answer(200, kind, wanted.read_bytes())

    def _answer(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def static_site(page: str) -> Iterator[str]:
    """A loopback static file server for ``page`` at / and the client at PREFIX; its origin."""
    handler = type("Files", (_Files,), {"page": page})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, name="static-site", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


WATCH_ONE_UPDATE = """async ([api_url, game_id, token]) => {
  const { HustingsRest } = await import("/hustings/dist/rest.js");
  const api = new HustingsRest(api_url);
  for await (const update of api.watch(game_id, token, 0n)) {
    return { version: update.version.toString(), seat: update.view.seat };
  }
  return null;
}"""
READ_DATE = """async (api_url) => (await fetch(api_url + "/v1/kinds")).headers.get("Date")"""


def test_the_readme_page_runs_the_typescript_client_in_chromium(
    typescript_dist: pathlib.Path, browser: Any, redis_server: EmbeddedRedis
) -> None:
    from playwright.sync_api import Error as PlaywrightError

    assert (typescript_dist / "rest.js").is_file()
    page_text = readme_page()
    assert README_API in page_text
    with LiveRest(redis_server.url) as live, static_site(page_text.replace(README_API, live.base_url)) as origin:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.set_default_timeout(WAIT_MS)
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(origin + "/")
            try:
                page.wait_for_function("document.body.textContent.startsWith('Ada sits at seat')", timeout=WAIT_MS)
            except PlaywrightError:
                raise AssertionError(f"the page did not seat Ada; its errors: {errors}") from None
            text = page.evaluate("document.body.textContent")
            assert not errors, errors
            game_id = text.rsplit(" ", 1)[1]
            assert text == f"Ada sits at seat 0 of {game_id}"
            seats = live.ok("GET", f"/v1/games/{game_id}/view")["view"]["seats"]
            assert [s["displayName"] for s in seats if s["taken"]] == ["Ada"]
            # The page's origin is not the API's: the server's time is readable all the same.
            assert page.evaluate(READ_DATE, live.base_url)
            # api.watch, the client's other fetch, from the page too.
            bo = live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": "Bo"})
            update = page.evaluate(WATCH_ONE_UPDATE, [live.base_url, game_id, bo["seatToken"]])
            assert update is not None and update["seat"] == 1 and int(update["version"]) >= 2
        finally:
            context.close()
