from hustings.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StoredSeat(_message.Message):
    __slots__ = ("seat", "display_name", "token_sha256", "bot", "absent", "deadline_ms", "bank_ms", "turn_started_ms", "timeouts", "bot_played", "bot_level", "bank_paid_ms", "bank_paid_turn_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_SHA256_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    ABSENT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    TURN_STARTED_MS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    BOT_PLAYED_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    BANK_PAID_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_PAID_TURN_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    display_name: str
    token_sha256: str
    bot: bool
    absent: bool
    deadline_ms: int
    bank_ms: int
    turn_started_ms: int
    timeouts: int
    bot_played: bool
    bot_level: str
    bank_paid_ms: int
    bank_paid_turn_ms: int
    def __init__(self, seat: _Optional[int] = ..., display_name: _Optional[str] = ..., token_sha256: _Optional[str] = ..., bot: _Optional[bool] = ..., absent: _Optional[bool] = ..., deadline_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., turn_started_ms: _Optional[int] = ..., timeouts: _Optional[int] = ..., bot_played: _Optional[bool] = ..., bot_level: _Optional[str] = ..., bank_paid_ms: _Optional[int] = ..., bank_paid_turn_ms: _Optional[int] = ...) -> None: ...

class StoredGame(_message.Message):
    __slots__ = ("game_id", "kind", "options", "version", "status", "seats", "seed", "rng_counter", "engine_state", "created_at", "content_version", "table", "seed_from_client", "seed_nonce", "rules_version", "open_since", "creator_mark")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    RNG_COUNTER_FIELD_NUMBER: _ClassVar[int]
    ENGINE_STATE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    SEED_FROM_CLIENT_FIELD_NUMBER: _ClassVar[int]
    SEED_NONCE_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    OPEN_SINCE_FIELD_NUMBER: _ClassVar[int]
    CREATOR_MARK_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    kind: str
    options: _game_pb2.GameOptions
    version: int
    status: _game_pb2.GameStatus
    seats: _containers.RepeatedCompositeFieldContainer[StoredSeat]
    seed: bytes
    rng_counter: int
    engine_state: bytes
    created_at: int
    content_version: str
    table: _game_pb2.TableSettings
    seed_from_client: bool
    seed_nonce: bytes
    rules_version: str
    open_since: int
    creator_mark: bytes
    def __init__(self, game_id: _Optional[str] = ..., kind: _Optional[str] = ..., options: _Optional[_Union[_game_pb2.GameOptions, _Mapping]] = ..., version: _Optional[int] = ..., status: _Optional[_Union[_game_pb2.GameStatus, str]] = ..., seats: _Optional[_Iterable[_Union[StoredSeat, _Mapping]]] = ..., seed: _Optional[bytes] = ..., rng_counter: _Optional[int] = ..., engine_state: _Optional[bytes] = ..., created_at: _Optional[int] = ..., content_version: _Optional[str] = ..., table: _Optional[_Union[_game_pb2.TableSettings, _Mapping]] = ..., seed_from_client: _Optional[bool] = ..., seed_nonce: _Optional[bytes] = ..., rules_version: _Optional[str] = ..., open_since: _Optional[int] = ..., creator_mark: _Optional[bytes] = ...) -> None: ...

class StoredEvent(_message.Message):
    __slots__ = ("event", "public", "visible_to", "redacted")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_TO_FIELD_NUMBER: _ClassVar[int]
    REDACTED_FIELD_NUMBER: _ClassVar[int]
    event: _game_pb2.Event
    public: bool
    visible_to: _containers.RepeatedScalarFieldContainer[int]
    redacted: _game_pb2.Event
    def __init__(self, event: _Optional[_Union[_game_pb2.Event, _Mapping]] = ..., public: _Optional[bool] = ..., visible_to: _Optional[_Iterable[int]] = ..., redacted: _Optional[_Union[_game_pb2.Event, _Mapping]] = ...) -> None: ...

class LogEntry(_message.Message):
    __slots__ = ("version", "seat", "move", "move_public", "events", "state_digest", "request_id")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    MOVE_PUBLIC_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    STATE_DIGEST_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    version: int
    seat: int
    move: _game_pb2.Move
    move_public: bool
    events: _containers.RepeatedCompositeFieldContainer[StoredEvent]
    state_digest: str
    request_id: str
    def __init__(self, version: _Optional[int] = ..., seat: _Optional[int] = ..., move: _Optional[_Union[_game_pb2.Move, _Mapping]] = ..., move_public: _Optional[bool] = ..., events: _Optional[_Iterable[_Union[StoredEvent, _Mapping]]] = ..., state_digest: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...
