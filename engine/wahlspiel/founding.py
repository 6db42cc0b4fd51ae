"""Parties name themselves and choose their colour: "Each player now has their party together,
which they may name freely ... Each player also chooses a matching party colour, then one of the
6 game pieces". The colour is one of the 6 pieces' colours, so it is also the piece.

A party that has not chosen shows the content's default name, and the first colour (in the
content's order, from its own default on) that no party has chosen; so colours never clash.
"""

from __future__ import annotations

from hustings.engine import names
from hustings.engine.errors import IllegalMoveError, InvalidOptionsError
from hustings.engine.wahlspiel.content import CONTENT
from hustings.engine.wahlspiel.model import PARTY_NAME_LIMIT, WahlspielState
from hustings.engine.wahlspiel.table import with_party

COLOURS = CONTENT.party_colours


def party_names(state: WahlspielState) -> tuple[str, ...]:
    """Each party's name: its own choice, or the content's default."""
    return tuple(p.name or CONTENT.party_names[i] for i, p in enumerate(state.parties))


def names_in_use(state: WahlspielState, party: int) -> frozenset[str]:
    """The names the other parties of ``state`` show, and their defaults: a party that names
    itself may not read as one of them (the service's rule at joining). A default counts while a
    party shows another name too, since a seat freed before the game starts shows its default
    again."""
    shown = party_names(state)
    others = [i for i in range(len(state.parties)) if i != party]
    return frozenset(shown[i] for i in others) | frozenset(CONTENT.party_names[i] for i in others)


def party_colours(state: WahlspielState) -> tuple[str, ...]:
    """Each party's colour: its own choice, else the first colour nobody chose, starting from the
    content's default for its seat."""
    chosen = {p.colour for p in state.parties if p.colour}
    given: set[str] = set()
    colours = []
    for i, party in enumerate(state.parties):
        if party.colour:
            colours.append(party.colour)
            continue
        order = COLOURS[i:] + COLOURS[:i]
        colour = next(c for c in order if c not in chosen and c not in given)
        given.add(colour)
        colours.append(colour)
    return tuple(colours)


def found_party(state: WahlspielState, party: int, name: str, colour: str) -> WahlspielState:
    """``party`` names itself and takes ``colour`` (either may be empty to keep the default).
    Raises InvalidOptionsError (BAD_PARTY_NAME, BAD_COLOUR) or IllegalMoveError (COLOUR_TAKEN),
    changing nothing."""
    # The name as sent is checked, not only what is left of it stripped: the log's seat_taken
    # event records it as sent, and padding (spaces, line breaks) would otherwise pass in any
    # length, up to the size of a request, into every seat's history.
    if len(name) > PARTY_NAME_LIMIT or not name.isprintable():
        raise InvalidOptionsError("BAD_PARTY_NAME", f"a party name is up to {PARTY_NAME_LIMIT} printable characters")
    # Shown on the board, the parties and every coalition: held to a display name's marks.
    if names.stacked_too_high(name):
        raise InvalidOptionsError("BAD_PARTY_NAME", f"a party name may stack at most {names.MAX_MARKS_ON_A_LETTER} marks on a letter")
    if name.strip() and names.blank(name):
        raise InvalidOptionsError("BAD_PARTY_NAME", "a party name must show something: it holds only characters that show nothing")
    name = name.strip()
    if colour and colour not in COLOURS:
        raise InvalidOptionsError("BAD_COLOUR", "the colour is one of the pieces': " + ", ".join(COLOURS))
    if colour and any(p.colour == colour for i, p in enumerate(state.parties) if i != party):
        raise IllegalMoveError("COLOUR_TAKEN", f"another party has chosen {colour}")
    own = state.parties[party]
    return with_party(state, party, name=name or own.name, colour=colour or own.colour)


def free_party(state: WahlspielState, party: int) -> WahlspielState:
    """``party`` as a new seat finds it: its name and colour unchosen (the content's defaults
    stand in), so that a player who leaves an open game takes neither with it to the next
    player of the seat nor keeps the colour from the others."""
    return with_party(state, party, name="", colour="")
