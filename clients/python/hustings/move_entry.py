"""Typed moves for the terminal player: a menu of the legal moves and a parser of typed answers.

A move is typed as its parts, e.g. ``6 7 8 9`` for Stimmvieh's four top candidates or
``7 D03`` to play politician 7 and take card D03, instead of being picked from a numbered list of
every combination. Moves of one kind share a shape (the fields of their message); only the
fields whose values differ among the legal moves are typed, in the message's field order. Small
groups are also numbered, so ``2`` (or ``[2]``) picks the second listed move; a lone number that
could mean either a listed move or a move's one part is refused with both readings named.

An answer is only ever matched against the view's legal moves, so it is the engine's own list
that decides what is legal; a bad answer raises ``AnswerError`` with a sentence saying what is
wrong, and the player is asked again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from google.protobuf import descriptor
from google.protobuf.message import Message

from hustings.v1 import game_pb2

# Groups of at most this many moves are numbered as well as typed as parts.
LIST_LIMIT = 12
# How many values a hint shows before it says "…".
HINT_VALUES = 40
# Typing "-" means none: an empty card, no seat (-1), no party, an unspecified enum.
NONE_TOKEN = "-"
EMPTY_VALUES: tuple[object, ...] = ("", 0, -1, False, None, ())
BOOL_WORDS = {"y": "yes", "true": "yes", "1": "yes", "n": "no", "false": "no", "0": "no"}

Value = object
# Words for a part's value, e.g. ("politician_id", "P02") -> "Anna Muster"; None when it has none.
Labeller = Callable[[str, Value], "str | None"]


class AnswerError(ValueError):
    """A typed answer that is not one of the legal moves; the message says why, for people."""


@dataclass(frozen=True)
class Choice:
    """One legal move, split into its kind and the values of its fields."""

    move: game_pb2.Move
    kind: str
    parts: dict[str, Value]


@dataclass
class Group:
    """The legal moves of one kind, and the fields that tell them apart."""

    kind: str
    fields: list[descriptor.FieldDescriptor]
    choices: list[Choice]
    varying: list[descriptor.FieldDescriptor]


def words(name: str) -> str:
    """A proto name in words: ``take_card_id`` -> ``take card``."""
    return name.removesuffix("_id").removesuffix("_ids").replace("_", " ")


def _inner(move: game_pb2.Move) -> tuple[str, Message]:
    game = move.WhichOneof("game")
    if game is None:
        return "", move
    wrapper = getattr(move, game)
    kind = wrapper.WhichOneof("kind")
    return (kind, getattr(wrapper, kind)) if kind else ("", wrapper)


def _value(message: Message, field: descriptor.FieldDescriptor) -> Value:
    if field.is_repeated:
        return tuple(getattr(message, field.name))
    if field.has_presence and not message.HasField(field.name):
        return None
    return getattr(message, field.name)


def split(move: game_pb2.Move) -> Choice:
    """A legal move as a Choice."""
    kind, message = _inner(move)
    return Choice(move, kind, {f.name: _value(message, f) for f in message.DESCRIPTOR.fields})


def move_text(move: game_pb2.Move) -> str:
    """A move in one line for people: its kind and every part it sets, e.g. ``play_politician 7 D03``."""
    choice = split(move)
    _, message = _inner(move)
    parts = [_field_text(f, choice.parts[f.name]) for f in message.DESCRIPTOR.fields if choice.parts[f.name] not in EMPTY_VALUES]
    return " ".join([choice.kind, *parts]) if choice.kind else "nothing"


def _field_text(field: descriptor.FieldDescriptor, value: Value) -> str:
    """A value as it is typed."""
    if isinstance(value, tuple):
        return " ".join(_field_text(field, v) for v in value) or NONE_TOKEN
    if value is None or value == "" or (isinstance(value, int) and not isinstance(value, bool) and value == -1):
        return NONE_TOKEN
    if isinstance(value, bool):
        return "yes" if value else "no"
    if field.enum_type is not None:
        return _enum_short(field, int(value))  # type: ignore[call-overload]
    return str(value)


def _enum_short(field: descriptor.FieldDescriptor, number: int) -> str:
    names = [v.name for v in field.enum_type.values]
    prefix = names[0].removesuffix("UNSPECIFIED")  # the zero value is *_UNSPECIFIED by the style guide
    if number == 0:
        return NONE_TOKEN
    return field.enum_type.values_by_number[number].name.removeprefix(prefix).lower()


def _group(choices: list[Choice]) -> Group:
    _, message = _inner(choices[0].move)
    fields = list(message.DESCRIPTOR.fields)
    varying = [f for f in fields if len({c.parts[f.name] for c in choices}) > 1]
    return Group(choices[0].kind, fields, choices, varying)


class Menu:
    """The legal moves of one view: what to show, and how a typed answer becomes a move."""

    def __init__(self, moves: Sequence[game_pb2.Move], labeller: Labeller | None = None) -> None:
        if not moves:
            raise ValueError("a menu needs at least one legal move")
        self.labeller = labeller or (lambda _name, _value: None)
        by_kind: dict[str, list[Choice]] = {}
        for move in moves:
            choice = split(move)
            by_kind.setdefault(choice.kind, []).append(choice)
        self.groups = [_group(c) for c in by_kind.values()]
        self.numbered = [c for g in self.groups if len(g.choices) <= LIST_LIMIT for c in g.choices]
        self.typed = [g for g in self.groups if len(g.choices) > LIST_LIMIT]

    # --- showing ------------------------------------------------------------------------------
    def typed_parts(self, choice: Choice) -> str:
        """How ``choice`` is typed: its kind and the values that tell it apart."""
        group = next(g for g in self.groups if g.kind == choice.kind)
        parts = [_field_text(f, choice.parts[f.name]) for f in group.varying]
        return " ".join([choice.kind, *parts])

    def describe(self, choice: Choice) -> str:
        """What the parts of ``choice`` stand for, e.g. ``85 k€ (influence 5)``; empty if plain."""
        group = next(g for g in self.groups if g.kind == choice.kind)
        shown = group.varying or group.fields
        labels = [self._labels(f.name, choice.parts[f.name]) for f in shown if choice.parts[f.name] not in ("", -1, None, ())]
        return "; ".join(label for label in labels if label)

    def _labels(self, name: str, value: Value) -> str:
        values = value if isinstance(value, tuple) else (value,)
        labels = [self.labeller(name, v) for v in values]
        return ", ".join(label for label in labels if label)

    def lines(self) -> list[str]:
        """The menu as lines: numbered small choices, then the shape of each typed group."""
        out = []
        for number, choice in enumerate(self.numbered, 1):
            meaning = self.describe(choice)
            out.append(f"  [{number}] {self.typed_parts(choice)}" + (f"  - {meaning}" if meaning else ""))
        for group in self.typed:
            out.append(f"  {group.kind} " + " ".join(words(f.name).upper().replace(" ", "_") for f in group.varying))
            out.append("      " + self._hint(group))
        return out

    def _hint(self, group: Group) -> str:
        if len(group.varying) == 1 and group.varying[0].is_repeated:
            field = group.varying[0]
            lengths = {len(c.parts[field.name]) for c in group.choices}  # type: ignore[arg-type]
            values = sorted({v for c in group.choices for v in c.parts[field.name]})  # type: ignore[attr-defined]
            distinct = all(len(set(c.parts[field.name])) == len(c.parts[field.name]) for c in group.choices)  # type: ignore[arg-type]
            count = (f"{lengths.pop()}" if len(lengths) == 1 else "some") + (" different" if distinct else "")
            example = _field_text(field, group.choices[-1].parts[field.name])
            hint = f"{count} {words(field.name)} of: " + " ".join(_field_text(field, v) for v in values) + f'   e.g. "{example}"'
            labels = [f"{_field_text(field, v)} {label}" for v in values if (label := self._labels(field.name, v))]
            return hint + ("   (" + ", ".join(labels) + ")" if labels else "")
        if len(group.varying) == 2 and not any(f.is_repeated for f in group.varying):
            first, second = group.varying
            by_first: dict[str, list[str]] = {}
            for c in group.choices:
                value = c.parts[first.name]
                label = self._labels(first.name, value)
                key = _field_text(first, value) + (f" ({label})" if label else "")
                by_first.setdefault(key, []).append(_field_text(second, c.parts[second.name]))
            return _cut(" | ".join(f"{k}: {' '.join(v)}" for k, v in by_first.items()))
        said = []
        for field in group.varying:
            if field.is_repeated:
                values = sorted({v for c in group.choices for v in c.parts[field.name]}, key=_in_order)  # type: ignore[attr-defined]
            else:
                values = sorted({c.parts[field.name] for c in group.choices}, key=_in_order)
            said.append(f"{words(field.name)}: " + ", ".join(_field_text(field, v) for v in values))
        return _cut("; ".join(said))

    # --- parsing ------------------------------------------------------------------------------
    def parse(self, answer: str) -> game_pb2.Move:
        """The legal move that ``answer`` names; raises AnswerError saying what is wrong."""
        tokens = answer.replace(",", " ").split()
        if not tokens:
            raise AnswerError("type a move (its number or its parts), or q to quit")
        explicit = re.fullmatch(r"\[(\d+)\]|#(\d+)", tokens[0]) if len(tokens) == 1 else None
        if explicit:
            return self._numbered(int(explicit.group(1) or explicit.group(2))).move
        if len(tokens) == 1 and tokens[0].isdigit() and self.numbered:
            return self._number_or_parts(tokens)
        return self._parts(tokens).move

    def _numbered(self, number: int) -> Choice:
        if not self.numbered:
            raise AnswerError(f"there is no move [{number}]: no move is numbered here; type a move's parts as shown")
        if not 1 <= number <= len(self.numbered):
            raise AnswerError(f"there is no move [{number}]; the numbers go from 1 to {len(self.numbered)}")
        return self.numbered[number - 1]

    def _number_or_parts(self, tokens: list[str]) -> game_pb2.Move:
        """A lone number: a listed move's number, or the one part of a move (politician 5)."""
        number = int(tokens[0])
        listed = self.numbered[number - 1] if 1 <= number <= len(self.numbered) else None
        try:
            typed: Choice | None = self._parts(tokens)
        except AnswerError:
            typed = None
        if listed is not None and typed is not None and listed.move != typed.move:
            raise AnswerError(
                f"{number} may mean move [{number}] ({self.typed_parts(listed)}) or {self.typed_parts(typed)}; "
                f"type [{number}] or {self.typed_parts(typed)}"
            )
        chosen = listed or typed
        if chosen is None:
            return self._numbered(number).move  # raises: no such number
        return chosen.move

    def _parts(self, tokens: list[str]) -> Choice:
        group = self._group_of(tokens[0])
        if group is not None:
            tokens = tokens[1:]
        elif len(self.groups) == 1:
            group = self.groups[0]
        else:
            # Parts alone, as the menu's example shows them: the one kind of move they make, if
            # only one does (The Spin Doctors lists hand-overs beside most decisions).
            fitting = []
            for candidate in self.groups:
                try:
                    fitting.append(self._match(candidate, tokens))
                except AnswerError:
                    continue
            if len(fitting) == 1:
                return fitting[0]
            kinds = ", ".join(g.kind for g in self.groups)
            if fitting:
                raise AnswerError(f"{' '.join(tokens)!r} may be more than one kind of move; start with one of: {kinds}")
            raise AnswerError(f"{tokens[0]!r} is not a move here; start with one of: {kinds}")
        return self._match(group, tokens)

    def _group_of(self, token: str) -> Group | None:
        token = token.lower()
        exact = [g for g in self.groups if g.kind == token]
        if exact:
            return exact[0]
        prefixed = [g for g in self.groups if g.kind.startswith(token) and not token[0].isdigit() and token != NONE_TOKEN]
        return prefixed[0] if len(prefixed) == 1 else None

    def _match(self, group: Group, tokens: list[str]) -> Choice:
        fields = group.varying
        scalars = [f for f in fields if not f.is_repeated]
        repeated = [f for f in fields if f.is_repeated]
        names = ", ".join(words(f.name) for f in fields)
        if not fields:
            if tokens:
                raise AnswerError(f"{group.kind} takes no parts; type just {group.kind}")
            return group.choices[0]
        if repeated and len(repeated) > 1:
            raise AnswerError(f"{group.kind} cannot be typed as parts here; pick it by its number")
        spare = len(tokens) - len(scalars)
        if not repeated and spare > 0:
            raise AnswerError(f"{group.kind} takes {len(scalars)} part(s) ({names}); you typed {len(tokens)}")
        if repeated and spare < 0:
            raise AnswerError(f"{group.kind} takes {names}; you typed {len(tokens)} part(s)")
        wanted: dict[str, Value] = {}
        position = 0
        for field in fields:
            if field.is_repeated:
                given = tokens[position : position + spare]
                none = given == [NONE_TOKEN]  # "-" for an empty list
                wanted[field.name] = () if none else tuple(self._convert(group, field, t) for t in given)
                self._check_repeated(group, field, wanted[field.name])  # type: ignore[arg-type]
                position += spare
            elif position < len(tokens):
                wanted[field.name] = self._convert(group, field, tokens[position])
                position += 1
        return self._pick(group, wanted)

    def _convert(self, group: Group, field: descriptor.FieldDescriptor, token: str) -> Value:
        """The typed token as the value of ``field`` that the legal moves use."""
        possible = {v for c in group.choices for v in (c.parts[field.name] if field.is_repeated else (c.parts[field.name],))}  # type: ignore[union-attr]
        typed = BOOL_WORDS.get(token.lower(), token.lower()) if field.type == field.TYPE_BOOL else token.lower()
        for value in possible:
            if _field_text(field, value).lower() == typed:
                return value
        for value in possible:  # "-" for none, when none is written otherwise (0, False)
            if token == NONE_TOKEN and value in EMPTY_VALUES:
                return value
        shown = sorted((_field_text(field, v) for v in possible), key=_natural)
        noun = words(field.name).removesuffix("s") if field.is_repeated else words(field.name)
        raise AnswerError(f"{token!r} is not a possible {noun} now; possible: {_cut(', '.join(shown))}")

    def _check_repeated(self, group: Group, field: descriptor.FieldDescriptor, typed: tuple[Value, ...]) -> None:
        lengths = {len(c.parts[field.name]) for c in group.choices}  # type: ignore[arg-type]
        if len(lengths) == 1 and len(typed) not in lengths:
            raise AnswerError(f"choose {lengths.pop()} {words(field.name)}; you typed {len(typed)}")
        if len(set(typed)) < len(typed) and all(len(set(c.parts[field.name])) == len(c.parts[field.name]) for c in group.choices):  # type: ignore[arg-type]
            raise AnswerError(f"each {words(field.name).removesuffix('s')} may be chosen only once")

    def _pick(self, group: Group, wanted: dict[str, Value]) -> Choice:
        def fits(choice: Choice, same: Callable[[Value, Value], bool]) -> bool:
            for field in group.varying:
                have = choice.parts[field.name]
                if field.name in wanted:
                    if not same(have, wanted[field.name]):
                        return False
                elif have not in EMPTY_VALUES:  # a part left out means none
                    return False
            return True

        exact = [c for c in group.choices if fits(c, lambda a, b: a == b)]
        if len(exact) == 1:
            return exact[0]
        # The same values in another order (Stimmvieh lists each set of top candidates once).
        unordered = [c for c in group.choices if fits(c, _same_set)]
        if len(unordered) == 1:
            return unordered[0]
        typed = ", ".join(f"{words(f.name)} {_field_text(f, wanted[f.name])}" for f in group.varying if f.name in wanted)
        if len(exact) > 1 or len(unordered) > 1:
            raise AnswerError(f"{group.kind} with {typed} is not enough to tell the moves apart; type every part")
        first = group.varying[0]
        if first.name in wanted and len(group.varying) > 1:
            rest = [self.typed_parts(c) for c in group.choices if c.parts[first.name] == wanted[first.name]]
            missing = [words(f.name) for f in group.varying if f.name not in wanted]
            if rest and missing:  # a legal start, its other parts left out
                raise AnswerError(f"{group.kind} with {typed} needs its {' and '.join(missing)} too: {_cut(' | '.join(rest))}")
            if rest:
                raise AnswerError(f"{group.kind} with {typed} is not legal now; with that {words(first.name)}: {_cut(' | '.join(rest))}")
        raise AnswerError(f"{group.kind} with {typed} is not legal now")


def _same_set(a: Value, b: Value) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return sorted(a, key=str) == sorted(b, key=str)
    return a == b


def _in_order(value: object) -> tuple[int, int, str]:
    """Numbers by their value (2 before 10), then everything else by its text."""
    return (0, value, "") if isinstance(value, int) else (1, 0, str(value))


def _natural(text: str) -> tuple[int, str]:
    return (int(text), "") if text.lstrip("-").isdigit() else (1 << 30, text)


def _cut(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
