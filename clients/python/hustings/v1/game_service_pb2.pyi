from google.api import annotations_pb2 as _annotations_pb2
from hustings.v1 import game_pb2 as _game_pb2
from hustings.v1 import spin_doctors_catalogue_pb2 as _spin_doctors_catalogue_pb2
from hustings.v1 import stimmvieh_catalogue_pb2 as _stimmvieh_catalogue_pb2
from hustings.v1 import wahlspiel_catalogue_pb2 as _wahlspiel_catalogue_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListGameKindsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGameKindsResponse(_message.Message):
    __slots__ = ("kinds",)
    KINDS_FIELD_NUMBER: _ClassVar[int]
    kinds: _containers.RepeatedCompositeFieldContainer[_game_pb2.GameKind]
    def __init__(self, kinds: _Optional[_Iterable[_Union[_game_pb2.GameKind, _Mapping]]] = ...) -> None: ...

class CreateGameRequest(_message.Message):
    __slots__ = ("kind", "options", "seed", "request_id", "table")
    KIND_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    kind: str
    options: _game_pb2.GameOptions
    seed: str
    request_id: str
    table: _game_pb2.TableSettings
    def __init__(self, kind: _Optional[str] = ..., options: _Optional[_Union[_game_pb2.GameOptions, _Mapping]] = ..., seed: _Optional[str] = ..., request_id: _Optional[str] = ..., table: _Optional[_Union[_game_pb2.TableSettings, _Mapping]] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ("game_id", "view")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    view: _game_pb2.GameView
    def __init__(self, game_id: _Optional[str] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ...) -> None: ...

class JoinGameRequest(_message.Message):
    __slots__ = ("game_id", "display_name", "seat", "request_id", "party_name", "party_colour")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    PARTY_NAME_FIELD_NUMBER: _ClassVar[int]
    PARTY_COLOUR_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    display_name: str
    seat: int
    request_id: str
    party_name: str
    party_colour: str
    def __init__(self, game_id: _Optional[str] = ..., display_name: _Optional[str] = ..., seat: _Optional[int] = ..., request_id: _Optional[str] = ..., party_name: _Optional[str] = ..., party_colour: _Optional[str] = ...) -> None: ...

class JoinGameResponse(_message.Message):
    __slots__ = ("seat", "seat_token", "view")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seat_token: str
    view: _game_pb2.GameView
    def __init__(self, seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ...) -> None: ...

class GetViewRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetViewResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _game_pb2.GameView
    def __init__(self, view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ...) -> None: ...

class SubmitMoveRequest(_message.Message):
    __slots__ = ("game_id", "move", "expected_version", "request_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    move: _game_pb2.Move
    expected_version: int
    request_id: str
    def __init__(self, game_id: _Optional[str] = ..., move: _Optional[_Union[_game_pb2.Move, _Mapping]] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class SubmitMoveResponse(_message.Message):
    __slots__ = ("version", "events")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.Event]
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_game_pb2.Event, _Mapping]]] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("game_id", "from_version")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_VERSION_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    from_version: int
    def __init__(self, game_id: _Optional[str] = ..., from_version: _Optional[int] = ...) -> None: ...

class WatchGameResponse(_message.Message):
    __slots__ = ("version", "entries", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    entries: _containers.RepeatedCompositeFieldContainer[_game_pb2.HistoryEntry]
    view: _game_pb2.GameView
    def __init__(self, version: _Optional[int] = ..., entries: _Optional[_Iterable[_Union[_game_pb2.HistoryEntry, _Mapping]]] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ...) -> None: ...

class GetHistoryRequest(_message.Message):
    __slots__ = ("game_id", "after_version", "page_size")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    after_version: int
    page_size: int
    def __init__(self, game_id: _Optional[str] = ..., after_version: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class GetHistoryResponse(_message.Message):
    __slots__ = ("entries", "version", "next_after_version", "revealed")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    NEXT_AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[_game_pb2.HistoryEntry]
    version: int
    next_after_version: int
    revealed: bool
    def __init__(self, entries: _Optional[_Iterable[_Union[_game_pb2.HistoryEntry, _Mapping]]] = ..., version: _Optional[int] = ..., next_after_version: _Optional[int] = ..., revealed: _Optional[bool] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("kind", "status", "page_size", "page_token")
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    kind: str
    status: _game_pb2.GameStatus
    page_size: int
    page_token: str
    def __init__(self, kind: _Optional[str] = ..., status: _Optional[_Union[_game_pb2.GameStatus, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[_game_pb2.GameSummary]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[_game_pb2.GameSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetGameKindRequest(_message.Message):
    __slots__ = ("kind",)
    KIND_FIELD_NUMBER: _ClassVar[int]
    kind: str
    def __init__(self, kind: _Optional[str] = ...) -> None: ...

class GetGameKindResponse(_message.Message):
    __slots__ = ("kind", "content_version", "rules_version", "stimmvieh", "wahlspiel", "spin_doctors")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CONTENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    STIMMVIEH_FIELD_NUMBER: _ClassVar[int]
    WAHLSPIEL_FIELD_NUMBER: _ClassVar[int]
    SPIN_DOCTORS_FIELD_NUMBER: _ClassVar[int]
    kind: _game_pb2.GameKind
    content_version: str
    rules_version: str
    stimmvieh: _stimmvieh_catalogue_pb2.StimmviehCatalogue
    wahlspiel: _wahlspiel_catalogue_pb2.WahlspielCatalogue
    spin_doctors: _spin_doctors_catalogue_pb2.SpinDoctorsCatalogue
    def __init__(self, kind: _Optional[_Union[_game_pb2.GameKind, _Mapping]] = ..., content_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., stimmvieh: _Optional[_Union[_stimmvieh_catalogue_pb2.StimmviehCatalogue, _Mapping]] = ..., wahlspiel: _Optional[_Union[_wahlspiel_catalogue_pb2.WahlspielCatalogue, _Mapping]] = ..., spin_doctors: _Optional[_Union[_spin_doctors_catalogue_pb2.SpinDoctorsCatalogue, _Mapping]] = ...) -> None: ...

class LeaveGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class LeaveGameResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _game_pb2.GameView
    def __init__(self, view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ...) -> None: ...

class ReturnToGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class ReturnToGameResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _game_pb2.GameView
    def __init__(self, view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ...) -> None: ...

class TakeOverSeatRequest(_message.Message):
    __slots__ = ("game_id", "seat", "display_name", "request_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    display_name: str
    request_id: str
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., display_name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class TakeOverSeatResponse(_message.Message):
    __slots__ = ("seat", "seat_token", "view")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seat_token: str
    view: _game_pb2.GameView
    def __init__(self, seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ...) -> None: ...

class AddBotRequest(_message.Message):
    __slots__ = ("game_id", "seat", "level")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    level: str
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., level: _Optional[str] = ...) -> None: ...

class AddBotResponse(_message.Message):
    __slots__ = ("seat", "view")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    seat: int
    view: _game_pb2.GameView
    def __init__(self, seat: _Optional[int] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ...) -> None: ...

class PlayAgainRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class PlayAgainResponse(_message.Message):
    __slots__ = ("game_id", "view")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    view: _game_pb2.GameView
    def __init__(self, game_id: _Optional[str] = ..., view: _Optional[_Union[_game_pb2.GameView, _Mapping]] = ...) -> None: ...
