"""The TypeScript client's catalogue helpers (clients/typescript/src/catalogue.ts) against a live
server: GetGameKind over REST, then typed look-ups by the ids views carry, and a clear error for
an id that is not in the catalogue. Needs Node.js 20+ and npm, as tests/test_typescript.py."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest

from rest_helpers import LiveRest
from hustings.engine.registry import get_catalogue
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_service_pb2

TS_DIR = pathlib.Path(__file__).resolve().parent.parent / "clients" / "typescript"
NPM_TIMEOUT_S = 300

# Imports the built client, looks up one entry of each kind by id, and one id that is not there.
SCRIPT = """
import { HustingsRest } from "./dist/rest.js";
import { catalogueIndex, loadCatalogue, UnknownCatalogueIdError } from "./dist/catalogue.js";
const api = new HustingsRest(process.argv[2]);
const out = {};
for (const kind of ["stimmvieh", "wahlspiel", "spin_doctors"]) {
  const answer = await loadCatalogue(api, kind);
  const index = catalogueIndex(answer);
  out[kind] = { contentVersion: answer.contentVersion };
  if (index.kind === "stimmvieh") {
    out[kind].card = { amount: index.card("V11").amount, influence: index.card("D01").influence };
  } else if (index.kind === "wahlspiel") {
    out[kind].politician = index.politician("P09").name;
    out[kind].voterSymbols = index.voter("V001").condition?.symbols ?? [];
    out[kind].eventMoney = index.event("E01").money;
  } else {
    out[kind].staffer = index.staffer(12).name;
    out[kind].actionTarget = index.action("mobilisation").actFields;
    out[kind].localityVotes = index.locality(0).votes;
  }
  try {
    index.kind === "wahlspiel" ? index.politician("p19") : index.kind === "stimmvieh" ? index.card("X99") : index.action("nope");
    out[kind].unknown = "found";
  } catch (error) {
    out[kind].unknown = error instanceof UnknownCatalogueIdError ? "UnknownCatalogueIdError" : String(error);
  }
}
console.log(JSON.stringify(out));
"""


def _run(*args: str, timeout: float = NPM_TIMEOUT_S) -> str:
    result = subprocess.run(args, cwd=TS_DIR, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def _catalogue(kind: str) -> object:
    answer = game_service_pb2.GetGameKindResponse()
    get_catalogue(kind).fill(answer)  # type: ignore[union-attr]
    return getattr(answer, kind)


@pytest.mark.slow
def test_typescript_looks_cards_up_by_id(redis_server: EmbeddedRedis, typescript_dist: pathlib.Path) -> None:
    node = shutil.which("node")
    assert node is not None  # typescript_dist fails without it
    script = TS_DIR / "catalogue-check.mjs"
    script.write_text(SCRIPT)
    try:
        with LiveRest(redis_server.url) as live:
            found = json.loads(_run(node, str(script), live.base_url, timeout=60).strip().splitlines()[-1])
    finally:
        script.unlink()
    stimmvieh, wahlspiel, spin = _catalogue("stimmvieh"), _catalogue("wahlspiel"), _catalogue("spin_doctors")
    for kind in ("stimmvieh", "wahlspiel", "spin_doctors"):
        assert found[kind]["contentVersion"] == get_catalogue(kind).content_version  # type: ignore[union-attr]
        assert found[kind]["unknown"] == "UnknownCatalogueIdError"
    assert found["stimmvieh"]["card"] == {
        "amount": next(c.amount for c in stimmvieh.vote_cards if c.card_id == "V11"),  # type: ignore[attr-defined]
        "influence": next(c.influence for c in stimmvieh.donation_cards if c.card_id == "D01"),  # type: ignore[attr-defined]
    }
    assert found["wahlspiel"]["politician"] == next(p.politician.name for p in wahlspiel.politicians if p.politician.politician_id == "P09")  # type: ignore[attr-defined]
    assert found["wahlspiel"]["voterSymbols"] == list(wahlspiel.voters[0].condition.symbols)  # type: ignore[attr-defined]
    assert found["wahlspiel"]["eventMoney"] == wahlspiel.events[0].money  # type: ignore[attr-defined]
    assert found["spin_doctors"]["staffer"] == spin.staffers[12].name  # type: ignore[attr-defined]
    assert found["spin_doctors"]["actionTarget"] == ["voter_group", "step"]
    assert found["spin_doctors"]["localityVotes"] == list(spin.localities[0].votes)  # type: ignore[attr-defined]
