"""Wahlspiel's voter and event conditions as served are enough to referee a game: evaluated from
the catalogue alone (never the card text), every voter card's condition against every politician
gives the engine's own answer, and so does every event card's."""

from __future__ import annotations

from typing import Any

from hustings.engine.registry import get_catalogue
from hustings.engine.wahlspiel.content import CONTENT
from hustings.engine.wahlspiel.elections import voter_backs
from hustings.v1 import game_service_pb2, wahlspiel_catalogue_pb2 as wc, wahlspiel_pb2


def _catalogue() -> wc.WahlspielCatalogue:
    answer = game_service_pb2.GetGameKindResponse()
    found = get_catalogue("wahlspiel")
    assert found is not None
    found.fill(answer)
    return answer.wahlspiel


def fits(condition: wc.WahlspielCondition, politician: wahlspiel_pb2.WahlspielPolitician) -> bool:
    """A client's reading of WahlspielCondition, as its comments define it."""
    return (
        (not condition.sex or politician.sex == condition.sex)
        and (not condition.age_min or politician.age >= condition.age_min)
        and (not condition.age_max or politician.age <= condition.age_max)
        and (not condition.occupations or politician.occupation in condition.occupations)
        and (not condition.traits or any(t in politician.traits for t in condition.traits))
        and (not condition.symbols or any(s in politician.symbols for s in condition.symbols))
    )


def _answers(cards: Any, engine_cards: dict[str, Any], politicians: list[wahlspiel_pb2.WahlspielPolitician]) -> list[bool]:
    answers = []
    for card in cards:
        engine_condition = engine_cards[card.card_id].condition
        for politician in politicians:
            served = fits(card.condition, politician)
            assert served == engine_condition.matches(CONTENT.politicians[politician.politician_id]), (card.card_id, politician.politician_id)
            answers.append(served)
    return answers


def test_every_voter_condition_gives_the_engines_answer() -> None:
    catalogue = _catalogue()
    politicians = [p.politician for p in catalogue.politicians]
    answers = _answers(catalogue.voters, CONTENT.voters, politicians)
    assert len(answers) == 125 * 45
    assert any(answers) and not all(answers)  # the conditions discriminate
    for voter in catalogue.voters:
        for politician in politicians:
            # A run-off counts only voters that are no matter of opinion: the same reading decides.
            expected = not voter.opinion and fits(voter.condition, politician)
            assert voter_backs(voter.card_id, politician.politician_id) == expected
        assert any(fits(voter.condition, p) for p in politicians) or voter.opinion, voter.card_id


def test_every_event_condition_gives_the_engines_answer() -> None:
    catalogue = _catalogue()
    answers = _answers(catalogue.events, CONTENT.events, [p.politician for p in catalogue.politicians])
    assert len(answers) == 90 * 45 and any(answers)

