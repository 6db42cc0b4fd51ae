"""/play, as three players, a spectator and a second tab found it (in headless Chromium, as
tests/test_browser.py, against a real replica):

- a move made starts its composer afresh (a coalition draft's Confirm stayed ready, and a second
  click added the item again);
- a move refused because the table moved on first (another tab of the seat, another player)
  says so, where it was dropped without a word; a move whose answer was lost, confirmed again,
  goes under its first request id (made once);
- an open table asks for its view now and then, so that who is here changes without a step (a
  player who had left showed "here" until the next move);
- with the server out of reach, the moves are greyed and inert, a failed call says so in words
  (it said "Failed to fetch" and stayed after the server was back), and the words go once it is
  back; a table whose first view could not be had is asked for again;
- the live region tells a screen reader when the seat's decision comes; names of inputs;
- Stimmvieh names no Angelus holder before the start player is known; Wahlspiel says "an event
  card", names the terms of an offer and who must act; The Spin Doctors name News fields as the
  board does and a Staff chosen as a Staff.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from rest_helpers import LiveRest

pytestmark = pytest.mark.slow


def _seat_in(page: Any, live: LiveRest, game_id: str, joined: dict[str, Any]) -> None:
    page.goto(f"{live.base_url}/play")
    page.evaluate(
        "([id, seat, token]) => localStorage.setItem(`hustings.seat.${id}`, JSON.stringify({ seat, token }))",
        [game_id, joined.get("seat", 0), joined["seatToken"]],
    )
    page.goto(f"{live.base_url}/play#/game/{game_id}")


def _stimmvieh_table(live: LiveRest) -> tuple[str, list[dict[str, Any]]]:
    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "table": {"decisionSeconds": 600}})["gameId"]
    return game_id, [live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": name}) for name in ("Ada", "Bo", "Cy")]


def _choose_four(page: Any) -> None:
    choices = page.locator("#moves .choices.set button.choice:not([disabled])")
    for i in range(4):
        choices.nth(i).click()


def test_a_move_the_table_moved_past_says_it_was_not_made(browser: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    game_id, joined = _stimmvieh_table(live)
    first, second = browser.new_context().new_page(), browser.new_context().new_page()
    try:
        # The second tab hears nothing of the table after its first view: its stream's request is
        # held, never answered (a stream that fails greys the moves, as the server being away does).
        held: list[Any] = []
        second.route("**:watch", lambda route: held.append(route))
        for page in (first, second):
            _seat_in(page, live, game_id, joined[0])
            expect(page.locator("#moves .choices.set")).to_be_visible()
        _choose_four(first)
        first.locator("#moves button.confirm-move").click()
        expect(first.locator("#moves")).to_have_count(0)  # Ada has chosen: nothing left to decide
        _choose_four(second)
        second.locator("#moves button.confirm-move").click()
        expect(second.locator("#error")).to_be_visible()
        expect(second.locator("#error")).to_contain_text("Your move was not made: the table moved on first")
        assert live.ok("GET", f"/v1/games/{game_id}/view", token=joined[0]["seatToken"])["view"]["version"] == second.inner_text("#version")
    finally:
        first.context.close()
        second.context.close()


def test_an_open_table_asks_for_its_view_again_and_shows_who_left_without_a_step(
    browser: Any, live: LiveRest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bo and Cy join and make no call after: with a presence window of 2 s (30 s in service),
    Ada's page shows them away within a few seconds, no step made (it showed "here" until the
    next step). Asked every 300 ms here (20 s in service); a view unchanged draws nothing."""
    from hustings.service import presence

    monkeypatch.setattr(presence, "WINDOW_MS", 2_000)
    monkeypatch.setattr(presence, "REFRESH_S", 0.1)
    monkeypatch.setattr(presence, "TOUCH_EVERY_S", 0.1)
    game_id, joined = _stimmvieh_table(live)
    context = browser.new_context()
    context.add_init_script("window.HUSTINGS_PRESENCE_MS = 300")
    page = context.new_page()
    try:
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url) if request.url.endswith(f"/v1/games/{game_id}/view") else None)
        _seat_in(page, live, game_id, joined[0])
        page.wait_for_function("() => document.querySelector('#live')?.textContent === 'live'")
        version = page.inner_text("#version")
        for seat in ("1", "2"):
            page.wait_for_function(f"() => document.querySelector(\"#seats .seat-chip[data-seat='{seat}']\")?.dataset.presence === 'away'")
        assert page.inner_text("#version") == version  # no step was made
        page.evaluate("document.querySelector('#seats').dataset.drawnBefore = 'yes'")
        before = len(asked)
        page.wait_for_timeout(1_500)
        assert len(asked) - before >= 3, asked  # every 300 ms while live
        # Nothing changed: the table was not drawn anew (a field's typing would have been reset).
        assert page.evaluate("document.querySelector('#seats').dataset.drawnBefore ?? null") == "yes"
        assert page.locator("#seats .seat-chip.me").get_attribute("data-presence") == "here"
    finally:
        context.close()


def test_out_of_reach_the_moves_are_greyed_a_failed_call_says_so_and_back_it_goes(browser: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    game_id, joined = _stimmvieh_table(live)
    context = browser.new_context()
    page = context.new_page()
    try:
        # The stream cannot be had (the server restarting), nor can a table call be made.
        page.route("**:watch", lambda route: route.abort())
        page.route("**:leave", lambda route: route.abort())
        _seat_in(page, live, game_id, joined[0])
        expect(page.locator("#live")).to_have_text("reconnecting…")
        expect(page.locator("#app")).to_have_attribute("data-offline", "true")
        assert page.evaluate("getComputedStyle(document.querySelector('#moves')).pointerEvents") == "none"
        assert page.evaluate("document.querySelector('#moves').inert") is True  # no keyboard reaches them either
        page.click("#leave")
        page.click("#leave-confirm")
        expect(page.locator("#error")).to_contain_text("Could not reach the server")
        expect(page.locator("#error")).not_to_contain_text("Failed to fetch")
        page.unroute("**:watch")  # back: the stream's next try is answered
        expect(page.locator("#live")).to_have_text("live", timeout=30_000)
        expect(page.locator("#app")).to_have_attribute("data-offline", "false")
        expect(page.locator("#error")).to_be_hidden()
    finally:
        context.close()


def test_the_live_region_says_when_the_seat_s_decision_comes_and_inputs_have_names(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    game_id, joined = _stimmvieh_table(live)
    _seat_in(page, live, game_id, joined[0])
    expect(page.locator("#announce")).to_have_attribute("role", "status")
    expect(page.locator("#announce")).to_have_text("Your decision.")
    # Two steps (Bo's choice, then Cy's) are both told, in their order, whether they come in
    # one update or two (every text the region held is kept).
    page.evaluate("""() => {
      window.told = [];
      new MutationObserver(() => window.told.push(document.querySelector('#announce').textContent))
        .observe(document.querySelector('#announce'), { childList: true, characterData: true, subtree: true });
    }""")
    version = int(page.inner_text("#version"))
    for seat in (1, 2):
        mine = live.ok("GET", f"/v1/games/{game_id}/view", token=joined[seat]["seatToken"])["view"]
        live.ok("POST", f"/v1/games/{game_id}/moves", {"move": mine["legalMoves"][0], "requestId": f"{game_id}-told-{seat}"}, token=joined[seat]["seatToken"])
    page.wait_for_function("(v) => Number(document.querySelector('#version')?.textContent) >= v + 2", arg=version)
    told = " ".join(page.evaluate("window.told"))
    assert "Bo" in told and "Cy" in told and told.index("Bo") < told.index("Cy"), told
    # The Angelus card goes to the start player, not yet known while top candidates are chosen.
    expect(page.locator("#seats")).not_to_contain_text("Angelus card")
    expect(page.locator("#board, #app").first).to_contain_text("played by the start player (not yet known)")
    open_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}})["gameId"]
    page.goto(f"{live.base_url}/play#/game/{open_id}")
    expect(page.locator("#join-name")).to_have_attribute("aria-label", "Your name")


def test_the_games_words(page: Any, live: LiveRest) -> None:
    """The renderers' words, from the modules the page loads."""
    page.goto(f"{live.base_url}/play")
    said = page.evaluate("""async () => {
      const w = (await import('/play/games/wahlspiel.js')).default;
      const sd = (await import('/play/games/spin_doctors.js')).default;
      const names = ['Ada', 'Bea', 'Cem'];
      const ctx = { view: { toAct: [0] }, kindView: { currentParty: 1, step: 'WAHLSPIEL_STEP_COALITION', round: 1,
          coalition: { pending: { giveMoney: 2, askEventCount: 1 }, proposer: 1 } },
        cat: { newsTrack: { redFields: 3 } }, me: 0, seatName: (s) => names[s] ?? '', cache: {} };
      return {
        ask: w.valueLabel('askKind', 'WAHLSPIEL_CARD_KIND_EVENT', ctx),
        askVoter: w.valueLabel('askKind', 'WAHLSPIEL_CARD_KIND_VOTER', ctx),
        offer: w.moveText('offerTrade', { askKind: 'WAHLSPIEL_CARD_KIND_EVENT' }, ctx),
        headline: w.headline(ctx).textContent,
        answer: w.dialog([{ wahlspiel: { answerTrade: { accept: true } } }, { wahlspiel: { answerTrade: {} } }], ctx),
        handing: w.dialog([{ wahlspiel: { answerTrade: { accept: true, cardId: 'V1' } } }], ctx),
        news: sd.tell({ kind: 'NEWS_REVEALED', amount: 3, cards: [] }, {}, ctx),
        staff: sd.tell({ kind: 'STAFFER_CHOSEN', seat: 0 }, {}, ctx),
      };
    }""")
    assert said["ask"] == "an event card" and said["askVoter"] == "a voter card", said
    assert said["offer"] == "add to the offer: give nothing, ask an event card", said
    assert said["headline"].endswith("Ada to play") and "Bea to play" not in said["headline"], said
    assert said["answer"] == "Bea offers you a trade: gives 2 francs for 1 event card", said
    assert said["handing"] == "Hand over the cards asked for", said
    assert said["news"].startswith("News on Blue 4"), said
    assert said["staff"].endswith("chose a Staff"), said


def _at_a_coalition(live: LiveRest) -> tuple[str, list[dict[str, Any]]]:
    """A seeded Wahlspiel of three, played (the lowest seat to act, a recorded choice each step)
    until Ada drafts a coalition offer: step 13 of seed 4."""
    import random

    game_id = live.ok("POST", "/v1/games", {"kind": "wahlspiel", "options": {"players": 3}, "seed": f"{4:064x}"})["gameId"]
    joined = [live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": name}) for name in ("Ada", "Bo", "Cy")]
    rng = random.Random(4)
    for step in range(60):  # bounded: the offer comes at step 13
        views = [live.ok("GET", f"/v1/games/{game_id}/view", token=j["seatToken"])["view"] for j in joined]
        if any("offerTrade" in json.dumps(m) for m in views[0].get("legalMoves", [])):
            return game_id, joined
        seat = min(i for i, v in enumerate(views) if v.get("legalMoves"))
        moves = views[seat]["legalMoves"]
        partner = [m for m in moves if "choosePartner" in json.dumps(m)]
        move = partner[0] if partner else rng.choice(moves)
        live.ok("POST", f"/v1/games/{game_id}/moves", {"move": move, "requestId": f"{game_id}-{step}-coalition"}, token=joined[seat]["seatToken"])
    raise AssertionError("Ada never drafted an offer: the seeded game took another course")


def _draft_the_voter_item(live: LiveRest, game_id: str, ada: str) -> None:
    """A first item of Ada's draft (asking a voter card) through the API: after it, a second one
    alike leaves the legal moves as they are (the first turned "pass" into "make the offer")."""
    drafted = live.ok("GET", f"/v1/games/{game_id}/view", token=ada)["view"]
    (item,) = [m for m in drafted["legalMoves"] if m["wahlspiel"].get("offerTrade", {}).get("askKind") == "WAHLSPIEL_CARD_KIND_VOTER"]
    live.ok("POST", f"/v1/games/{game_id}/moves", {"move": item, "requestId": f"{game_id}-first-item"}, token=ada)


def _compose_the_voter_item(page: Any) -> None:
    """On the page, the same item: give nothing, ask a voter card, up to its Confirm."""
    page.click("#moves button.decision[data-decision='offerTrade']")
    for _ in range(8):  # bounded: an item has four fields
        if page.locator("#moves button.confirm-move").count():
            return
        ok = page.locator("#moves .stepper .choice.ok")
        if ok.count():
            ok.click()  # the least: 0 francs
            continue
        field = page.locator("#moves .choices").get_attribute("data-field")
        text = {"giveCardId": "no card", "askKind": "a voter card"}.get(field or "", "0 francs")  # money: none
        page.locator("#moves .choices button.choice").filter(has_text=text).filter(has_not_text="00 francs").first.click()


def test_a_move_made_starts_its_composer_afresh(page: Any, redis_server: Any) -> None:
    """A coalition draft's item leaves the legal moves as they were: the composer kept its
    Confirm ready after the move was made, and a second click added the item again."""
    from playwright.sync_api import expect

    with LiveRest(redis_server.url, allow_client_seed=True) as live:
        game_id, joined = _at_a_coalition(live)
        ada = joined[0]["seatToken"]
        _draft_the_voter_item(live, game_id, ada)
        before = live.ok("GET", f"/v1/games/{game_id}/view", token=ada)["view"]
        _seat_in(page, live, game_id, joined[0])
        _compose_the_voter_item(page)
        confirm = page.locator("#moves button.confirm-move")
        expect(confirm).to_contain_text("give nothing, ask a voter card")
        confirm.click()
        page.wait_for_function("(v) => Number(document.querySelector('#version')?.textContent) > v", arg=int(before["version"]))
        after = live.ok("GET", f"/v1/games/{game_id}/view", token=ada)["view"]
        assert after["legalMoves"] == before["legalMoves"], "the item changed Ada's legal moves: the test no longer shows the fault"
        expect(page.locator("#moves button.decision[data-decision='offerTrade']")).to_be_visible()
        expect(page.locator("#moves button.confirm-move")).to_have_count(0)


def test_a_table_the_server_did_not_answer_at_first_is_asked_for_again(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    game_id, joined = _stimmvieh_table(live)
    page.route("**/view", lambda route: route.abort())
    _seat_in(page, live, game_id, joined[0])
    expect(page.locator("#error")).to_contain_text("Could not reach the server")
    page.unroute("**/view")
    expect(page.locator("#live")).to_have_text("live", timeout=30_000)
    expect(page.locator("#moves")).to_be_visible()
    expect(page.locator("#error")).to_be_hidden()


def test_a_move_whose_answer_was_lost_is_made_once_when_confirmed_again(page: Any, redis_server: Any) -> None:
    """The answer of a coalition draft's item lost (the server made it): confirmed again, it goes
    under its first request id, and the server answers what it did (a second item was added)."""
    from playwright.sync_api import expect

    with LiveRest(redis_server.url, allow_client_seed=True) as live:
        game_id, joined = _at_a_coalition(live)
        ada = joined[0]["seatToken"]
        _draft_the_voter_item(live, game_id, ada)
        version = int(live.ok("GET", f"/v1/games/{game_id}/view", token=ada)["view"]["version"])
        _seat_in(page, live, game_id, joined[0])
        lost: list[str] = []

        def made_then_lost(route: Any) -> None:
            lost.append(route.request.post_data or "")
            route.fetch()  # the server makes the move
            route.abort()  # and its answer never comes back

        page.route("**/moves", made_then_lost)
        _compose_the_voter_item(page)
        page.locator("#moves button.confirm-move").click()
        expect(page.locator("#error")).to_contain_text("Could not reach the server")
        page.wait_for_function("(v) => Number(document.querySelector('#version')?.textContent) > v", arg=version)
        page.unroute("**/moves")
        page.locator("#moves button.confirm-move").click()  # still composed: confirmed again
        page.wait_for_function("() => document.querySelector('#app').dataset.busy === 'false'")
        page.wait_for_timeout(500)
        history = live.ok("GET", f"/v1/games/{game_id}/history?afterVersion={version}")["entries"]
        assert len(history) == 1, history  # made once
        assert json.loads(lost[0])["requestId"] != f"{game_id}-first-item"
