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
    __slots__ = ("version", "seat", "seat_taken", "seat_changed", "stimmvieh", "wahlspiel", "spin_doctors")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TAKEN_FIELD_NUMBER: _ClassVar[int]
    SEAT_CHANGED_FIELD_NUMBER: _ClassVar[int]
    STIMMVIEH_FIELD_NUMBER: _ClassVar[int]
    WAHLSPIEL_FIELD_NUMBER: _ClassVar[int]
    SPIN_DOCTORS_FIELD_NUMBER: _ClassVar[int]
    version: int
    seat: int
    seat_taken: SeatTaken
    seat_changed: SeatChanged
    stimmvieh: _stimmvieh_pb2.StimmviehEvent
    wahlspiel: _wahlspiel_pb2.WahlspielEvent
    spin_doctors: _spin_doctors_pb2.SpinDoctorsEvent
    def __init__(self, version: _Optional[int] = ..., seat: _Optional[int] = ..., seat_taken: _Optional[_Union[SeatTaken, _Mapping]] = ..., seat_changed: _Optional[_Union[SeatChanged, _Mapping]] = ..., stimmvieh: _Optional[_Union[_stimmvieh_pb2.StimmviehEvent, _Mapping]] = ..., wahlspiel: _Optional[_Union[_wahlspiel_pb2.WahlspielEvent, _Mapping]] = ..., spin_doctors: _Optional[_Union[_spin_doctors_pb2.SpinDoctorsEvent, _Mapping]] = ...) -> None: ...

class SeatTaken(_message.Message):
    __slots__ = ("seat", "display_name", "game_started", "party_name", "party_colour")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    PARTY_NAME_FIELD_NUMBER: _ClassVar[int]
    PARTY_COLOUR_FIELD_NUMBER: _ClassVar[int]
    seat: int
    display_name: str
    game_started: bool
    party_name: str
    party_colour: str
    def __init__(self, seat: _Optional[int] = ..., display_name: _Optional[str] = ..., game_started: _Optional[bool] = ..., party_name: _Optional[str] = ..., party_colour: _Optional[str] = ...) -> None: ...

class SeatChanged(_message.Message):
    __slots__ = ("seat", "change", "display_name")
    class Change(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CHANGE_UNSPECIFIED: _ClassVar[SeatChanged.Change]
        CHANGE_LEFT: _ClassVar[SeatChanged.Change]
        CHANGE_RETURNED: _ClassVar[SeatChanged.Change]
        CHANGE_TIMED_OUT: _ClassVar[SeatChanged.Change]
        CHANGE_ABSENT: _ClassVar[SeatChanged.Change]
        CHANGE_TAKEN_OVER: _ClassVar[SeatChanged.Change]
        CHANGE_BOT_ADDED: _ClassVar[SeatChanged.Change]
    CHANGE_UNSPECIFIED: SeatChanged.Change
    CHANGE_LEFT: SeatChanged.Change
    CHANGE_RETURNED: SeatChanged.Change
    CHANGE_TIMED_OUT: SeatChanged.Change
    CHANGE_ABSENT: SeatChanged.Change
    CHANGE_TAKEN_OVER: SeatChanged.Change
    CHANGE_BOT_ADDED: SeatChanged.Change
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    change: SeatChanged.Change
    display_name: str
    def __init__(self, seat: _Optional[int] = ..., change: _Optional[_Union[SeatChanged.Change, str]] = ..., display_name: _Optional[str] = ...) -> None: ...

class TableSettings(_message.Message):
    __slots__ = ("decision_seconds", "bank_seconds", "increment_seconds", "absent_after_timeouts", "allow_takeover", "open_seconds", "bot_seats", "bot_level", "unlisted")
    DECISION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    BANK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ABSENT_AFTER_TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    ALLOW_TAKEOVER_FIELD_NUMBER: _ClassVar[int]
    OPEN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    BOT_SEATS_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    UNLISTED_FIELD_NUMBER: _ClassVar[int]
    decision_seconds: int
    bank_seconds: int
    increment_seconds: int
    absent_after_timeouts: int
    allow_takeover: bool
    open_seconds: int
    bot_seats: _containers.RepeatedScalarFieldContainer[int]
    bot_level: str
    unlisted: bool
    def __init__(self, decision_seconds: _Optional[int] = ..., bank_seconds: _Optional[int] = ..., increment_seconds: _Optional[int] = ..., absent_after_timeouts: _Optional[int] = ..., allow_takeover: _Optional[bool] = ..., open_seconds: _Optional[int] = ..., bot_seats: _Optional[_Iterable[int]] = ..., bot_level: _Optional[str] = ..., unlisted: _Optional[bool] = ...) -> None: ...

class Seat(_message.Message):
    __slots__ = ("seat", "display_name", "taken", "bot", "absent", "present", "deadline_unix_ms", "bank_ms", "timeouts", "bot_played")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    ABSENT_FIELD_NUMBER: _ClassVar[int]
    PRESENT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    BOT_PLAYED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    display_name: str
    taken: bool
    bot: bool
    absent: bool
    present: bool
    deadline_unix_ms: int
    bank_ms: int
    timeouts: int
    bot_played: bool
    def __init__(self, seat: _Optional[int] = ..., display_name: _Optional[str] = ..., taken: _Optional[bool] = ..., bot: _Optional[bool] = ..., absent: _Optional[bool] = ..., present: _Optional[bool] = ..., deadline_unix_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., timeouts: _Optional[int] = ..., bot_played: _Optional[bool] = ...) -> None: ...

class Placing(_message.Message):
    __slots__ = ("rank", "seat", "name", "score", "detail", "ranked_by", "bot_played")
    RANK_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    RANKED_BY_FIELD_NUMBER: _ClassVar[int]
    BOT_PLAYED_FIELD_NUMBER: _ClassVar[int]
    rank: int
    seat: int
    name: str
    score: int
    detail: str
    ranked_by: _containers.RepeatedCompositeFieldContainer[RankingValue]
    bot_played: bool
    def __init__(self, rank: _Optional[int] = ..., seat: _Optional[int] = ..., name: _Optional[str] = ..., score: _Optional[int] = ..., detail: _Optional[str] = ..., ranked_by: _Optional[_Iterable[_Union[RankingValue, _Mapping]]] = ..., bot_played: _Optional[bool] = ...) -> None: ...

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
    __slots__ = ("game_id", "kind", "version", "status", "seat", "to_act", "legal_moves", "seats", "seed_commitment", "seed", "outcome", "options", "table", "seed_chosen_by_creator", "seed_nonce", "stimmvieh", "wahlspiel", "spin_doctors")
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
    TABLE_FIELD_NUMBER: _ClassVar[int]
    SEED_CHOSEN_BY_CREATOR_FIELD_NUMBER: _ClassVar[int]
    SEED_NONCE_FIELD_NUMBER: _ClassVar[int]
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
    table: TableSettings
    seed_chosen_by_creator: bool
    seed_nonce: str
    stimmvieh: _stimmvieh_pb2.StimmviehView
    wahlspiel: _wahlspiel_pb2.WahlspielView
    spin_doctors: _spin_doctors_pb2.SpinDoctorsView
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[str] = ..., version: _Optional[int] = ..., status: _Optional[_Union[GameStatus, str]] = ..., seat: _Optional[int] = ..., to_act: _Optional[_Iterable[int]] = ..., legal_moves: _Optional[_Iterable[_Union[Move, _Mapping]]] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., seed_commitment: _Optional[str] = ..., seed: _Optional[str] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., options: _Optional[_Union[GameOptions, _Mapping]] = ..., table: _Optional[_Union[TableSettings, _Mapping]] = ..., seed_chosen_by_creator: _Optional[bool] = ..., seed_nonce: _Optional[str] = ..., stimmvieh: _Optional[_Union[_stimmvieh_pb2.StimmviehView, _Mapping]] = ..., wahlspiel: _Optional[_Union[_wahlspiel_pb2.WahlspielView, _Mapping]] = ..., spin_doctors: _Optional[_Union[_spin_doctors_pb2.SpinDoctorsView, _Mapping]] = ...) -> None: ...

class GameSummary(_message.Message):
    __slots__ = ("game_id", "kind", "status", "version", "seats", "created_at", "seed_chosen_by_creator", "open_until")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    SEED_CHOSEN_BY_CREATOR_FIELD_NUMBER: _ClassVar[int]
    OPEN_UNTIL_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    kind: str
    status: GameStatus
    version: int
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    created_at: int
    seed_chosen_by_creator: bool
    open_until: int
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[str] = ..., status: _Optional[_Union[GameStatus, str]] = ..., version: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., created_at: _Optional[int] = ..., seed_chosen_by_creator: _Optional[bool] = ..., open_until: _Optional[int] = ...) -> None: ...

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
