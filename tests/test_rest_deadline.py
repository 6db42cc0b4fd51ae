"""REST calls have the same server deadline as gRPC calls: a call that cannot finish in time
(here: Redis frozen) is answered 504 DEADLINE_EXCEEDED rather than held open."""

from __future__ import annotations

import os
import pathlib
import signal

import pytest

from rest_helpers import LiveRest
from hustings.service import rest
from hustings.service.embedded_redis import EmbeddedRedis


def test_a_rest_call_past_the_server_deadline_is_504(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server, LiveRest(server.url) as live:
        game_id, _seats = live.new_game(players=3)
        monkeypatch.setattr(rest, "RPC_DEADLINE_S", 1.0)  # the deadline, shortened for the test
        pid = server._process.pid  # type: ignore[union-attr]
        os.kill(pid, signal.SIGSTOP)
        try:
            answer = live.call("GET", f"/v1/games/{game_id}/view")
        finally:
            os.kill(pid, signal.SIGCONT)
        monkeypatch.setattr(rest, "RPC_DEADLINE_S", 15.0)
        assert answer.status_code == 504, answer.text
        details = answer.json()["details"][0]
        assert (answer.json()["code"], details["reason"]) == (4, "SERVER_DEADLINE")
        assert live.call("GET", f"/v1/games/{game_id}/view").status_code == 200  # and it recovers
