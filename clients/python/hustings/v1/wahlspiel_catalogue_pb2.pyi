from hustings.v1 import catalogue_pb2 as _catalogue_pb2
from hustings.v1 import wahlspiel_pb2 as _wahlspiel_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WahlspielEventTarget(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WAHLSPIEL_EVENT_TARGET_UNSPECIFIED: _ClassVar[WahlspielEventTarget]
    WAHLSPIEL_EVENT_TARGET_CANDIDATES: _ClassVar[WahlspielEventTarget]
    WAHLSPIEL_EVENT_TARGET_EVERY: _ClassVar[WahlspielEventTarget]
    WAHLSPIEL_EVENT_TARGET_OWN_PARTY: _ClassVar[WahlspielEventTarget]
    WAHLSPIEL_EVENT_TARGET_PARTY: _ClassVar[WahlspielEventTarget]
WAHLSPIEL_EVENT_TARGET_UNSPECIFIED: WahlspielEventTarget
WAHLSPIEL_EVENT_TARGET_CANDIDATES: WahlspielEventTarget
WAHLSPIEL_EVENT_TARGET_EVERY: WahlspielEventTarget
WAHLSPIEL_EVENT_TARGET_OWN_PARTY: WahlspielEventTarget
WAHLSPIEL_EVENT_TARGET_PARTY: WahlspielEventTarget

class WahlspielCondition(_message.Message):
    __slots__ = ("sex", "age_min", "age_max", "occupations", "traits", "symbols")
    SEX_FIELD_NUMBER: _ClassVar[int]
    AGE_MIN_FIELD_NUMBER: _ClassVar[int]
    AGE_MAX_FIELD_NUMBER: _ClassVar[int]
    OCCUPATIONS_FIELD_NUMBER: _ClassVar[int]
    TRAITS_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    sex: str
    age_min: int
    age_max: int
    occupations: _containers.RepeatedScalarFieldContainer[str]
    traits: _containers.RepeatedScalarFieldContainer[str]
    symbols: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, sex: _Optional[str] = ..., age_min: _Optional[int] = ..., age_max: _Optional[int] = ..., occupations: _Optional[_Iterable[str]] = ..., traits: _Optional[_Iterable[str]] = ..., symbols: _Optional[_Iterable[str]] = ...) -> None: ...

class WahlspielMoneyRules(_message.Message):
    __slots__ = ("start", "start_three_players", "voter_price", "event_price", "source")
    START_FIELD_NUMBER: _ClassVar[int]
    START_THREE_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VOTER_PRICE_FIELD_NUMBER: _ClassVar[int]
    EVENT_PRICE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    start: int
    start_three_players: int
    voter_price: int
    event_price: int
    source: _catalogue_pb2.ContentSource
    def __init__(self, start: _Optional[int] = ..., start_three_players: _Optional[int] = ..., voter_price: _Optional[int] = ..., event_price: _Optional[int] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class WahlspielElectionRound(_message.Message):
    __slots__ = ("round", "goal", "goal_position", "seats", "pay", "source")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    GOAL_FIELD_NUMBER: _ClassVar[int]
    GOAL_POSITION_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PAY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    round: int
    goal: _wahlspiel_pb2.WahlspielFieldKind
    goal_position: int
    seats: int
    pay: int
    source: _catalogue_pb2.ContentSource
    def __init__(self, round: _Optional[int] = ..., goal: _Optional[_Union[_wahlspiel_pb2.WahlspielFieldKind, str]] = ..., goal_position: _Optional[int] = ..., seats: _Optional[int] = ..., pay: _Optional[int] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class WahlspielCatalogueParty(_message.Message):
    __slots__ = ("party", "name", "colour", "source")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    party: int
    name: str
    colour: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, party: _Optional[int] = ..., name: _Optional[str] = ..., colour: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class WahlspielSymbol(_message.Message):
    __slots__ = ("id", "icon", "source")
    ID_FIELD_NUMBER: _ClassVar[int]
    ICON_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    id: str
    icon: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, id: _Optional[str] = ..., icon: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class WahlspielTrait(_message.Message):
    __slots__ = ("id", "meaning", "source")
    ID_FIELD_NUMBER: _ClassVar[int]
    MEANING_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    id: str
    meaning: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, id: _Optional[str] = ..., meaning: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class WahlspielOccupation(_message.Message):
    __slots__ = ("id", "source")
    ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    id: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, id: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class WahlspielCatalogueField(_message.Message):
    __slots__ = ("position", "kind", "prize_voters", "prize_events", "source")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PRIZE_VOTERS_FIELD_NUMBER: _ClassVar[int]
    PRIZE_EVENTS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    position: int
    kind: _wahlspiel_pb2.WahlspielFieldKind
    prize_voters: int
    prize_events: int
    source: _catalogue_pb2.ContentSource
    def __init__(self, position: _Optional[int] = ..., kind: _Optional[_Union[_wahlspiel_pb2.WahlspielFieldKind, str]] = ..., prize_voters: _Optional[int] = ..., prize_events: _Optional[int] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class WahlspielCataloguePolitician(_message.Message):
    __slots__ = ("politician", "source")
    POLITICIAN_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    politician: _wahlspiel_pb2.WahlspielPolitician
    source: _catalogue_pb2.ContentSource
    def __init__(self, politician: _Optional[_Union[_wahlspiel_pb2.WahlspielPolitician, _Mapping]] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class WahlspielCatalogueVoter(_message.Message):
    __slots__ = ("card_id", "text", "condition", "opinion", "source")
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CONDITION_FIELD_NUMBER: _ClassVar[int]
    OPINION_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    text: str
    condition: WahlspielCondition
    opinion: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, card_id: _Optional[str] = ..., text: _Optional[str] = ..., condition: _Optional[_Union[WahlspielCondition, _Mapping]] = ..., opinion: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class WahlspielCatalogueEvent(_message.Message):
    __slots__ = ("card_id", "text", "target", "count", "condition", "votes", "halve", "lose_all", "withdraw", "money", "source")
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    CONDITION_FIELD_NUMBER: _ClassVar[int]
    VOTES_FIELD_NUMBER: _ClassVar[int]
    HALVE_FIELD_NUMBER: _ClassVar[int]
    LOSE_ALL_FIELD_NUMBER: _ClassVar[int]
    WITHDRAW_FIELD_NUMBER: _ClassVar[int]
    MONEY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    text: str
    target: WahlspielEventTarget
    count: int
    condition: WahlspielCondition
    votes: int
    halve: bool
    lose_all: bool
    withdraw: bool
    money: int
    source: _catalogue_pb2.ContentSource
    def __init__(self, card_id: _Optional[str] = ..., text: _Optional[str] = ..., target: _Optional[_Union[WahlspielEventTarget, str]] = ..., count: _Optional[int] = ..., condition: _Optional[_Union[WahlspielCondition, _Mapping]] = ..., votes: _Optional[int] = ..., halve: _Optional[bool] = ..., lose_all: _Optional[bool] = ..., withdraw: _Optional[bool] = ..., money: _Optional[int] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class WahlspielCatalogue(_message.Message):
    __slots__ = ("money", "elections", "parties", "symbols", "traits", "occupations", "board", "politicians", "voters", "events")
    MONEY_FIELD_NUMBER: _ClassVar[int]
    ELECTIONS_FIELD_NUMBER: _ClassVar[int]
    PARTIES_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    TRAITS_FIELD_NUMBER: _ClassVar[int]
    OCCUPATIONS_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    POLITICIANS_FIELD_NUMBER: _ClassVar[int]
    VOTERS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    money: WahlspielMoneyRules
    elections: _containers.RepeatedCompositeFieldContainer[WahlspielElectionRound]
    parties: _containers.RepeatedCompositeFieldContainer[WahlspielCatalogueParty]
    symbols: _containers.RepeatedCompositeFieldContainer[WahlspielSymbol]
    traits: _containers.RepeatedCompositeFieldContainer[WahlspielTrait]
    occupations: _containers.RepeatedCompositeFieldContainer[WahlspielOccupation]
    board: _containers.RepeatedCompositeFieldContainer[WahlspielCatalogueField]
    politicians: _containers.RepeatedCompositeFieldContainer[WahlspielCataloguePolitician]
    voters: _containers.RepeatedCompositeFieldContainer[WahlspielCatalogueVoter]
    events: _containers.RepeatedCompositeFieldContainer[WahlspielCatalogueEvent]
    def __init__(self, money: _Optional[_Union[WahlspielMoneyRules, _Mapping]] = ..., elections: _Optional[_Iterable[_Union[WahlspielElectionRound, _Mapping]]] = ..., parties: _Optional[_Iterable[_Union[WahlspielCatalogueParty, _Mapping]]] = ..., symbols: _Optional[_Iterable[_Union[WahlspielSymbol, _Mapping]]] = ..., traits: _Optional[_Iterable[_Union[WahlspielTrait, _Mapping]]] = ..., occupations: _Optional[_Iterable[_Union[WahlspielOccupation, _Mapping]]] = ..., board: _Optional[_Iterable[_Union[WahlspielCatalogueField, _Mapping]]] = ..., politicians: _Optional[_Iterable[_Union[WahlspielCataloguePolitician, _Mapping]]] = ..., voters: _Optional[_Iterable[_Union[WahlspielCatalogueVoter, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[WahlspielCatalogueEvent, _Mapping]]] = ...) -> None: ...
