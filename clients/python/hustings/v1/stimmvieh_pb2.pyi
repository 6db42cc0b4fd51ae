from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StimmviehCardType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STIMMVIEH_CARD_TYPE_UNSPECIFIED: _ClassVar[StimmviehCardType]
    STIMMVIEH_CARD_TYPE_VOTE: _ClassVar[StimmviehCardType]
    STIMMVIEH_CARD_TYPE_DONATION: _ClassVar[StimmviehCardType]

class StimmviehPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STIMMVIEH_PHASE_UNSPECIFIED: _ClassVar[StimmviehPhase]
    STIMMVIEH_PHASE_CHOOSING_TOP_CANDIDATES: _ClassVar[StimmviehPhase]
    STIMMVIEH_PHASE_CAMPAIGN: _ClassVar[StimmviehPhase]
    STIMMVIEH_PHASE_FINISHED: _ClassVar[StimmviehPhase]
STIMMVIEH_CARD_TYPE_UNSPECIFIED: StimmviehCardType
STIMMVIEH_CARD_TYPE_VOTE: StimmviehCardType
STIMMVIEH_CARD_TYPE_DONATION: StimmviehCardType
STIMMVIEH_PHASE_UNSPECIFIED: StimmviehPhase
STIMMVIEH_PHASE_CHOOSING_TOP_CANDIDATES: StimmviehPhase
STIMMVIEH_PHASE_CAMPAIGN: StimmviehPhase
STIMMVIEH_PHASE_FINISHED: StimmviehPhase

class StimmviehOptions(_message.Message):
    __slots__ = ("moderator", "moderator_seat", "campaigns", "custom_vote_card")
    MODERATOR_FIELD_NUMBER: _ClassVar[int]
    MODERATOR_SEAT_FIELD_NUMBER: _ClassVar[int]
    CAMPAIGNS_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_VOTE_CARD_FIELD_NUMBER: _ClassVar[int]
    moderator: bool
    moderator_seat: int
    campaigns: int
    custom_vote_card: StimmviehCustomVoteCard
    def __init__(self, moderator: _Optional[bool] = ..., moderator_seat: _Optional[int] = ..., campaigns: _Optional[int] = ..., custom_vote_card: _Optional[_Union[StimmviehCustomVoteCard, _Mapping]] = ...) -> None: ...

class StimmviehCustomVoteCard(_message.Message):
    __slots__ = ("slogan", "replaces_card_id")
    SLOGAN_FIELD_NUMBER: _ClassVar[int]
    REPLACES_CARD_ID_FIELD_NUMBER: _ClassVar[int]
    slogan: str
    replaces_card_id: str
    def __init__(self, slogan: _Optional[str] = ..., replaces_card_id: _Optional[str] = ...) -> None: ...

class StimmviehCard(_message.Message):
    __slots__ = ("card_id", "type", "amount", "influence", "label")
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    INFLUENCE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    type: StimmviehCardType
    amount: int
    influence: int
    label: str
    def __init__(self, card_id: _Optional[str] = ..., type: _Optional[_Union[StimmviehCardType, str]] = ..., amount: _Optional[int] = ..., influence: _Optional[int] = ..., label: _Optional[str] = ...) -> None: ...

class StimmviehMove(_message.Message):
    __slots__ = ("choose_top_candidates", "play_politician")
    CHOOSE_TOP_CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    PLAY_POLITICIAN_FIELD_NUMBER: _ClassVar[int]
    choose_top_candidates: StimmviehChooseTopCandidates
    play_politician: StimmviehPlayPolitician
    def __init__(self, choose_top_candidates: _Optional[_Union[StimmviehChooseTopCandidates, _Mapping]] = ..., play_politician: _Optional[_Union[StimmviehPlayPolitician, _Mapping]] = ...) -> None: ...

class StimmviehChooseTopCandidates(_message.Message):
    __slots__ = ("influences",)
    INFLUENCES_FIELD_NUMBER: _ClassVar[int]
    influences: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, influences: _Optional[_Iterable[int]] = ...) -> None: ...

class StimmviehPlayPolitician(_message.Message):
    __slots__ = ("influence", "take_card_id")
    INFLUENCE_FIELD_NUMBER: _ClassVar[int]
    TAKE_CARD_ID_FIELD_NUMBER: _ClassVar[int]
    influence: int
    take_card_id: str
    def __init__(self, influence: _Optional[int] = ..., take_card_id: _Optional[str] = ...) -> None: ...

class StimmviehCollectedStack(_message.Message):
    __slots__ = ("top_card", "count", "cards", "total")
    TOP_CARD_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    top_card: StimmviehCard
    count: int
    cards: _containers.RepeatedCompositeFieldContainer[StimmviehCard]
    total: int
    def __init__(self, top_card: _Optional[_Union[StimmviehCard, _Mapping]] = ..., count: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[StimmviehCard, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class StimmviehParty(_message.Message):
    __slots__ = ("party", "seat", "name", "angelus", "top_candidates_chosen", "top_candidates", "backbenchers", "backbencher_count", "votes", "donations", "campaign_points", "chosen_top_candidates", "played")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ANGELUS_FIELD_NUMBER: _ClassVar[int]
    TOP_CANDIDATES_CHOSEN_FIELD_NUMBER: _ClassVar[int]
    TOP_CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    BACKBENCHERS_FIELD_NUMBER: _ClassVar[int]
    BACKBENCHER_COUNT_FIELD_NUMBER: _ClassVar[int]
    VOTES_FIELD_NUMBER: _ClassVar[int]
    DONATIONS_FIELD_NUMBER: _ClassVar[int]
    CAMPAIGN_POINTS_FIELD_NUMBER: _ClassVar[int]
    CHOSEN_TOP_CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    party: int
    seat: int
    name: str
    angelus: bool
    top_candidates_chosen: bool
    top_candidates: _containers.RepeatedScalarFieldContainer[int]
    backbenchers: _containers.RepeatedScalarFieldContainer[int]
    backbencher_count: int
    votes: StimmviehCollectedStack
    donations: StimmviehCollectedStack
    campaign_points: int
    chosen_top_candidates: _containers.RepeatedScalarFieldContainer[int]
    played: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, party: _Optional[int] = ..., seat: _Optional[int] = ..., name: _Optional[str] = ..., angelus: _Optional[bool] = ..., top_candidates_chosen: _Optional[bool] = ..., top_candidates: _Optional[_Iterable[int]] = ..., backbenchers: _Optional[_Iterable[int]] = ..., backbencher_count: _Optional[int] = ..., votes: _Optional[_Union[StimmviehCollectedStack, _Mapping]] = ..., donations: _Optional[_Union[StimmviehCollectedStack, _Mapping]] = ..., campaign_points: _Optional[int] = ..., chosen_top_candidates: _Optional[_Iterable[int]] = ..., played: _Optional[_Iterable[int]] = ...) -> None: ...

class StimmviehCampaignResult(_message.Message):
    __slots__ = ("party", "votes", "vote_influence", "doubled", "donations", "final_donations", "rank", "points")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    VOTES_FIELD_NUMBER: _ClassVar[int]
    VOTE_INFLUENCE_FIELD_NUMBER: _ClassVar[int]
    DOUBLED_FIELD_NUMBER: _ClassVar[int]
    DONATIONS_FIELD_NUMBER: _ClassVar[int]
    FINAL_DONATIONS_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    party: int
    votes: int
    vote_influence: int
    doubled: bool
    donations: int
    final_donations: int
    rank: int
    points: int
    def __init__(self, party: _Optional[int] = ..., votes: _Optional[int] = ..., vote_influence: _Optional[int] = ..., doubled: _Optional[bool] = ..., donations: _Optional[int] = ..., final_donations: _Optional[int] = ..., rank: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class StimmviehCampaign(_message.Message):
    __slots__ = ("campaign", "results")
    CAMPAIGN_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    campaign: int
    results: _containers.RepeatedCompositeFieldContainer[StimmviehCampaignResult]
    def __init__(self, campaign: _Optional[int] = ..., results: _Optional[_Iterable[_Union[StimmviehCampaignResult, _Mapping]]] = ...) -> None: ...

class StimmviehView(_message.Message):
    __slots__ = ("campaign", "campaigns", "round", "phase", "parties", "display", "vote_stack_top", "vote_stack_count", "donation_stack_top", "donation_stack_count", "current_party", "angelus_holder", "start_party", "moderator_seat", "top_candidate_discards", "backbencher_discards", "campaign_results")
    CAMPAIGN_FIELD_NUMBER: _ClassVar[int]
    CAMPAIGNS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    PARTIES_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    VOTE_STACK_TOP_FIELD_NUMBER: _ClassVar[int]
    VOTE_STACK_COUNT_FIELD_NUMBER: _ClassVar[int]
    DONATION_STACK_TOP_FIELD_NUMBER: _ClassVar[int]
    DONATION_STACK_COUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PARTY_FIELD_NUMBER: _ClassVar[int]
    ANGELUS_HOLDER_FIELD_NUMBER: _ClassVar[int]
    START_PARTY_FIELD_NUMBER: _ClassVar[int]
    MODERATOR_SEAT_FIELD_NUMBER: _ClassVar[int]
    TOP_CANDIDATE_DISCARDS_FIELD_NUMBER: _ClassVar[int]
    BACKBENCHER_DISCARDS_FIELD_NUMBER: _ClassVar[int]
    CAMPAIGN_RESULTS_FIELD_NUMBER: _ClassVar[int]
    campaign: int
    campaigns: int
    round: int
    phase: StimmviehPhase
    parties: _containers.RepeatedCompositeFieldContainer[StimmviehParty]
    display: _containers.RepeatedCompositeFieldContainer[StimmviehCard]
    vote_stack_top: StimmviehCard
    vote_stack_count: int
    donation_stack_top: StimmviehCard
    donation_stack_count: int
    current_party: int
    angelus_holder: int
    start_party: int
    moderator_seat: int
    top_candidate_discards: _containers.RepeatedScalarFieldContainer[int]
    backbencher_discards: _containers.RepeatedScalarFieldContainer[int]
    campaign_results: _containers.RepeatedCompositeFieldContainer[StimmviehCampaign]
    def __init__(self, campaign: _Optional[int] = ..., campaigns: _Optional[int] = ..., round: _Optional[int] = ..., phase: _Optional[_Union[StimmviehPhase, str]] = ..., parties: _Optional[_Iterable[_Union[StimmviehParty, _Mapping]]] = ..., display: _Optional[_Iterable[_Union[StimmviehCard, _Mapping]]] = ..., vote_stack_top: _Optional[_Union[StimmviehCard, _Mapping]] = ..., vote_stack_count: _Optional[int] = ..., donation_stack_top: _Optional[_Union[StimmviehCard, _Mapping]] = ..., donation_stack_count: _Optional[int] = ..., current_party: _Optional[int] = ..., angelus_holder: _Optional[int] = ..., start_party: _Optional[int] = ..., moderator_seat: _Optional[int] = ..., top_candidate_discards: _Optional[_Iterable[int]] = ..., backbencher_discards: _Optional[_Iterable[int]] = ..., campaign_results: _Optional[_Iterable[_Union[StimmviehCampaign, _Mapping]]] = ...) -> None: ...

class StimmviehEvent(_message.Message):
    __slots__ = ("campaign_started", "top_candidates_chosen", "top_candidates_revealed", "start_player_chosen", "politician_played", "display_refilled", "election_night", "angelus_card_passed")
    CAMPAIGN_STARTED_FIELD_NUMBER: _ClassVar[int]
    TOP_CANDIDATES_CHOSEN_FIELD_NUMBER: _ClassVar[int]
    TOP_CANDIDATES_REVEALED_FIELD_NUMBER: _ClassVar[int]
    START_PLAYER_CHOSEN_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_PLAYED_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_REFILLED_FIELD_NUMBER: _ClassVar[int]
    ELECTION_NIGHT_FIELD_NUMBER: _ClassVar[int]
    ANGELUS_CARD_PASSED_FIELD_NUMBER: _ClassVar[int]
    campaign_started: StimmviehCampaignStarted
    top_candidates_chosen: StimmviehTopCandidatesChosen
    top_candidates_revealed: StimmviehTopCandidatesRevealed
    start_player_chosen: StimmviehStartPlayerChosen
    politician_played: StimmviehPoliticianPlayed
    display_refilled: StimmviehDisplayRefilled
    election_night: StimmviehCampaign
    angelus_card_passed: StimmviehAngelusCardPassed
    def __init__(self, campaign_started: _Optional[_Union[StimmviehCampaignStarted, _Mapping]] = ..., top_candidates_chosen: _Optional[_Union[StimmviehTopCandidatesChosen, _Mapping]] = ..., top_candidates_revealed: _Optional[_Union[StimmviehTopCandidatesRevealed, _Mapping]] = ..., start_player_chosen: _Optional[_Union[StimmviehStartPlayerChosen, _Mapping]] = ..., politician_played: _Optional[_Union[StimmviehPoliticianPlayed, _Mapping]] = ..., display_refilled: _Optional[_Union[StimmviehDisplayRefilled, _Mapping]] = ..., election_night: _Optional[_Union[StimmviehCampaign, _Mapping]] = ..., angelus_card_passed: _Optional[_Union[StimmviehAngelusCardPassed, _Mapping]] = ...) -> None: ...

class StimmviehCampaignStarted(_message.Message):
    __slots__ = ("campaign", "display", "vote_stack_top", "donation_stack_top")
    CAMPAIGN_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    VOTE_STACK_TOP_FIELD_NUMBER: _ClassVar[int]
    DONATION_STACK_TOP_FIELD_NUMBER: _ClassVar[int]
    campaign: int
    display: _containers.RepeatedCompositeFieldContainer[StimmviehCard]
    vote_stack_top: StimmviehCard
    donation_stack_top: StimmviehCard
    def __init__(self, campaign: _Optional[int] = ..., display: _Optional[_Iterable[_Union[StimmviehCard, _Mapping]]] = ..., vote_stack_top: _Optional[_Union[StimmviehCard, _Mapping]] = ..., donation_stack_top: _Optional[_Union[StimmviehCard, _Mapping]] = ...) -> None: ...

class StimmviehTopCandidatesChosen(_message.Message):
    __slots__ = ("party", "influences")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    INFLUENCES_FIELD_NUMBER: _ClassVar[int]
    party: int
    influences: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, party: _Optional[int] = ..., influences: _Optional[_Iterable[int]] = ...) -> None: ...

class StimmviehTopCandidatesRevealed(_message.Message):
    __slots__ = ("parties",)
    PARTIES_FIELD_NUMBER: _ClassVar[int]
    parties: _containers.RepeatedCompositeFieldContainer[StimmviehRevealedTopCandidates]
    def __init__(self, parties: _Optional[_Iterable[_Union[StimmviehRevealedTopCandidates, _Mapping]]] = ...) -> None: ...

class StimmviehRevealedTopCandidates(_message.Message):
    __slots__ = ("party", "influences", "total")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    INFLUENCES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    party: int
    influences: _containers.RepeatedScalarFieldContainer[int]
    total: int
    def __init__(self, party: _Optional[int] = ..., influences: _Optional[_Iterable[int]] = ..., total: _Optional[int] = ...) -> None: ...

class StimmviehTieFlip(_message.Message):
    __slots__ = ("party", "influence")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    INFLUENCE_FIELD_NUMBER: _ClassVar[int]
    party: int
    influence: int
    def __init__(self, party: _Optional[int] = ..., influence: _Optional[int] = ...) -> None: ...

class StimmviehStartPlayerChosen(_message.Message):
    __slots__ = ("party", "reason", "flips", "angelus_holder")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FLIPS_FIELD_NUMBER: _ClassVar[int]
    ANGELUS_HOLDER_FIELD_NUMBER: _ClassVar[int]
    party: int
    reason: str
    flips: _containers.RepeatedCompositeFieldContainer[StimmviehTieFlip]
    angelus_holder: int
    def __init__(self, party: _Optional[int] = ..., reason: _Optional[str] = ..., flips: _Optional[_Iterable[_Union[StimmviehTieFlip, _Mapping]]] = ..., angelus_holder: _Optional[int] = ...) -> None: ...

class StimmviehPoliticianPlayed(_message.Message):
    __slots__ = ("party", "influence", "top_candidate", "taken", "decided_by")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    INFLUENCE_FIELD_NUMBER: _ClassVar[int]
    TOP_CANDIDATE_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    DECIDED_BY_FIELD_NUMBER: _ClassVar[int]
    party: int
    influence: int
    top_candidate: bool
    taken: StimmviehCard
    decided_by: int
    def __init__(self, party: _Optional[int] = ..., influence: _Optional[int] = ..., top_candidate: _Optional[bool] = ..., taken: _Optional[_Union[StimmviehCard, _Mapping]] = ..., decided_by: _Optional[int] = ...) -> None: ...

class StimmviehDisplayRefilled(_message.Message):
    __slots__ = ("card", "new_stack_top")
    CARD_FIELD_NUMBER: _ClassVar[int]
    NEW_STACK_TOP_FIELD_NUMBER: _ClassVar[int]
    card: StimmviehCard
    new_stack_top: StimmviehCard
    def __init__(self, card: _Optional[_Union[StimmviehCard, _Mapping]] = ..., new_stack_top: _Optional[_Union[StimmviehCard, _Mapping]] = ...) -> None: ...

class StimmviehAngelusCardPassed(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...
