from hustings.v1 import spin_doctors_pb2 as _spin_doctors_pb2
from hustings.v1 import stimmvieh_pb2 as _stimmvieh_pb2
from hustings.v1 import wahlspiel_pb2 as _wahlspiel_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    GAME_STATUS_OPEN: _ClassVar[GameStatus]
    GAME_STATUS_ACTIVE: _ClassVar[GameStatus]
    GAME_STATUS_FINISHED: _ClassVar[GameStatus]
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_STATUS_OPEN: GameStatus
GAME_STATUS_ACTIVE: GameStatus
GAME_STATUS_FINISHED: GameStatus

class Variant(_message.Message):
    __slots__ = ("name", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class GameKind(_message.Message):
    __slots__ = ("kind", "title", "min_players", "max_players", "variants")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    kind: str
    title: str
    min_players: int
    max_players: int
    variants: _containers.RepeatedCompositeFieldContainer[Variant]
    def __init__(self, kind: _Optional[str] = ..., title: _Optional[str] = ..., min_players: _Optional[int] = ..., max_players: _Optional[int] = ..., variants: _Optional[_Iterable[_Union[Variant, _Mapping]]] = ...) -> None: ...

class GameOptions(_message.Message):
    __slots__ = ("players", "stimmvieh", "wahlspiel", "spin_doctors")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    STIMMVIEH_FIELD_NUMBER: _ClassVar[int]
    WAHLSPIEL_FIELD_NUMBER: _ClassVar[int]
    SPIN_DOCTORS_FIELD_NUMBER: _ClassVar[int]
    players: int
    stimmvieh: _stimmvieh_pb2.StimmviehOptions
    wahlspiel: _wahlspiel_pb2.WahlspielOptions
    spin_doctors: _spin_doctors_pb2.SpinDoctorsOptions
    def __init__(self, players: _Optional[int] = ..., stimmvieh: _Optional[_Union[_stimmvieh_pb2.StimmviehOptions, _Mapping]] = ..., wahlspiel: _Optional[_Union[_wahlspiel_pb2.WahlspielOptions, _Mapping]] = ..., spin_doctors: _Optional[_Union[_spin_doctors_pb2.SpinDoctorsOptions, _Mapping]] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("stimmvieh", "wahlspiel", "spin_doctors")
    STIMMVIEH_FIELD_NUMBER: _ClassVar[int]
    WAHLSPIEL_FIELD_NUMBER: _ClassVar[int]
    SPIN_DOCTORS_FIELD_NUMBER: _ClassVar[int]
    stimmvieh: _stimmvieh_pb2.StimmviehMove
    wahlspiel: _wahlspiel_pb2.WahlspielMove
    spin_doctors: _spin_doctors_pb2.SpinDoctorsMove
    def __init__(self, stimmvieh: _Optional[_Union[_stimmvieh_pb2.StimmviehMove, _Mapping]] = ..., wahlspiel: _Optional[_Union[_wahlspiel_pb2.WahlspielMove, _Mapping]] = ..., spin_doctors: _Optional[_Union[_spin_doctors_pb2.SpinDoctorsMove, _Mapping]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("version", "seat", "seat_taken", "stimmvieh", "wahlspiel", "spin_doctors")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TAKEN_FIELD_NUMBER: _ClassVar[int]
    STIMMVIEH_FIELD_NUMBER: _ClassVar[int]
    WAHLSPIEL_FIELD_NUMBER: _ClassVar[int]
    SPIN_DOCTORS_FIELD_NUMBER: _ClassVar[int]
    version: int
    seat: int
    seat_taken: SeatTaken
    stimmvieh: _stimmvieh_pb2.StimmviehEvent
    wahlspiel: _wahlspiel_pb2.WahlspielEvent
    spin_doctors: _spin_doctors_pb2.SpinDoctorsEvent
    def __init__(self, version: _Optional[int] = ..., seat: _Optional[int] = ..., seat_taken: _Optional[_Union[SeatTaken, _Mapping]] = ..., stimmvieh: _Optional[_Union[_stimmvieh_pb2.StimmviehEvent, _Mapping]] = ..., wahlspiel: _Optional[_Union[_wahlspiel_pb2.WahlspielEvent, _Mapping]] = ..., spin_doctors: _Optional[_Union[_spin_doctors_pb2.SpinDoctorsEvent, _Mapping]] = ...) -> None: ...

class SeatTaken(_message.Message):
    __slots__ = ("seat", "display_name", "game_started")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    display_name: str
    game_started: bool
    def __init__(self, seat: _Optional[int] = ..., display_name: _Optional[str] = ..., game_started: _Optional[bool] = ...) -> None: ...

class Seat(_message.Message):
    __slots__ = ("seat", "display_name", "taken")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    display_name: str
    taken: bool
    def __init__(self, seat: _Optional[int] = ..., display_name: _Optional[str] = ..., taken: _Optional[bool] = ...) -> None: ...

class Placing(_message.Message):
    __slots__ = ("rank", "seat", "name", "score", "detail", "ranked_by")
    RANK_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    RANKED_BY_FIELD_NUMBER: _ClassVar[int]
    rank: int
    seat: int
    name: str
    score: int
    detail: str
    ranked_by: _containers.RepeatedCompositeFieldContainer[RankingValue]
    def __init__(self, rank: _Optional[int] = ..., seat: _Optional[int] = ..., name: _Optional[str] = ..., score: _Optional[int] = ..., detail: _Optional[str] = ..., ranked_by: _Optional[_Iterable[_Union[RankingValue, _Mapping]]] = ...) -> None: ...

class RankingValue(_message.Message):
    __slots__ = ("name", "value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: int
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...

class Outcome(_message.Message):
    __slots__ = ("placings",)
    PLACINGS_FIELD_NUMBER: _ClassVar[int]
    placings: _containers.RepeatedCompositeFieldContainer[Placing]
    def __init__(self, placings: _Optional[_Iterable[_Union[Placing, _Mapping]]] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("game_id", "kind", "version", "status", "seat", "to_act", "legal_moves", "seats", "seed_commitment", "seed", "outcome", "options", "stimmvieh", "wahlspiel", "spin_doctors")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    LEGAL_MOVES_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    STIMMVIEH_FIELD_NUMBER: _ClassVar[int]
    WAHLSPIEL_FIELD_NUMBER: _ClassVar[int]
    SPIN_DOCTORS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    kind: str
    version: int
    status: GameStatus
    seat: int
    to_act: _containers.RepeatedScalarFieldContainer[int]
    legal_moves: _containers.RepeatedCompositeFieldContainer[Move]
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    seed_commitment: str
    seed: str
    outcome: Outcome
    options: GameOptions
    stimmvieh: _stimmvieh_pb2.StimmviehView
    wahlspiel: _wahlspiel_pb2.WahlspielView
    spin_doctors: _spin_doctors_pb2.SpinDoctorsView
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[str] = ..., version: _Optional[int] = ..., status: _Optional[_Union[GameStatus, str]] = ..., seat: _Optional[int] = ..., to_act: _Optional[_Iterable[int]] = ..., legal_moves: _Optional[_Iterable[_Union[Move, _Mapping]]] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., seed_commitment: _Optional[str] = ..., seed: _Optional[str] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., options: _Optional[_Union[GameOptions, _Mapping]] = ..., stimmvieh: _Optional[_Union[_stimmvieh_pb2.StimmviehView, _Mapping]] = ..., wahlspiel: _Optional[_Union[_wahlspiel_pb2.WahlspielView, _Mapping]] = ..., spin_doctors: _Optional[_Union[_spin_doctors_pb2.SpinDoctorsView, _Mapping]] = ...) -> None: ...

class GameSummary(_message.Message):
    __slots__ = ("game_id", "kind", "status", "version", "seats", "created_at")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    kind: str
    status: GameStatus
    version: int
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    created_at: int
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[str] = ..., status: _Optional[_Union[GameStatus, str]] = ..., version: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., created_at: _Optional[int] = ...) -> None: ...

class HistoryEntry(_message.Message):
    __slots__ = ("version", "seat", "move", "events", "state_digest")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    STATE_DIGEST_FIELD_NUMBER: _ClassVar[int]
    version: int
    seat: int
    move: Move
    events: _containers.RepeatedCompositeFieldContainer[Event]
    state_digest: str
    def __init__(self, version: _Optional[int] = ..., seat: _Optional[int] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., state_digest: _Optional[str] = ...) -> None: ...
