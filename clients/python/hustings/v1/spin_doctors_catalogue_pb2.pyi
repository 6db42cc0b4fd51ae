from hustings.v1 import catalogue_pb2 as _catalogue_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SpinDoctorsFieldKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPIN_DOCTORS_FIELD_KIND_UNSPECIFIED: _ClassVar[SpinDoctorsFieldKind]
    SPIN_DOCTORS_FIELD_KIND_MEDIA: _ClassVar[SpinDoctorsFieldKind]
    SPIN_DOCTORS_FIELD_KIND_REGION: _ClassVar[SpinDoctorsFieldKind]

class SpinDoctorsProgrammeCondition(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPIN_DOCTORS_PROGRAMME_CONDITION_UNSPECIFIED: _ClassVar[SpinDoctorsProgrammeCondition]
    SPIN_DOCTORS_PROGRAMME_CONDITION_THREE_OR_MORE: _ClassVar[SpinDoctorsProgrammeCondition]
    SPIN_DOCTORS_PROGRAMME_CONDITION_ZERO_TO_TWO: _ClassVar[SpinDoctorsProgrammeCondition]

class SpinDoctorsActionPlace(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPIN_DOCTORS_ACTION_PLACE_UNSPECIFIED: _ClassVar[SpinDoctorsActionPlace]
    SPIN_DOCTORS_ACTION_PLACE_MEDIA: _ClassVar[SpinDoctorsActionPlace]
    SPIN_DOCTORS_ACTION_PLACE_REGION: _ClassVar[SpinDoctorsActionPlace]
    SPIN_DOCTORS_ACTION_PLACE_ANY: _ClassVar[SpinDoctorsActionPlace]

class SpinDoctorsActionTarget(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPIN_DOCTORS_ACTION_TARGET_UNSPECIFIED: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_NONE: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_LOCALITY: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_TWO_LOCALITIES: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_VOTER_GROUP: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_VOTER_GROUP_STEP: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_TWO_VOTER_GROUPS: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_BLUE_NEWS: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_STAFFER_HERE: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_STAFFER_COPY: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_OWN_HAND: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_OWN_LATER: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_SEAT: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_SEAT_VOTER_GROUP: _ClassVar[SpinDoctorsActionTarget]
    SPIN_DOCTORS_ACTION_TARGET_LOCALITY_SEAT: _ClassVar[SpinDoctorsActionTarget]
SPIN_DOCTORS_FIELD_KIND_UNSPECIFIED: SpinDoctorsFieldKind
SPIN_DOCTORS_FIELD_KIND_MEDIA: SpinDoctorsFieldKind
SPIN_DOCTORS_FIELD_KIND_REGION: SpinDoctorsFieldKind
SPIN_DOCTORS_PROGRAMME_CONDITION_UNSPECIFIED: SpinDoctorsProgrammeCondition
SPIN_DOCTORS_PROGRAMME_CONDITION_THREE_OR_MORE: SpinDoctorsProgrammeCondition
SPIN_DOCTORS_PROGRAMME_CONDITION_ZERO_TO_TWO: SpinDoctorsProgrammeCondition
SPIN_DOCTORS_ACTION_PLACE_UNSPECIFIED: SpinDoctorsActionPlace
SPIN_DOCTORS_ACTION_PLACE_MEDIA: SpinDoctorsActionPlace
SPIN_DOCTORS_ACTION_PLACE_REGION: SpinDoctorsActionPlace
SPIN_DOCTORS_ACTION_PLACE_ANY: SpinDoctorsActionPlace
SPIN_DOCTORS_ACTION_TARGET_UNSPECIFIED: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_NONE: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_LOCALITY: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_TWO_LOCALITIES: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_VOTER_GROUP: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_VOTER_GROUP_STEP: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_TWO_VOTER_GROUPS: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_BLUE_NEWS: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_STAFFER_HERE: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_STAFFER_COPY: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_OWN_HAND: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_OWN_LATER: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_SEAT: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_SEAT_VOTER_GROUP: SpinDoctorsActionTarget
SPIN_DOCTORS_ACTION_TARGET_LOCALITY_SEAT: SpinDoctorsActionTarget

class SpinDoctorsCatalogueVoterGroup(_message.Message):
    __slots__ = ("voter_group", "id", "name", "source")
    VOTER_GROUP_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    voter_group: int
    id: str
    name: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, voter_group: _Optional[int] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsCatalogueTopic(_message.Message):
    __slots__ = ("topic", "id", "name", "source")
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    topic: int
    id: str
    name: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, topic: _Optional[int] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsCatalogueColour(_message.Message):
    __slots__ = ("colour", "id", "name", "source")
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    colour: int
    id: str
    name: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, colour: _Optional[int] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsCatalogueVoterTrait(_message.Message):
    __slots__ = ("id", "name", "source")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsCatalogueField(_message.Message):
    __slots__ = ("field", "id", "name", "kind", "source")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    field: int
    id: str
    name: str
    kind: SpinDoctorsFieldKind
    source: _catalogue_pb2.ContentSource
    def __init__(self, field: _Optional[int] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., kind: _Optional[_Union[SpinDoctorsFieldKind, str]] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsCatalogueLocality(_message.Message):
    __slots__ = ("locality", "id", "name", "field", "votes", "source")
    LOCALITY_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    VOTES_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    locality: int
    id: str
    name: str
    field: int
    votes: _containers.RepeatedScalarFieldContainer[int]
    source: _catalogue_pb2.ContentSource
    def __init__(self, locality: _Optional[int] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., field: _Optional[int] = ..., votes: _Optional[_Iterable[int]] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsNewsTrack(_message.Message):
    __slots__ = ("red_fields", "blue_fields", "source")
    RED_FIELDS_FIELD_NUMBER: _ClassVar[int]
    BLUE_FIELDS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    red_fields: int
    blue_fields: int
    source: _catalogue_pb2.ContentSource
    def __init__(self, red_fields: _Optional[int] = ..., blue_fields: _Optional[int] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsElectionRound(_message.Message):
    __slots__ = ("players", "round")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    players: int
    round: int
    def __init__(self, players: _Optional[int] = ..., round: _Optional[int] = ...) -> None: ...

class SpinDoctorsRoundCounter(_message.Message):
    __slots__ = ("staffers_per_round", "poll_round", "election_rounds", "source")
    STAFFERS_PER_ROUND_FIELD_NUMBER: _ClassVar[int]
    POLL_ROUND_FIELD_NUMBER: _ClassVar[int]
    ELECTION_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    staffers_per_round: _containers.RepeatedScalarFieldContainer[int]
    poll_round: int
    election_rounds: _containers.RepeatedCompositeFieldContainer[SpinDoctorsElectionRound]
    source: _catalogue_pb2.ContentSource
    def __init__(self, staffers_per_round: _Optional[_Iterable[int]] = ..., poll_round: _Optional[int] = ..., election_rounds: _Optional[_Iterable[_Union[SpinDoctorsElectionRound, _Mapping]]] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsStartSupplies(_message.Message):
    __slots__ = ("budget", "support_tokens", "staff_size", "programme_size", "topic_cards_on_board", "turnout_marker_sum", "source")
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    SUPPORT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    STAFF_SIZE_FIELD_NUMBER: _ClassVar[int]
    PROGRAMME_SIZE_FIELD_NUMBER: _ClassVar[int]
    TOPIC_CARDS_ON_BOARD_FIELD_NUMBER: _ClassVar[int]
    TURNOUT_MARKER_SUM_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    budget: int
    support_tokens: int
    staff_size: int
    programme_size: int
    topic_cards_on_board: int
    turnout_marker_sum: int
    source: _catalogue_pb2.ContentSource
    def __init__(self, budget: _Optional[int] = ..., support_tokens: _Optional[int] = ..., staff_size: _Optional[int] = ..., programme_size: _Optional[int] = ..., topic_cards_on_board: _Optional[int] = ..., turnout_marker_sum: _Optional[int] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsTurnoutArrow(_message.Message):
    __slots__ = ("from_field", "to_field")
    FROM_FIELD_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_FIELD_NUMBER: _ClassVar[int]
    from_field: int
    to_field: int
    def __init__(self, from_field: _Optional[int] = ..., to_field: _Optional[int] = ...) -> None: ...

class SpinDoctorsCatalogueTurnoutCard(_message.Message):
    __slots__ = ("card_id", "trait", "voter_group", "funding", "fields", "arrows", "lowest_fields", "top_fields", "source")
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    TRAIT_FIELD_NUMBER: _ClassVar[int]
    VOTER_GROUP_FIELD_NUMBER: _ClassVar[int]
    FUNDING_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    ARROWS_FIELD_NUMBER: _ClassVar[int]
    LOWEST_FIELDS_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELDS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    trait: str
    voter_group: int
    funding: int
    fields: int
    arrows: _containers.RepeatedCompositeFieldContainer[SpinDoctorsTurnoutArrow]
    lowest_fields: _containers.RepeatedScalarFieldContainer[int]
    top_fields: _containers.RepeatedScalarFieldContainer[int]
    source: _catalogue_pb2.ContentSource
    def __init__(self, card_id: _Optional[str] = ..., trait: _Optional[str] = ..., voter_group: _Optional[int] = ..., funding: _Optional[int] = ..., fields: _Optional[int] = ..., arrows: _Optional[_Iterable[_Union[SpinDoctorsTurnoutArrow, _Mapping]]] = ..., lowest_fields: _Optional[_Iterable[int]] = ..., top_fields: _Optional[_Iterable[int]] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsCatalogueTopicCard(_message.Message):
    __slots__ = ("card_id", "topic", "red_fields", "white_fields", "source")
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    RED_FIELDS_FIELD_NUMBER: _ClassVar[int]
    WHITE_FIELDS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    topic: int
    red_fields: int
    white_fields: int
    source: _catalogue_pb2.ContentSource
    def __init__(self, card_id: _Optional[str] = ..., topic: _Optional[int] = ..., red_fields: _Optional[int] = ..., white_fields: _Optional[int] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsCatalogueNewsCard(_message.Message):
    __slots__ = ("card_id", "topic", "voter_group", "turnout_change", "scandal_colour", "source")
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    VOTER_GROUP_FIELD_NUMBER: _ClassVar[int]
    TURNOUT_CHANGE_FIELD_NUMBER: _ClassVar[int]
    SCANDAL_COLOUR_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    topic: int
    voter_group: int
    turnout_change: int
    scandal_colour: int
    source: _catalogue_pb2.ContentSource
    def __init__(self, card_id: _Optional[str] = ..., topic: _Optional[int] = ..., voter_group: _Optional[int] = ..., turnout_change: _Optional[int] = ..., scandal_colour: _Optional[int] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsCatalogueProgrammeCard(_message.Message):
    __slots__ = ("card_id", "topic", "condition", "reward", "penalty", "source")
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    CONDITION_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    PENALTY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    topic: int
    condition: SpinDoctorsProgrammeCondition
    reward: int
    penalty: int
    source: _catalogue_pb2.ContentSource
    def __init__(self, card_id: _Optional[str] = ..., topic: _Optional[int] = ..., condition: _Optional[_Union[SpinDoctorsProgrammeCondition, str]] = ..., reward: _Optional[int] = ..., penalty: _Optional[int] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsCatalogueAction(_message.Message):
    __slots__ = ("action", "name", "place", "red", "target", "act_fields", "text", "source")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    RED_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    ACT_FIELDS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    action: str
    name: str
    place: SpinDoctorsActionPlace
    red: bool
    target: SpinDoctorsActionTarget
    act_fields: _containers.RepeatedScalarFieldContainer[str]
    text: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, action: _Optional[str] = ..., name: _Optional[str] = ..., place: _Optional[_Union[SpinDoctorsActionPlace, str]] = ..., red: _Optional[bool] = ..., target: _Optional[_Union[SpinDoctorsActionTarget, str]] = ..., act_fields: _Optional[_Iterable[str]] = ..., text: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsCatalogueStaffer(_message.Message):
    __slots__ = ("staffer", "id", "name", "basic_cost", "basic_actions", "special_cost", "special_actions", "source")
    STAFFER_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    BASIC_COST_FIELD_NUMBER: _ClassVar[int]
    BASIC_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    SPECIAL_COST_FIELD_NUMBER: _ClassVar[int]
    SPECIAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    staffer: int
    id: str
    name: str
    basic_cost: int
    basic_actions: _containers.RepeatedScalarFieldContainer[str]
    special_cost: int
    special_actions: _containers.RepeatedScalarFieldContainer[str]
    source: _catalogue_pb2.ContentSource
    def __init__(self, staffer: _Optional[int] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., basic_cost: _Optional[int] = ..., basic_actions: _Optional[_Iterable[str]] = ..., special_cost: _Optional[int] = ..., special_actions: _Optional[_Iterable[str]] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsReadyMadeStaff(_message.Message):
    __slots__ = ("staff", "staffers", "text", "source")
    STAFF_FIELD_NUMBER: _ClassVar[int]
    STAFFERS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    staff: int
    staffers: _containers.RepeatedScalarFieldContainer[int]
    text: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, staff: _Optional[int] = ..., staffers: _Optional[_Iterable[int]] = ..., text: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class SpinDoctorsCatalogue(_message.Message):
    __slots__ = ("voter_groups", "topics", "colours", "voter_traits", "fields", "localities", "news_track", "round_counter", "start", "turnout_cards", "topic_cards", "news_cards", "programme_cards", "actions", "staffers", "ready_made_staffs")
    VOTER_GROUPS_FIELD_NUMBER: _ClassVar[int]
    TOPICS_FIELD_NUMBER: _ClassVar[int]
    COLOURS_FIELD_NUMBER: _ClassVar[int]
    VOTER_TRAITS_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    LOCALITIES_FIELD_NUMBER: _ClassVar[int]
    NEWS_TRACK_FIELD_NUMBER: _ClassVar[int]
    ROUND_COUNTER_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    TURNOUT_CARDS_FIELD_NUMBER: _ClassVar[int]
    TOPIC_CARDS_FIELD_NUMBER: _ClassVar[int]
    NEWS_CARDS_FIELD_NUMBER: _ClassVar[int]
    PROGRAMME_CARDS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    STAFFERS_FIELD_NUMBER: _ClassVar[int]
    READY_MADE_STAFFS_FIELD_NUMBER: _ClassVar[int]
    voter_groups: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueVoterGroup]
    topics: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueTopic]
    colours: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueColour]
    voter_traits: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueVoterTrait]
    fields: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueField]
    localities: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueLocality]
    news_track: SpinDoctorsNewsTrack
    round_counter: SpinDoctorsRoundCounter
    start: SpinDoctorsStartSupplies
    turnout_cards: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueTurnoutCard]
    topic_cards: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueTopicCard]
    news_cards: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueNewsCard]
    programme_cards: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueProgrammeCard]
    actions: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueAction]
    staffers: _containers.RepeatedCompositeFieldContainer[SpinDoctorsCatalogueStaffer]
    ready_made_staffs: _containers.RepeatedCompositeFieldContainer[SpinDoctorsReadyMadeStaff]
    def __init__(self, voter_groups: _Optional[_Iterable[_Union[SpinDoctorsCatalogueVoterGroup, _Mapping]]] = ..., topics: _Optional[_Iterable[_Union[SpinDoctorsCatalogueTopic, _Mapping]]] = ..., colours: _Optional[_Iterable[_Union[SpinDoctorsCatalogueColour, _Mapping]]] = ..., voter_traits: _Optional[_Iterable[_Union[SpinDoctorsCatalogueVoterTrait, _Mapping]]] = ..., fields: _Optional[_Iterable[_Union[SpinDoctorsCatalogueField, _Mapping]]] = ..., localities: _Optional[_Iterable[_Union[SpinDoctorsCatalogueLocality, _Mapping]]] = ..., news_track: _Optional[_Union[SpinDoctorsNewsTrack, _Mapping]] = ..., round_counter: _Optional[_Union[SpinDoctorsRoundCounter, _Mapping]] = ..., start: _Optional[_Union[SpinDoctorsStartSupplies, _Mapping]] = ..., turnout_cards: _Optional[_Iterable[_Union[SpinDoctorsCatalogueTurnoutCard, _Mapping]]] = ..., topic_cards: _Optional[_Iterable[_Union[SpinDoctorsCatalogueTopicCard, _Mapping]]] = ..., news_cards: _Optional[_Iterable[_Union[SpinDoctorsCatalogueNewsCard, _Mapping]]] = ..., programme_cards: _Optional[_Iterable[_Union[SpinDoctorsCatalogueProgrammeCard, _Mapping]]] = ..., actions: _Optional[_Iterable[_Union[SpinDoctorsCatalogueAction, _Mapping]]] = ..., staffers: _Optional[_Iterable[_Union[SpinDoctorsCatalogueStaffer, _Mapping]]] = ..., ready_made_staffs: _Optional[_Iterable[_Union[SpinDoctorsReadyMadeStaff, _Mapping]]] = ...) -> None: ...
