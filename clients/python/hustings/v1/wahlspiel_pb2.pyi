from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WahlspielFieldKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WAHLSPIEL_FIELD_KIND_UNSPECIFIED: _ClassVar[WahlspielFieldKind]
    WAHLSPIEL_FIELD_KIND_START: _ClassVar[WahlspielFieldKind]
    WAHLSPIEL_FIELD_KIND_VOTER_PURCHASE: _ClassVar[WahlspielFieldKind]
    WAHLSPIEL_FIELD_KIND_EVENT_PURCHASE: _ClassVar[WahlspielFieldKind]
    WAHLSPIEL_FIELD_KIND_PRIZE: _ClassVar[WahlspielFieldKind]
    WAHLSPIEL_FIELD_KIND_VOTING: _ClassVar[WahlspielFieldKind]
    WAHLSPIEL_FIELD_KIND_SENSATION: _ClassVar[WahlspielFieldKind]
    WAHLSPIEL_FIELD_KIND_CANDIDATE_CHANGE: _ClassVar[WahlspielFieldKind]
    WAHLSPIEL_FIELD_KIND_COALITION: _ClassVar[WahlspielFieldKind]
    WAHLSPIEL_FIELD_KIND_KANTONSRAT: _ClassVar[WahlspielFieldKind]
    WAHLSPIEL_FIELD_KIND_NATIONALRAT: _ClassVar[WahlspielFieldKind]
    WAHLSPIEL_FIELD_KIND_BUNDESRAT: _ClassVar[WahlspielFieldKind]

class WahlspielCardKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WAHLSPIEL_CARD_KIND_UNSPECIFIED: _ClassVar[WahlspielCardKind]
    WAHLSPIEL_CARD_KIND_VOTER: _ClassVar[WahlspielCardKind]
    WAHLSPIEL_CARD_KIND_EVENT: _ClassVar[WahlspielCardKind]

class WahlspielStep(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WAHLSPIEL_STEP_UNSPECIFIED: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_NOMINATING: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_BUYING_VOTERS: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_BUYING_EVENTS: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_VOTING: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_BALLOT: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_SENSATION: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_CHANGING_CANDIDATE: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_CHOOSING_PARTNER: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_OFFERING: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_ANSWERING: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_GOAL_VOTES: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_RUNOFF: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_FINISHED: _ClassVar[WahlspielStep]
    WAHLSPIEL_STEP_HANDING_OVER: _ClassVar[WahlspielStep]
WAHLSPIEL_FIELD_KIND_UNSPECIFIED: WahlspielFieldKind
WAHLSPIEL_FIELD_KIND_START: WahlspielFieldKind
WAHLSPIEL_FIELD_KIND_VOTER_PURCHASE: WahlspielFieldKind
WAHLSPIEL_FIELD_KIND_EVENT_PURCHASE: WahlspielFieldKind
WAHLSPIEL_FIELD_KIND_PRIZE: WahlspielFieldKind
WAHLSPIEL_FIELD_KIND_VOTING: WahlspielFieldKind
WAHLSPIEL_FIELD_KIND_SENSATION: WahlspielFieldKind
WAHLSPIEL_FIELD_KIND_CANDIDATE_CHANGE: WahlspielFieldKind
WAHLSPIEL_FIELD_KIND_COALITION: WahlspielFieldKind
WAHLSPIEL_FIELD_KIND_KANTONSRAT: WahlspielFieldKind
WAHLSPIEL_FIELD_KIND_NATIONALRAT: WahlspielFieldKind
WAHLSPIEL_FIELD_KIND_BUNDESRAT: WahlspielFieldKind
WAHLSPIEL_CARD_KIND_UNSPECIFIED: WahlspielCardKind
WAHLSPIEL_CARD_KIND_VOTER: WahlspielCardKind
WAHLSPIEL_CARD_KIND_EVENT: WahlspielCardKind
WAHLSPIEL_STEP_UNSPECIFIED: WahlspielStep
WAHLSPIEL_STEP_NOMINATING: WahlspielStep
WAHLSPIEL_STEP_BUYING_VOTERS: WahlspielStep
WAHLSPIEL_STEP_BUYING_EVENTS: WahlspielStep
WAHLSPIEL_STEP_VOTING: WahlspielStep
WAHLSPIEL_STEP_BALLOT: WahlspielStep
WAHLSPIEL_STEP_SENSATION: WahlspielStep
WAHLSPIEL_STEP_CHANGING_CANDIDATE: WahlspielStep
WAHLSPIEL_STEP_CHOOSING_PARTNER: WahlspielStep
WAHLSPIEL_STEP_OFFERING: WahlspielStep
WAHLSPIEL_STEP_ANSWERING: WahlspielStep
WAHLSPIEL_STEP_GOAL_VOTES: WahlspielStep
WAHLSPIEL_STEP_RUNOFF: WahlspielStep
WAHLSPIEL_STEP_FINISHED: WahlspielStep
WAHLSPIEL_STEP_HANDING_OVER: WahlspielStep

class WahlspielOptions(_message.Message):
    __slots__ = ("gnomes", "single_national_candidate")
    GNOMES_FIELD_NUMBER: _ClassVar[int]
    SINGLE_NATIONAL_CANDIDATE_FIELD_NUMBER: _ClassVar[int]
    gnomes: bool
    single_national_candidate: bool
    def __init__(self, gnomes: _Optional[bool] = ..., single_national_candidate: _Optional[bool] = ...) -> None: ...

class WahlspielField(_message.Message):
    __slots__ = ("kind", "prize_voters", "prize_events")
    KIND_FIELD_NUMBER: _ClassVar[int]
    PRIZE_VOTERS_FIELD_NUMBER: _ClassVar[int]
    PRIZE_EVENTS_FIELD_NUMBER: _ClassVar[int]
    kind: WahlspielFieldKind
    prize_voters: int
    prize_events: int
    def __init__(self, kind: _Optional[_Union[WahlspielFieldKind, str]] = ..., prize_voters: _Optional[int] = ..., prize_events: _Optional[int] = ...) -> None: ...

class WahlspielPolitician(_message.Message):
    __slots__ = ("politician_id", "name", "sex", "age", "occupation", "traits", "symbols")
    POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SEX_FIELD_NUMBER: _ClassVar[int]
    AGE_FIELD_NUMBER: _ClassVar[int]
    OCCUPATION_FIELD_NUMBER: _ClassVar[int]
    TRAITS_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    politician_id: str
    name: str
    sex: str
    age: int
    occupation: str
    traits: _containers.RepeatedScalarFieldContainer[str]
    symbols: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, politician_id: _Optional[str] = ..., name: _Optional[str] = ..., sex: _Optional[str] = ..., age: _Optional[int] = ..., occupation: _Optional[str] = ..., traits: _Optional[_Iterable[str]] = ..., symbols: _Optional[_Iterable[str]] = ...) -> None: ...

class WahlspielCard(_message.Message):
    __slots__ = ("card_id", "kind", "text", "symbols", "opinion")
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    OPINION_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    kind: WahlspielCardKind
    text: str
    symbols: _containers.RepeatedScalarFieldContainer[str]
    opinion: str
    def __init__(self, card_id: _Optional[str] = ..., kind: _Optional[_Union[WahlspielCardKind, str]] = ..., text: _Optional[str] = ..., symbols: _Optional[_Iterable[str]] = ..., opinion: _Optional[str] = ...) -> None: ...

class WahlspielMove(_message.Message):
    __slots__ = ("nominate", "buy_voters", "buy_events", "cast_voter", "play_event", "change_candidate", "choose_partner", "offer_trade", "answer_trade", "judge", "goal_vote", "send_runoff_voter", "propose_offer")
    NOMINATE_FIELD_NUMBER: _ClassVar[int]
    BUY_VOTERS_FIELD_NUMBER: _ClassVar[int]
    BUY_EVENTS_FIELD_NUMBER: _ClassVar[int]
    CAST_VOTER_FIELD_NUMBER: _ClassVar[int]
    PLAY_EVENT_FIELD_NUMBER: _ClassVar[int]
    CHANGE_CANDIDATE_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_PARTNER_FIELD_NUMBER: _ClassVar[int]
    OFFER_TRADE_FIELD_NUMBER: _ClassVar[int]
    ANSWER_TRADE_FIELD_NUMBER: _ClassVar[int]
    JUDGE_FIELD_NUMBER: _ClassVar[int]
    GOAL_VOTE_FIELD_NUMBER: _ClassVar[int]
    SEND_RUNOFF_VOTER_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    PROPOSE_OFFER_FIELD_NUMBER: _ClassVar[int]
    nominate: WahlspielNominate
    buy_voters: WahlspielBuy
    buy_events: WahlspielBuy
    cast_voter: WahlspielCastVoter
    play_event: WahlspielPlayEvent
    change_candidate: WahlspielChangeCandidate
    choose_partner: WahlspielChoosePartner
    offer_trade: WahlspielOfferTrade
    answer_trade: WahlspielAnswerTrade
    judge: WahlspielJudge
    goal_vote: WahlspielGoalVote
    send_runoff_voter: WahlspielSendRunoffVoter
    propose_offer: WahlspielProposeOffer
    def __init__(self, nominate: _Optional[_Union[WahlspielNominate, _Mapping]] = ..., buy_voters: _Optional[_Union[WahlspielBuy, _Mapping]] = ..., buy_events: _Optional[_Union[WahlspielBuy, _Mapping]] = ..., cast_voter: _Optional[_Union[WahlspielCastVoter, _Mapping]] = ..., play_event: _Optional[_Union[WahlspielPlayEvent, _Mapping]] = ..., change_candidate: _Optional[_Union[WahlspielChangeCandidate, _Mapping]] = ..., choose_partner: _Optional[_Union[WahlspielChoosePartner, _Mapping]] = ..., offer_trade: _Optional[_Union[WahlspielOfferTrade, _Mapping]] = ..., answer_trade: _Optional[_Union[WahlspielAnswerTrade, _Mapping]] = ..., judge: _Optional[_Union[WahlspielJudge, _Mapping]] = ..., goal_vote: _Optional[_Union[WahlspielGoalVote, _Mapping]] = ..., send_runoff_voter: _Optional[_Union[WahlspielSendRunoffVoter, _Mapping]] = ..., propose_offer: _Optional[_Union[WahlspielProposeOffer, _Mapping]] = ..., **kwargs) -> None: ...

class WahlspielNominate(_message.Message):
    __slots__ = ("politician_id",)
    POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    politician_id: str
    def __init__(self, politician_id: _Optional[str] = ...) -> None: ...

class WahlspielBuy(_message.Message):
    __slots__ = ("count",)
    COUNT_FIELD_NUMBER: _ClassVar[int]
    count: int
    def __init__(self, count: _Optional[int] = ...) -> None: ...

class WahlspielCastVoter(_message.Message):
    __slots__ = ("card_id",)
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    def __init__(self, card_id: _Optional[str] = ...) -> None: ...

class WahlspielPlayEvent(_message.Message):
    __slots__ = ("card_id", "politician_ids", "party")
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    PARTY_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    party: int
    def __init__(self, card_id: _Optional[str] = ..., politician_ids: _Optional[_Iterable[str]] = ..., party: _Optional[int] = ...) -> None: ...

class WahlspielChangeCandidate(_message.Message):
    __slots__ = ("withdraw_politician_id", "nominate_politician_id")
    WITHDRAW_POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    NOMINATE_POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    withdraw_politician_id: str
    nominate_politician_id: str
    def __init__(self, withdraw_politician_id: _Optional[str] = ..., nominate_politician_id: _Optional[str] = ...) -> None: ...

class WahlspielChoosePartner(_message.Message):
    __slots__ = ("party",)
    PARTY_FIELD_NUMBER: _ClassVar[int]
    party: int
    def __init__(self, party: _Optional[int] = ...) -> None: ...

class WahlspielOfferTrade(_message.Message):
    __slots__ = ("give_card_id", "give_money", "ask_kind", "ask_money")
    GIVE_CARD_ID_FIELD_NUMBER: _ClassVar[int]
    GIVE_MONEY_FIELD_NUMBER: _ClassVar[int]
    ASK_KIND_FIELD_NUMBER: _ClassVar[int]
    ASK_MONEY_FIELD_NUMBER: _ClassVar[int]
    give_card_id: str
    give_money: int
    ask_kind: WahlspielCardKind
    ask_money: int
    def __init__(self, give_card_id: _Optional[str] = ..., give_money: _Optional[int] = ..., ask_kind: _Optional[_Union[WahlspielCardKind, str]] = ..., ask_money: _Optional[int] = ...) -> None: ...

class WahlspielProposeOffer(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WahlspielAnswerTrade(_message.Message):
    __slots__ = ("accept", "card_id")
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    accept: bool
    card_id: str
    def __init__(self, accept: _Optional[bool] = ..., card_id: _Optional[str] = ...) -> None: ...

class WahlspielJudge(_message.Message):
    __slots__ = ("politician_id", "verdict")
    POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    politician_id: str
    verdict: bool
    def __init__(self, politician_id: _Optional[str] = ..., verdict: _Optional[bool] = ...) -> None: ...

class WahlspielGoalVote(_message.Message):
    __slots__ = ("politician_id",)
    POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    politician_id: str
    def __init__(self, politician_id: _Optional[str] = ...) -> None: ...

class WahlspielSendRunoffVoter(_message.Message):
    __slots__ = ("card_id",)
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    def __init__(self, card_id: _Optional[str] = ...) -> None: ...

class WahlspielPass(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WahlspielParty(_message.Message):
    __slots__ = ("party", "name", "colour", "position", "money", "arrived", "politician_ids", "voter_count", "event_count", "voters", "events", "trades")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    MONEY_FIELD_NUMBER: _ClassVar[int]
    ARRIVED_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    VOTER_COUNT_FIELD_NUMBER: _ClassVar[int]
    EVENT_COUNT_FIELD_NUMBER: _ClassVar[int]
    VOTERS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    TRADES_FIELD_NUMBER: _ClassVar[int]
    party: int
    name: str
    colour: str
    position: int
    money: int
    arrived: bool
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    voter_count: int
    event_count: int
    voters: _containers.RepeatedCompositeFieldContainer[WahlspielCard]
    events: _containers.RepeatedCompositeFieldContainer[WahlspielCard]
    trades: int
    def __init__(self, party: _Optional[int] = ..., name: _Optional[str] = ..., colour: _Optional[str] = ..., position: _Optional[int] = ..., money: _Optional[int] = ..., arrived: _Optional[bool] = ..., politician_ids: _Optional[_Iterable[str]] = ..., voter_count: _Optional[int] = ..., event_count: _Optional[int] = ..., voters: _Optional[_Iterable[_Union[WahlspielCard, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[WahlspielCard, _Mapping]]] = ..., trades: _Optional[int] = ...) -> None: ...

class WahlspielCandidate(_message.Message):
    __slots__ = ("politician_id", "name", "party", "votes", "in_race", "councillor")
    POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARTY_FIELD_NUMBER: _ClassVar[int]
    VOTES_FIELD_NUMBER: _ClassVar[int]
    IN_RACE_FIELD_NUMBER: _ClassVar[int]
    COUNCILLOR_FIELD_NUMBER: _ClassVar[int]
    politician_id: str
    name: str
    party: int
    votes: int
    in_race: bool
    councillor: bool
    def __init__(self, politician_id: _Optional[str] = ..., name: _Optional[str] = ..., party: _Optional[int] = ..., votes: _Optional[int] = ..., in_race: _Optional[bool] = ..., councillor: _Optional[bool] = ...) -> None: ...

class WahlspielVerdict(_message.Message):
    __slots__ = ("judge", "politician_id", "verdict")
    JUDGE_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    judge: int
    politician_id: str
    verdict: bool
    def __init__(self, judge: _Optional[int] = ..., politician_id: _Optional[str] = ..., verdict: _Optional[bool] = ...) -> None: ...

class WahlspielBallot(_message.Message):
    __slots__ = ("card", "caster", "politician_ids", "judges", "verdicts", "verdict_judges")
    CARD_FIELD_NUMBER: _ClassVar[int]
    CASTER_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    JUDGES_FIELD_NUMBER: _ClassVar[int]
    VERDICTS_FIELD_NUMBER: _ClassVar[int]
    VERDICT_JUDGES_FIELD_NUMBER: _ClassVar[int]
    card: WahlspielCard
    caster: int
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    judges: _containers.RepeatedScalarFieldContainer[int]
    verdicts: _containers.RepeatedCompositeFieldContainer[WahlspielVerdict]
    verdict_judges: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, card: _Optional[_Union[WahlspielCard, _Mapping]] = ..., caster: _Optional[int] = ..., politician_ids: _Optional[_Iterable[str]] = ..., judges: _Optional[_Iterable[int]] = ..., verdicts: _Optional[_Iterable[_Union[WahlspielVerdict, _Mapping]]] = ..., verdict_judges: _Optional[_Iterable[int]] = ...) -> None: ...

class WahlspielOffer(_message.Message):
    __slots__ = ("give_kind", "give_card", "give_money", "ask_kind", "ask_money", "give_cards", "give_voter_count", "give_event_count", "ask_voter_count", "ask_event_count", "give_kinds")
    GIVE_KIND_FIELD_NUMBER: _ClassVar[int]
    GIVE_CARD_FIELD_NUMBER: _ClassVar[int]
    GIVE_MONEY_FIELD_NUMBER: _ClassVar[int]
    ASK_KIND_FIELD_NUMBER: _ClassVar[int]
    ASK_MONEY_FIELD_NUMBER: _ClassVar[int]
    GIVE_CARDS_FIELD_NUMBER: _ClassVar[int]
    GIVE_VOTER_COUNT_FIELD_NUMBER: _ClassVar[int]
    GIVE_EVENT_COUNT_FIELD_NUMBER: _ClassVar[int]
    ASK_VOTER_COUNT_FIELD_NUMBER: _ClassVar[int]
    ASK_EVENT_COUNT_FIELD_NUMBER: _ClassVar[int]
    GIVE_KINDS_FIELD_NUMBER: _ClassVar[int]
    give_kind: WahlspielCardKind
    give_card: WahlspielCard
    give_money: int
    ask_kind: WahlspielCardKind
    ask_money: int
    give_cards: _containers.RepeatedCompositeFieldContainer[WahlspielCard]
    give_voter_count: int
    give_event_count: int
    ask_voter_count: int
    ask_event_count: int
    give_kinds: _containers.RepeatedScalarFieldContainer[WahlspielCardKind]
    def __init__(self, give_kind: _Optional[_Union[WahlspielCardKind, str]] = ..., give_card: _Optional[_Union[WahlspielCard, _Mapping]] = ..., give_money: _Optional[int] = ..., ask_kind: _Optional[_Union[WahlspielCardKind, str]] = ..., ask_money: _Optional[int] = ..., give_cards: _Optional[_Iterable[_Union[WahlspielCard, _Mapping]]] = ..., give_voter_count: _Optional[int] = ..., give_event_count: _Optional[int] = ..., ask_voter_count: _Optional[int] = ..., ask_event_count: _Optional[int] = ..., give_kinds: _Optional[_Iterable[_Union[WahlspielCardKind, str]]] = ...) -> None: ...

class WahlspielCoalition(_message.Message):
    __slots__ = ("party", "partner", "offers", "pending", "proposer", "draft", "handed_count", "handed_cards", "handed_kinds")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    OFFERS_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    PROPOSER_FIELD_NUMBER: _ClassVar[int]
    DRAFT_FIELD_NUMBER: _ClassVar[int]
    HANDED_COUNT_FIELD_NUMBER: _ClassVar[int]
    HANDED_CARDS_FIELD_NUMBER: _ClassVar[int]
    HANDED_KINDS_FIELD_NUMBER: _ClassVar[int]
    party: int
    partner: int
    offers: int
    pending: WahlspielOffer
    proposer: int
    draft: WahlspielOffer
    handed_count: int
    handed_cards: _containers.RepeatedCompositeFieldContainer[WahlspielCard]
    handed_kinds: _containers.RepeatedScalarFieldContainer[WahlspielCardKind]
    def __init__(self, party: _Optional[int] = ..., partner: _Optional[int] = ..., offers: _Optional[int] = ..., pending: _Optional[_Union[WahlspielOffer, _Mapping]] = ..., proposer: _Optional[int] = ..., draft: _Optional[_Union[WahlspielOffer, _Mapping]] = ..., handed_count: _Optional[int] = ..., handed_cards: _Optional[_Iterable[_Union[WahlspielCard, _Mapping]]] = ..., handed_kinds: _Optional[_Iterable[_Union[WahlspielCardKind, str]]] = ...) -> None: ...

class WahlspielRunoff(_message.Message):
    __slots__ = ("politician_ids", "seats", "elected_politician_ids", "parties", "decided_parties", "sent_card", "voter_sent_parties", "closing_party")
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ELECTED_POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    PARTIES_FIELD_NUMBER: _ClassVar[int]
    DECIDED_PARTIES_FIELD_NUMBER: _ClassVar[int]
    SENT_CARD_FIELD_NUMBER: _ClassVar[int]
    VOTER_SENT_PARTIES_FIELD_NUMBER: _ClassVar[int]
    CLOSING_PARTY_FIELD_NUMBER: _ClassVar[int]
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    seats: int
    elected_politician_ids: _containers.RepeatedScalarFieldContainer[str]
    parties: _containers.RepeatedScalarFieldContainer[int]
    decided_parties: _containers.RepeatedScalarFieldContainer[int]
    sent_card: WahlspielCard
    voter_sent_parties: _containers.RepeatedScalarFieldContainer[int]
    closing_party: int
    def __init__(self, politician_ids: _Optional[_Iterable[str]] = ..., seats: _Optional[int] = ..., elected_politician_ids: _Optional[_Iterable[str]] = ..., parties: _Optional[_Iterable[int]] = ..., decided_parties: _Optional[_Iterable[int]] = ..., sent_card: _Optional[_Union[WahlspielCard, _Mapping]] = ..., voter_sent_parties: _Optional[_Iterable[int]] = ..., closing_party: _Optional[int] = ...) -> None: ...

class WahlspielView(_message.Message):
    __slots__ = ("round", "step", "current_party", "start_party", "first_arrived", "last_roll", "goal_votes", "board", "parties", "politicians", "candidates", "voter_stack_count", "event_stack_count", "ballot_box_card_ids", "event_discard_card_ids", "retired_politician_ids", "cantonal_councillor_ids", "national_councillor_ids", "federal_councillor_id", "ballot", "coalition", "runoff")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PARTY_FIELD_NUMBER: _ClassVar[int]
    START_PARTY_FIELD_NUMBER: _ClassVar[int]
    FIRST_ARRIVED_FIELD_NUMBER: _ClassVar[int]
    LAST_ROLL_FIELD_NUMBER: _ClassVar[int]
    GOAL_VOTES_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PARTIES_FIELD_NUMBER: _ClassVar[int]
    POLITICIANS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    VOTER_STACK_COUNT_FIELD_NUMBER: _ClassVar[int]
    EVENT_STACK_COUNT_FIELD_NUMBER: _ClassVar[int]
    BALLOT_BOX_CARD_IDS_FIELD_NUMBER: _ClassVar[int]
    EVENT_DISCARD_CARD_IDS_FIELD_NUMBER: _ClassVar[int]
    RETIRED_POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    CANTONAL_COUNCILLOR_IDS_FIELD_NUMBER: _ClassVar[int]
    NATIONAL_COUNCILLOR_IDS_FIELD_NUMBER: _ClassVar[int]
    FEDERAL_COUNCILLOR_ID_FIELD_NUMBER: _ClassVar[int]
    BALLOT_FIELD_NUMBER: _ClassVar[int]
    COALITION_FIELD_NUMBER: _ClassVar[int]
    RUNOFF_FIELD_NUMBER: _ClassVar[int]
    round: int
    step: WahlspielStep
    current_party: int
    start_party: int
    first_arrived: int
    last_roll: int
    goal_votes: int
    board: _containers.RepeatedCompositeFieldContainer[WahlspielField]
    parties: _containers.RepeatedCompositeFieldContainer[WahlspielParty]
    politicians: _containers.RepeatedCompositeFieldContainer[WahlspielPolitician]
    candidates: _containers.RepeatedCompositeFieldContainer[WahlspielCandidate]
    voter_stack_count: int
    event_stack_count: int
    ballot_box_card_ids: _containers.RepeatedScalarFieldContainer[str]
    event_discard_card_ids: _containers.RepeatedScalarFieldContainer[str]
    retired_politician_ids: _containers.RepeatedScalarFieldContainer[str]
    cantonal_councillor_ids: _containers.RepeatedScalarFieldContainer[str]
    national_councillor_ids: _containers.RepeatedScalarFieldContainer[str]
    federal_councillor_id: str
    ballot: WahlspielBallot
    coalition: WahlspielCoalition
    runoff: WahlspielRunoff
    def __init__(self, round: _Optional[int] = ..., step: _Optional[_Union[WahlspielStep, str]] = ..., current_party: _Optional[int] = ..., start_party: _Optional[int] = ..., first_arrived: _Optional[int] = ..., last_roll: _Optional[int] = ..., goal_votes: _Optional[int] = ..., board: _Optional[_Iterable[_Union[WahlspielField, _Mapping]]] = ..., parties: _Optional[_Iterable[_Union[WahlspielParty, _Mapping]]] = ..., politicians: _Optional[_Iterable[_Union[WahlspielPolitician, _Mapping]]] = ..., candidates: _Optional[_Iterable[_Union[WahlspielCandidate, _Mapping]]] = ..., voter_stack_count: _Optional[int] = ..., event_stack_count: _Optional[int] = ..., ballot_box_card_ids: _Optional[_Iterable[str]] = ..., event_discard_card_ids: _Optional[_Iterable[str]] = ..., retired_politician_ids: _Optional[_Iterable[str]] = ..., cantonal_councillor_ids: _Optional[_Iterable[str]] = ..., national_councillor_ids: _Optional[_Iterable[str]] = ..., federal_councillor_id: _Optional[str] = ..., ballot: _Optional[_Union[WahlspielBallot, _Mapping]] = ..., coalition: _Optional[_Union[WahlspielCoalition, _Mapping]] = ..., runoff: _Optional[_Union[WahlspielRunoff, _Mapping]] = ...) -> None: ...

class WahlspielEvent(_message.Message):
    __slots__ = ("nominated", "die_rolled", "cards_drawn", "votes_changed", "voter_cast", "ballot_opened", "judged", "ballot_decided", "money_changed", "event_played", "candidate_changed", "candidate_retired", "coalition_changed", "trade_offered", "trade_answered", "goal_reached", "runoff_opened", "runoff_voter_sent", "runoff_voters_revealed", "runoff_card_turned", "runoff_lots", "election_held")
    NOMINATED_FIELD_NUMBER: _ClassVar[int]
    DIE_ROLLED_FIELD_NUMBER: _ClassVar[int]
    CARDS_DRAWN_FIELD_NUMBER: _ClassVar[int]
    VOTES_CHANGED_FIELD_NUMBER: _ClassVar[int]
    VOTER_CAST_FIELD_NUMBER: _ClassVar[int]
    BALLOT_OPENED_FIELD_NUMBER: _ClassVar[int]
    JUDGED_FIELD_NUMBER: _ClassVar[int]
    BALLOT_DECIDED_FIELD_NUMBER: _ClassVar[int]
    MONEY_CHANGED_FIELD_NUMBER: _ClassVar[int]
    EVENT_PLAYED_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_CHANGED_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_RETIRED_FIELD_NUMBER: _ClassVar[int]
    COALITION_CHANGED_FIELD_NUMBER: _ClassVar[int]
    TRADE_OFFERED_FIELD_NUMBER: _ClassVar[int]
    TRADE_ANSWERED_FIELD_NUMBER: _ClassVar[int]
    GOAL_REACHED_FIELD_NUMBER: _ClassVar[int]
    RUNOFF_OPENED_FIELD_NUMBER: _ClassVar[int]
    RUNOFF_VOTER_SENT_FIELD_NUMBER: _ClassVar[int]
    RUNOFF_VOTERS_REVEALED_FIELD_NUMBER: _ClassVar[int]
    RUNOFF_CARD_TURNED_FIELD_NUMBER: _ClassVar[int]
    RUNOFF_LOTS_FIELD_NUMBER: _ClassVar[int]
    ELECTION_HELD_FIELD_NUMBER: _ClassVar[int]
    nominated: WahlspielNominated
    die_rolled: WahlspielDieRolled
    cards_drawn: WahlspielCardsDrawn
    votes_changed: WahlspielVotesChanged
    voter_cast: WahlspielVoterCast
    ballot_opened: WahlspielBallotOpened
    judged: WahlspielVerdict
    ballot_decided: WahlspielBallotDecided
    money_changed: WahlspielMoneyChanged
    event_played: WahlspielEventPlayed
    candidate_changed: WahlspielCandidateChanged
    candidate_retired: WahlspielCandidateRetired
    coalition_changed: WahlspielCoalitionChanged
    trade_offered: WahlspielTradeOffered
    trade_answered: WahlspielTradeAnswered
    goal_reached: WahlspielGoalReached
    runoff_opened: WahlspielRunoffOpened
    runoff_voter_sent: WahlspielRunoffVoterSent
    runoff_voters_revealed: WahlspielRunoffVotersRevealed
    runoff_card_turned: WahlspielRunoffCardTurned
    runoff_lots: WahlspielRunoffLots
    election_held: WahlspielElectionHeld
    def __init__(self, nominated: _Optional[_Union[WahlspielNominated, _Mapping]] = ..., die_rolled: _Optional[_Union[WahlspielDieRolled, _Mapping]] = ..., cards_drawn: _Optional[_Union[WahlspielCardsDrawn, _Mapping]] = ..., votes_changed: _Optional[_Union[WahlspielVotesChanged, _Mapping]] = ..., voter_cast: _Optional[_Union[WahlspielVoterCast, _Mapping]] = ..., ballot_opened: _Optional[_Union[WahlspielBallotOpened, _Mapping]] = ..., judged: _Optional[_Union[WahlspielVerdict, _Mapping]] = ..., ballot_decided: _Optional[_Union[WahlspielBallotDecided, _Mapping]] = ..., money_changed: _Optional[_Union[WahlspielMoneyChanged, _Mapping]] = ..., event_played: _Optional[_Union[WahlspielEventPlayed, _Mapping]] = ..., candidate_changed: _Optional[_Union[WahlspielCandidateChanged, _Mapping]] = ..., candidate_retired: _Optional[_Union[WahlspielCandidateRetired, _Mapping]] = ..., coalition_changed: _Optional[_Union[WahlspielCoalitionChanged, _Mapping]] = ..., trade_offered: _Optional[_Union[WahlspielTradeOffered, _Mapping]] = ..., trade_answered: _Optional[_Union[WahlspielTradeAnswered, _Mapping]] = ..., goal_reached: _Optional[_Union[WahlspielGoalReached, _Mapping]] = ..., runoff_opened: _Optional[_Union[WahlspielRunoffOpened, _Mapping]] = ..., runoff_voter_sent: _Optional[_Union[WahlspielRunoffVoterSent, _Mapping]] = ..., runoff_voters_revealed: _Optional[_Union[WahlspielRunoffVotersRevealed, _Mapping]] = ..., runoff_card_turned: _Optional[_Union[WahlspielRunoffCardTurned, _Mapping]] = ..., runoff_lots: _Optional[_Union[WahlspielRunoffLots, _Mapping]] = ..., election_held: _Optional[_Union[WahlspielElectionHeld, _Mapping]] = ...) -> None: ...

class WahlspielNominated(_message.Message):
    __slots__ = ("party", "politician_id")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    party: int
    politician_id: str
    def __init__(self, party: _Optional[int] = ..., politician_id: _Optional[str] = ...) -> None: ...

class WahlspielDieRolled(_message.Message):
    __slots__ = ("party", "pips", "origin", "position", "field", "bounced")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    PIPS_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    BOUNCED_FIELD_NUMBER: _ClassVar[int]
    party: int
    pips: int
    origin: int
    position: int
    field: WahlspielFieldKind
    bounced: bool
    def __init__(self, party: _Optional[int] = ..., pips: _Optional[int] = ..., origin: _Optional[int] = ..., position: _Optional[int] = ..., field: _Optional[_Union[WahlspielFieldKind, str]] = ..., bounced: _Optional[bool] = ...) -> None: ...

class WahlspielCardsDrawn(_message.Message):
    __slots__ = ("party", "reason", "voter_count", "event_count", "cost", "cards")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    VOTER_COUNT_FIELD_NUMBER: _ClassVar[int]
    EVENT_COUNT_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    party: int
    reason: str
    voter_count: int
    event_count: int
    cost: int
    cards: _containers.RepeatedCompositeFieldContainer[WahlspielCard]
    def __init__(self, party: _Optional[int] = ..., reason: _Optional[str] = ..., voter_count: _Optional[int] = ..., event_count: _Optional[int] = ..., cost: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[WahlspielCard, _Mapping]]] = ...) -> None: ...

class WahlspielVotesChanged(_message.Message):
    __slots__ = ("politician_id", "delta", "votes", "reason")
    POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    VOTES_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    politician_id: str
    delta: int
    votes: int
    reason: str
    def __init__(self, politician_id: _Optional[str] = ..., delta: _Optional[int] = ..., votes: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class WahlspielVoterCast(_message.Message):
    __slots__ = ("party", "card", "politician_ids")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    party: int
    card: WahlspielCard
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, party: _Optional[int] = ..., card: _Optional[_Union[WahlspielCard, _Mapping]] = ..., politician_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class WahlspielBallotOpened(_message.Message):
    __slots__ = ("card", "politician_ids", "judges")
    CARD_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    JUDGES_FIELD_NUMBER: _ClassVar[int]
    card: WahlspielCard
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    judges: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, card: _Optional[_Union[WahlspielCard, _Mapping]] = ..., politician_ids: _Optional[_Iterable[str]] = ..., judges: _Optional[_Iterable[int]] = ...) -> None: ...

class WahlspielBallotDecided(_message.Message):
    __slots__ = ("card_id", "politician_ids")
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, card_id: _Optional[str] = ..., politician_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class WahlspielMoneyChanged(_message.Message):
    __slots__ = ("party", "delta", "money", "reason")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    MONEY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    party: int
    delta: int
    money: int
    reason: str
    def __init__(self, party: _Optional[int] = ..., delta: _Optional[int] = ..., money: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class WahlspielEventPlayed(_message.Message):
    __slots__ = ("party", "card", "politician_ids", "target_party", "effective")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    TARGET_PARTY_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_FIELD_NUMBER: _ClassVar[int]
    party: int
    card: WahlspielCard
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    target_party: int
    effective: bool
    def __init__(self, party: _Optional[int] = ..., card: _Optional[_Union[WahlspielCard, _Mapping]] = ..., politician_ids: _Optional[_Iterable[str]] = ..., target_party: _Optional[int] = ..., effective: _Optional[bool] = ...) -> None: ...

class WahlspielCandidateChanged(_message.Message):
    __slots__ = ("party", "withdrawn_politician_id", "nominated_politician_id")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    WITHDRAWN_POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    NOMINATED_POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    party: int
    withdrawn_politician_id: str
    nominated_politician_id: str
    def __init__(self, party: _Optional[int] = ..., withdrawn_politician_id: _Optional[str] = ..., nominated_politician_id: _Optional[str] = ...) -> None: ...

class WahlspielCandidateRetired(_message.Message):
    __slots__ = ("politician_id", "reason")
    POLITICIAN_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    politician_id: str
    reason: str
    def __init__(self, politician_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class WahlspielCoalitionChanged(_message.Message):
    __slots__ = ("party", "partner", "ended")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    party: int
    partner: int
    ended: bool
    def __init__(self, party: _Optional[int] = ..., partner: _Optional[int] = ..., ended: _Optional[bool] = ...) -> None: ...

class WahlspielTradeOffered(_message.Message):
    __slots__ = ("party", "partner", "offer")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    OFFER_FIELD_NUMBER: _ClassVar[int]
    party: int
    partner: int
    offer: WahlspielOffer
    def __init__(self, party: _Optional[int] = ..., partner: _Optional[int] = ..., offer: _Optional[_Union[WahlspielOffer, _Mapping]] = ...) -> None: ...

class WahlspielTradeAnswered(_message.Message):
    __slots__ = ("party", "partner", "accepted", "given_card", "received_card", "given_cards", "received_cards", "given_count", "received_count")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    GIVEN_CARD_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_CARD_FIELD_NUMBER: _ClassVar[int]
    GIVEN_CARDS_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_CARDS_FIELD_NUMBER: _ClassVar[int]
    GIVEN_COUNT_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_COUNT_FIELD_NUMBER: _ClassVar[int]
    party: int
    partner: int
    accepted: bool
    given_card: WahlspielCard
    received_card: WahlspielCard
    given_cards: _containers.RepeatedCompositeFieldContainer[WahlspielCard]
    received_cards: _containers.RepeatedCompositeFieldContainer[WahlspielCard]
    given_count: int
    received_count: int
    def __init__(self, party: _Optional[int] = ..., partner: _Optional[int] = ..., accepted: _Optional[bool] = ..., given_card: _Optional[_Union[WahlspielCard, _Mapping]] = ..., received_card: _Optional[_Union[WahlspielCard, _Mapping]] = ..., given_cards: _Optional[_Iterable[_Union[WahlspielCard, _Mapping]]] = ..., received_cards: _Optional[_Iterable[_Union[WahlspielCard, _Mapping]]] = ..., given_count: _Optional[int] = ..., received_count: _Optional[int] = ...) -> None: ...

class WahlspielGoalReached(_message.Message):
    __slots__ = ("party", "goal", "first")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    GOAL_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    party: int
    goal: WahlspielFieldKind
    first: bool
    def __init__(self, party: _Optional[int] = ..., goal: _Optional[_Union[WahlspielFieldKind, str]] = ..., first: _Optional[bool] = ...) -> None: ...

class WahlspielRunoffOpened(_message.Message):
    __slots__ = ("politician_ids", "seats", "parties")
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PARTIES_FIELD_NUMBER: _ClassVar[int]
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    seats: int
    parties: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, politician_ids: _Optional[_Iterable[str]] = ..., seats: _Optional[int] = ..., parties: _Optional[_Iterable[int]] = ...) -> None: ...

class WahlspielRunoffVoterSent(_message.Message):
    __slots__ = ("party", "card")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    party: int
    card: WahlspielCard
    def __init__(self, party: _Optional[int] = ..., card: _Optional[_Union[WahlspielCard, _Mapping]] = ...) -> None: ...

class WahlspielRunoffSent(_message.Message):
    __slots__ = ("party", "card")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    party: int
    card: WahlspielCard
    def __init__(self, party: _Optional[int] = ..., card: _Optional[_Union[WahlspielCard, _Mapping]] = ...) -> None: ...

class WahlspielRunoffVotersRevealed(_message.Message):
    __slots__ = ("sent", "politician_ids")
    SENT_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    sent: _containers.RepeatedCompositeFieldContainer[WahlspielRunoffSent]
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, sent: _Optional[_Iterable[_Union[WahlspielRunoffSent, _Mapping]]] = ..., politician_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class WahlspielRunoffCardTurned(_message.Message):
    __slots__ = ("card", "politician_ids")
    CARD_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    card: WahlspielCard
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, card: _Optional[_Union[WahlspielCard, _Mapping]] = ..., politician_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class WahlspielRunoffLots(_message.Message):
    __slots__ = ("politician_ids",)
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, politician_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class WahlspielElectionHeld(_message.Message):
    __slots__ = ("round", "politician_ids", "pay")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_IDS_FIELD_NUMBER: _ClassVar[int]
    PAY_FIELD_NUMBER: _ClassVar[int]
    round: int
    politician_ids: _containers.RepeatedScalarFieldContainer[str]
    pay: int
    def __init__(self, round: _Optional[int] = ..., politician_ids: _Optional[_Iterable[str]] = ..., pay: _Optional[int] = ...) -> None: ...
