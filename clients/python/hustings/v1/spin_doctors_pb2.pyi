from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SpinDoctorsPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPIN_DOCTORS_PHASE_UNSPECIFIED: _ClassVar[SpinDoctorsPhase]
    SPIN_DOCTORS_PHASE_CHOOSING: _ClassVar[SpinDoctorsPhase]
    SPIN_DOCTORS_PHASE_OPENING: _ClassVar[SpinDoctorsPhase]
    SPIN_DOCTORS_PHASE_PLANNING: _ClassVar[SpinDoctorsPhase]
    SPIN_DOCTORS_PHASE_RESOLUTION: _ClassVar[SpinDoctorsPhase]
    SPIN_DOCTORS_PHASE_DEBATE: _ClassVar[SpinDoctorsPhase]
    SPIN_DOCTORS_PHASE_SPEECH: _ClassVar[SpinDoctorsPhase]
    SPIN_DOCTORS_PHASE_POLL: _ClassVar[SpinDoctorsPhase]
    SPIN_DOCTORS_PHASE_POLL_CHANGES: _ClassVar[SpinDoctorsPhase]
    SPIN_DOCTORS_PHASE_ELECTION: _ClassVar[SpinDoctorsPhase]
    SPIN_DOCTORS_PHASE_FINISHED: _ClassVar[SpinDoctorsPhase]

class SpinDoctorsDealTermKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPIN_DOCTORS_DEAL_TERM_KIND_UNSPECIFIED: _ClassVar[SpinDoctorsDealTermKind]
    SPIN_DOCTORS_DEAL_TERM_KIND_REDUCE_VOTES: _ClassVar[SpinDoctorsDealTermKind]
    SPIN_DOCTORS_DEAL_TERM_KIND_SPARE_VOTES: _ClassVar[SpinDoctorsDealTermKind]
    SPIN_DOCTORS_DEAL_TERM_KIND_ORDER_TIE: _ClassVar[SpinDoctorsDealTermKind]
    SPIN_DOCTORS_DEAL_TERM_KIND_CONSENT: _ClassVar[SpinDoctorsDealTermKind]
    SPIN_DOCTORS_DEAL_TERM_KIND_PUSH_OFF: _ClassVar[SpinDoctorsDealTermKind]
    SPIN_DOCTORS_DEAL_TERM_KIND_ACTION: _ClassVar[SpinDoctorsDealTermKind]

class SpinDoctorsEventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SPIN_DOCTORS_EVENT_KIND_UNSPECIFIED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_STAFFER_CHOSEN: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_PROGRAMME_CHOSEN: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_STAFFS_CHOSEN: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_PROGRAMME_REVEALED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_ROUND_STARTED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_NEWS_REVEALED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_STAFFER_PLAYED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_STAFFERS_REVEALED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_TIE_ORDERED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_ACTION: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_DECLINED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_STAFFER_FORGOES: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_VOTES_LOST_TO_TRAIT: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_TURNOUT_TOKEN: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_ACTIVITY_TOKENS: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_TOPIC_TOKEN: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_PUSHED_OFF_WHITE: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_BROADCAST: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_NEWS_ARRANGED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_NEWS_DISCARDED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_CONSENT: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_TOPIC_CHANGED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_BLACKMAIL_ANSWERED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_FAVOURITE: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_TURNOUT_CHANGED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_SPEECH_VOTE: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_SPEECH: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_LOCALITY_VOTES: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_STAFF_CHANGE_MADE: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_PROGRAMME_CHANGE_MADE: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_POLL_CHANGES_MADE: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_WINNER_NAMED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_BUDGET_HANDED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_SCANDAL_NOT_FOUND: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_OFFER_MADE: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_OFFER_WITHDRAWN: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_OFFER_DECLINED: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_OFFER_KEPT: _ClassVar[SpinDoctorsEventKind]
    SPIN_DOCTORS_EVENT_KIND_OFFER_RETURNED: _ClassVar[SpinDoctorsEventKind]
SPIN_DOCTORS_PHASE_UNSPECIFIED: SpinDoctorsPhase
SPIN_DOCTORS_PHASE_CHOOSING: SpinDoctorsPhase
SPIN_DOCTORS_PHASE_OPENING: SpinDoctorsPhase
SPIN_DOCTORS_PHASE_PLANNING: SpinDoctorsPhase
SPIN_DOCTORS_PHASE_RESOLUTION: SpinDoctorsPhase
SPIN_DOCTORS_PHASE_DEBATE: SpinDoctorsPhase
SPIN_DOCTORS_PHASE_SPEECH: SpinDoctorsPhase
SPIN_DOCTORS_PHASE_POLL: SpinDoctorsPhase
SPIN_DOCTORS_PHASE_POLL_CHANGES: SpinDoctorsPhase
SPIN_DOCTORS_PHASE_ELECTION: SpinDoctorsPhase
SPIN_DOCTORS_PHASE_FINISHED: SpinDoctorsPhase
SPIN_DOCTORS_DEAL_TERM_KIND_UNSPECIFIED: SpinDoctorsDealTermKind
SPIN_DOCTORS_DEAL_TERM_KIND_REDUCE_VOTES: SpinDoctorsDealTermKind
SPIN_DOCTORS_DEAL_TERM_KIND_SPARE_VOTES: SpinDoctorsDealTermKind
SPIN_DOCTORS_DEAL_TERM_KIND_ORDER_TIE: SpinDoctorsDealTermKind
SPIN_DOCTORS_DEAL_TERM_KIND_CONSENT: SpinDoctorsDealTermKind
SPIN_DOCTORS_DEAL_TERM_KIND_PUSH_OFF: SpinDoctorsDealTermKind
SPIN_DOCTORS_DEAL_TERM_KIND_ACTION: SpinDoctorsDealTermKind
SPIN_DOCTORS_EVENT_KIND_UNSPECIFIED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_STAFFER_CHOSEN: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_PROGRAMME_CHOSEN: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_STAFFS_CHOSEN: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_PROGRAMME_REVEALED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_ROUND_STARTED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_NEWS_REVEALED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_STAFFER_PLAYED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_STAFFERS_REVEALED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_TIE_ORDERED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_ACTION: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_DECLINED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_STAFFER_FORGOES: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_VOTES_LOST_TO_TRAIT: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_TURNOUT_TOKEN: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_ACTIVITY_TOKENS: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_TOPIC_TOKEN: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_PUSHED_OFF_WHITE: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_BROADCAST: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_NEWS_ARRANGED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_NEWS_DISCARDED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_CONSENT: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_TOPIC_CHANGED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_BLACKMAIL_ANSWERED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_FAVOURITE: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_TURNOUT_CHANGED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_SPEECH_VOTE: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_SPEECH: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_LOCALITY_VOTES: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_STAFF_CHANGE_MADE: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_PROGRAMME_CHANGE_MADE: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_POLL_CHANGES_MADE: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_WINNER_NAMED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_BUDGET_HANDED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_SCANDAL_NOT_FOUND: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_OFFER_MADE: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_OFFER_WITHDRAWN: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_OFFER_DECLINED: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_OFFER_KEPT: SpinDoctorsEventKind
SPIN_DOCTORS_EVENT_KIND_OFFER_RETURNED: SpinDoctorsEventKind

class SpinDoctorsOptions(_message.Message):
    __slots__ = ("scandals_set_aside",)
    SCANDALS_SET_ASIDE_FIELD_NUMBER: _ClassVar[int]
    scandals_set_aside: bool
    def __init__(self, scandals_set_aside: _Optional[bool] = ...) -> None: ...

class SpinDoctorsMove(_message.Message):
    __slots__ = ("choose_staff", "choose_programme", "reveal_programme", "play_staffer", "order_tie", "act", "decline", "place_support", "place_on_topic", "broadcast", "arrange_news", "consent", "answer_blackmail", "speech", "swap_staffer", "exchange_programme", "name_winner", "hand_budget", "offer_deal", "withdraw_offer", "decline_offer")
    CHOOSE_STAFF_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_PROGRAMME_FIELD_NUMBER: _ClassVar[int]
    REVEAL_PROGRAMME_FIELD_NUMBER: _ClassVar[int]
    PLAY_STAFFER_FIELD_NUMBER: _ClassVar[int]
    ORDER_TIE_FIELD_NUMBER: _ClassVar[int]
    ACT_FIELD_NUMBER: _ClassVar[int]
    DECLINE_FIELD_NUMBER: _ClassVar[int]
    PLACE_SUPPORT_FIELD_NUMBER: _ClassVar[int]
    PLACE_ON_TOPIC_FIELD_NUMBER: _ClassVar[int]
    BROADCAST_FIELD_NUMBER: _ClassVar[int]
    ARRANGE_NEWS_FIELD_NUMBER: _ClassVar[int]
    CONSENT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_BLACKMAIL_FIELD_NUMBER: _ClassVar[int]
    SPEECH_FIELD_NUMBER: _ClassVar[int]
    SWAP_STAFFER_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_PROGRAMME_FIELD_NUMBER: _ClassVar[int]
    NAME_WINNER_FIELD_NUMBER: _ClassVar[int]
    HAND_BUDGET_FIELD_NUMBER: _ClassVar[int]
    OFFER_DEAL_FIELD_NUMBER: _ClassVar[int]
    WITHDRAW_OFFER_FIELD_NUMBER: _ClassVar[int]
    DECLINE_OFFER_FIELD_NUMBER: _ClassVar[int]
    choose_staff: SpinDoctorsChooseStaff
    choose_programme: SpinDoctorsChooseProgramme
    reveal_programme: SpinDoctorsRevealProgramme
    play_staffer: SpinDoctorsPlayStaffer
    order_tie: SpinDoctorsOrderTie
    act: SpinDoctorsAct
    decline: SpinDoctorsDecline
    place_support: SpinDoctorsPlaceSupport
    place_on_topic: SpinDoctorsPlaceOnTopic
    broadcast: SpinDoctorsBroadcast
    arrange_news: SpinDoctorsArrangeNews
    consent: SpinDoctorsConsent
    answer_blackmail: SpinDoctorsAnswerBlackmail
    speech: SpinDoctorsSpeech
    swap_staffer: SpinDoctorsSwapStaffer
    exchange_programme: SpinDoctorsExchangeProgramme
    name_winner: SpinDoctorsNameWinner
    hand_budget: SpinDoctorsHandBudget
    offer_deal: SpinDoctorsOfferDeal
    withdraw_offer: SpinDoctorsWithdrawOffer
    decline_offer: SpinDoctorsDeclineOffer
    def __init__(self, choose_staff: _Optional[_Union[SpinDoctorsChooseStaff, _Mapping]] = ..., choose_programme: _Optional[_Union[SpinDoctorsChooseProgramme, _Mapping]] = ..., reveal_programme: _Optional[_Union[SpinDoctorsRevealProgramme, _Mapping]] = ..., play_staffer: _Optional[_Union[SpinDoctorsPlayStaffer, _Mapping]] = ..., order_tie: _Optional[_Union[SpinDoctorsOrderTie, _Mapping]] = ..., act: _Optional[_Union[SpinDoctorsAct, _Mapping]] = ..., decline: _Optional[_Union[SpinDoctorsDecline, _Mapping]] = ..., place_support: _Optional[_Union[SpinDoctorsPlaceSupport, _Mapping]] = ..., place_on_topic: _Optional[_Union[SpinDoctorsPlaceOnTopic, _Mapping]] = ..., broadcast: _Optional[_Union[SpinDoctorsBroadcast, _Mapping]] = ..., arrange_news: _Optional[_Union[SpinDoctorsArrangeNews, _Mapping]] = ..., consent: _Optional[_Union[SpinDoctorsConsent, _Mapping]] = ..., answer_blackmail: _Optional[_Union[SpinDoctorsAnswerBlackmail, _Mapping]] = ..., speech: _Optional[_Union[SpinDoctorsSpeech, _Mapping]] = ..., swap_staffer: _Optional[_Union[SpinDoctorsSwapStaffer, _Mapping]] = ..., exchange_programme: _Optional[_Union[SpinDoctorsExchangeProgramme, _Mapping]] = ..., name_winner: _Optional[_Union[SpinDoctorsNameWinner, _Mapping]] = ..., hand_budget: _Optional[_Union[SpinDoctorsHandBudget, _Mapping]] = ..., offer_deal: _Optional[_Union[SpinDoctorsOfferDeal, _Mapping]] = ..., withdraw_offer: _Optional[_Union[SpinDoctorsWithdrawOffer, _Mapping]] = ..., decline_offer: _Optional[_Union[SpinDoctorsDeclineOffer, _Mapping]] = ...) -> None: ...

class SpinDoctorsChooseStaff(_message.Message):
    __slots__ = ("staffers",)
    STAFFERS_FIELD_NUMBER: _ClassVar[int]
    staffers: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, staffers: _Optional[_Iterable[int]] = ...) -> None: ...

class SpinDoctorsChooseProgramme(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class SpinDoctorsRevealProgramme(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class SpinDoctorsPlayStaffer(_message.Message):
    __slots__ = ("staffer", "field")
    STAFFER_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    staffer: int
    field: int
    def __init__(self, staffer: _Optional[int] = ..., field: _Optional[int] = ...) -> None: ...

class SpinDoctorsOrderTie(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class SpinDoctorsAct(_message.Message):
    __slots__ = ("action", "locality", "second", "seat", "staffer", "voter_group", "step", "card")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    LOCALITY_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STAFFER_FIELD_NUMBER: _ClassVar[int]
    VOTER_GROUP_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    action: str
    locality: int
    second: int
    seat: int
    staffer: int
    voter_group: int
    step: int
    card: str
    def __init__(self, action: _Optional[str] = ..., locality: _Optional[int] = ..., second: _Optional[int] = ..., seat: _Optional[int] = ..., staffer: _Optional[int] = ..., voter_group: _Optional[int] = ..., step: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class SpinDoctorsDecline(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SpinDoctorsPlaceSupport(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, path: _Optional[_Iterable[int]] = ...) -> None: ...

class SpinDoctorsPlaceOnTopic(_message.Message):
    __slots__ = ("red", "push_off")
    RED_FIELD_NUMBER: _ClassVar[int]
    PUSH_OFF_FIELD_NUMBER: _ClassVar[int]
    red: bool
    push_off: int
    def __init__(self, red: _Optional[bool] = ..., push_off: _Optional[int] = ...) -> None: ...

class SpinDoctorsBroadcast(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class SpinDoctorsArrangeNews(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class SpinDoctorsConsent(_message.Message):
    __slots__ = ("agree",)
    AGREE_FIELD_NUMBER: _ClassVar[int]
    agree: bool
    def __init__(self, agree: _Optional[bool] = ...) -> None: ...

class SpinDoctorsAnswerBlackmail(_message.Message):
    __slots__ = ("pay",)
    PAY_FIELD_NUMBER: _ClassVar[int]
    pay: bool
    def __init__(self, pay: _Optional[bool] = ...) -> None: ...

class SpinDoctorsSpeech(_message.Message):
    __slots__ = ("seat", "voter_group", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VOTER_GROUP_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    voter_group: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., voter_group: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class SpinDoctorsSwapStaffer(_message.Message):
    __slots__ = ("discard", "take")
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    TAKE_FIELD_NUMBER: _ClassVar[int]
    discard: int
    take: int
    def __init__(self, discard: _Optional[int] = ..., take: _Optional[int] = ...) -> None: ...

class SpinDoctorsExchangeProgramme(_message.Message):
    __slots__ = ("take",)
    TAKE_FIELD_NUMBER: _ClassVar[int]
    take: str
    def __init__(self, take: _Optional[str] = ...) -> None: ...

class SpinDoctorsNameWinner(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class SpinDoctorsHandBudget(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class SpinDoctorsDealTerm(_message.Message):
    __slots__ = ("kind", "seat", "action", "staffer")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    STAFFER_FIELD_NUMBER: _ClassVar[int]
    kind: SpinDoctorsDealTermKind
    seat: int
    action: str
    staffer: int
    def __init__(self, kind: _Optional[_Union[SpinDoctorsDealTermKind, str]] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., staffer: _Optional[int] = ...) -> None: ...

class SpinDoctorsOfferDeal(_message.Message):
    __slots__ = ("seat", "amount", "term")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    term: SpinDoctorsDealTerm
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ..., term: _Optional[_Union[SpinDoctorsDealTerm, _Mapping]] = ...) -> None: ...

class SpinDoctorsWithdrawOffer(_message.Message):
    __slots__ = ("offer",)
    OFFER_FIELD_NUMBER: _ClassVar[int]
    offer: int
    def __init__(self, offer: _Optional[int] = ...) -> None: ...

class SpinDoctorsDeclineOffer(_message.Message):
    __slots__ = ("offer",)
    OFFER_FIELD_NUMBER: _ClassVar[int]
    offer: int
    def __init__(self, offer: _Optional[int] = ...) -> None: ...

class SpinDoctorsOffer(_message.Message):
    __slots__ = ("offerer", "seat", "amount", "term")
    OFFERER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    offerer: int
    seat: int
    amount: int
    term: SpinDoctorsDealTerm
    def __init__(self, offerer: _Optional[int] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ..., term: _Optional[_Union[SpinDoctorsDealTerm, _Mapping]] = ...) -> None: ...

class SpinDoctorsPlayer(_message.Message):
    __slots__ = ("seat", "colour", "budget", "supply", "pool", "votes", "staff", "staff_count", "hand_count", "shown_staffers", "programme_face_up", "programme_face_down", "programme_count", "done_choosing", "side_moves_left", "handed_over", "poll_changes_made")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    SUPPLY_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    VOTES_FIELD_NUMBER: _ClassVar[int]
    STAFF_FIELD_NUMBER: _ClassVar[int]
    STAFF_COUNT_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    SHOWN_STAFFERS_FIELD_NUMBER: _ClassVar[int]
    PROGRAMME_FACE_UP_FIELD_NUMBER: _ClassVar[int]
    PROGRAMME_FACE_DOWN_FIELD_NUMBER: _ClassVar[int]
    PROGRAMME_COUNT_FIELD_NUMBER: _ClassVar[int]
    DONE_CHOOSING_FIELD_NUMBER: _ClassVar[int]
    SIDE_MOVES_LEFT_FIELD_NUMBER: _ClassVar[int]
    HANDED_OVER_FIELD_NUMBER: _ClassVar[int]
    POLL_CHANGES_MADE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    colour: str
    budget: int
    supply: int
    pool: int
    votes: _containers.RepeatedScalarFieldContainer[int]
    staff: _containers.RepeatedScalarFieldContainer[int]
    staff_count: int
    hand_count: int
    shown_staffers: _containers.RepeatedScalarFieldContainer[int]
    programme_face_up: _containers.RepeatedScalarFieldContainer[str]
    programme_face_down: _containers.RepeatedScalarFieldContainer[str]
    programme_count: int
    done_choosing: bool
    side_moves_left: int
    handed_over: bool
    poll_changes_made: int
    def __init__(self, seat: _Optional[int] = ..., colour: _Optional[str] = ..., budget: _Optional[int] = ..., supply: _Optional[int] = ..., pool: _Optional[int] = ..., votes: _Optional[_Iterable[int]] = ..., staff: _Optional[_Iterable[int]] = ..., staff_count: _Optional[int] = ..., hand_count: _Optional[int] = ..., shown_staffers: _Optional[_Iterable[int]] = ..., programme_face_up: _Optional[_Iterable[str]] = ..., programme_face_down: _Optional[_Iterable[str]] = ..., programme_count: _Optional[int] = ..., done_choosing: _Optional[bool] = ..., side_moves_left: _Optional[int] = ..., handed_over: _Optional[bool] = ..., poll_changes_made: _Optional[int] = ...) -> None: ...

class SpinDoctorsLocality(_message.Message):
    __slots__ = ("locality", "turnout_card", "turnout_tokens", "topic_card", "red_tokens", "white_tokens", "activity_tokens")
    LOCALITY_FIELD_NUMBER: _ClassVar[int]
    TURNOUT_CARD_FIELD_NUMBER: _ClassVar[int]
    TURNOUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TOPIC_CARD_FIELD_NUMBER: _ClassVar[int]
    RED_TOKENS_FIELD_NUMBER: _ClassVar[int]
    WHITE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_TOKENS_FIELD_NUMBER: _ClassVar[int]
    locality: int
    turnout_card: str
    turnout_tokens: _containers.RepeatedScalarFieldContainer[int]
    topic_card: str
    red_tokens: _containers.RepeatedScalarFieldContainer[int]
    white_tokens: _containers.RepeatedScalarFieldContainer[int]
    activity_tokens: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, locality: _Optional[int] = ..., turnout_card: _Optional[str] = ..., turnout_tokens: _Optional[_Iterable[int]] = ..., topic_card: _Optional[str] = ..., red_tokens: _Optional[_Iterable[int]] = ..., white_tokens: _Optional[_Iterable[int]] = ..., activity_tokens: _Optional[_Iterable[int]] = ...) -> None: ...

class SpinDoctorsBoardStaffer(_message.Message):
    __slots__ = ("seat", "staffer", "field", "face_up", "resolved", "blocked")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STAFFER_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    FACE_UP_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_FIELD_NUMBER: _ClassVar[int]
    BLOCKED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    staffer: int
    field: int
    face_up: bool
    resolved: bool
    blocked: bool
    def __init__(self, seat: _Optional[int] = ..., staffer: _Optional[int] = ..., field: _Optional[int] = ..., face_up: _Optional[bool] = ..., resolved: _Optional[bool] = ..., blocked: _Optional[bool] = ...) -> None: ...

class SpinDoctorsPending(_message.Message):
    __slots__ = ("kind", "seat", "locality", "staffer", "other_seat", "amount", "cards", "board_index")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LOCALITY_FIELD_NUMBER: _ClassVar[int]
    STAFFER_FIELD_NUMBER: _ClassVar[int]
    OTHER_SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    BOARD_INDEX_FIELD_NUMBER: _ClassVar[int]
    kind: str
    seat: int
    locality: int
    staffer: int
    other_seat: int
    amount: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    board_index: int
    def __init__(self, kind: _Optional[str] = ..., seat: _Optional[int] = ..., locality: _Optional[int] = ..., staffer: _Optional[int] = ..., other_seat: _Optional[int] = ..., amount: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., board_index: _Optional[int] = ...) -> None: ...

class SpinDoctorsSeatField(_message.Message):
    __slots__ = ("seat", "field")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    field: int
    def __init__(self, seat: _Optional[int] = ..., field: _Optional[int] = ...) -> None: ...

class SpinDoctorsView(_message.Message):
    __slots__ = ("round", "phase", "favourite", "field_now", "players", "localities", "turnout_markers", "news", "news_face_down", "news_deck_count", "news_discard", "topic_deck_count", "topic_discard", "board_staffers", "pending", "coordinated", "protected", "named_winner", "scandals_aside", "offers", "news_seen_by", "queued")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    FAVOURITE_FIELD_NUMBER: _ClassVar[int]
    FIELD_NOW_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    LOCALITIES_FIELD_NUMBER: _ClassVar[int]
    TURNOUT_MARKERS_FIELD_NUMBER: _ClassVar[int]
    NEWS_FIELD_NUMBER: _ClassVar[int]
    NEWS_FACE_DOWN_FIELD_NUMBER: _ClassVar[int]
    NEWS_DECK_COUNT_FIELD_NUMBER: _ClassVar[int]
    NEWS_DISCARD_FIELD_NUMBER: _ClassVar[int]
    TOPIC_DECK_COUNT_FIELD_NUMBER: _ClassVar[int]
    TOPIC_DISCARD_FIELD_NUMBER: _ClassVar[int]
    BOARD_STAFFERS_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    COORDINATED_FIELD_NUMBER: _ClassVar[int]
    PROTECTED_FIELD_NUMBER: _ClassVar[int]
    NAMED_WINNER_FIELD_NUMBER: _ClassVar[int]
    SCANDALS_ASIDE_FIELD_NUMBER: _ClassVar[int]
    OFFERS_FIELD_NUMBER: _ClassVar[int]
    NEWS_SEEN_BY_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    round: int
    phase: SpinDoctorsPhase
    favourite: int
    field_now: int
    players: _containers.RepeatedCompositeFieldContainer[SpinDoctorsPlayer]
    localities: _containers.RepeatedCompositeFieldContainer[SpinDoctorsLocality]
    turnout_markers: _containers.RepeatedScalarFieldContainer[int]
    news: _containers.RepeatedScalarFieldContainer[str]
    news_face_down: _containers.RepeatedScalarFieldContainer[bool]
    news_deck_count: int
    news_discard: _containers.RepeatedScalarFieldContainer[str]
    topic_deck_count: int
    topic_discard: _containers.RepeatedScalarFieldContainer[str]
    board_staffers: _containers.RepeatedCompositeFieldContainer[SpinDoctorsBoardStaffer]
    pending: SpinDoctorsPending
    coordinated: _containers.RepeatedCompositeFieldContainer[SpinDoctorsSeatField]
    protected: _containers.RepeatedCompositeFieldContainer[SpinDoctorsSeatField]
    named_winner: int
    scandals_aside: _containers.RepeatedScalarFieldContainer[str]
    offers: _containers.RepeatedCompositeFieldContainer[SpinDoctorsOffer]
    news_seen_by: _containers.RepeatedScalarFieldContainer[int]
    queued: _containers.RepeatedCompositeFieldContainer[SpinDoctorsPending]
    def __init__(self, round: _Optional[int] = ..., phase: _Optional[_Union[SpinDoctorsPhase, str]] = ..., favourite: _Optional[int] = ..., field_now: _Optional[int] = ..., players: _Optional[_Iterable[_Union[SpinDoctorsPlayer, _Mapping]]] = ..., localities: _Optional[_Iterable[_Union[SpinDoctorsLocality, _Mapping]]] = ..., turnout_markers: _Optional[_Iterable[int]] = ..., news: _Optional[_Iterable[str]] = ..., news_face_down: _Optional[_Iterable[bool]] = ..., news_deck_count: _Optional[int] = ..., news_discard: _Optional[_Iterable[str]] = ..., topic_deck_count: _Optional[int] = ..., topic_discard: _Optional[_Iterable[str]] = ..., board_staffers: _Optional[_Iterable[_Union[SpinDoctorsBoardStaffer, _Mapping]]] = ..., pending: _Optional[_Union[SpinDoctorsPending, _Mapping]] = ..., coordinated: _Optional[_Iterable[_Union[SpinDoctorsSeatField, _Mapping]]] = ..., protected: _Optional[_Iterable[_Union[SpinDoctorsSeatField, _Mapping]]] = ..., named_winner: _Optional[int] = ..., scandals_aside: _Optional[_Iterable[str]] = ..., offers: _Optional[_Iterable[_Union[SpinDoctorsOffer, _Mapping]]] = ..., news_seen_by: _Optional[_Iterable[int]] = ..., queued: _Optional[_Iterable[_Union[SpinDoctorsPending, _Mapping]]] = ...) -> None: ...

class SpinDoctorsEvent(_message.Message):
    __slots__ = ("kind", "seat", "staffer", "field", "locality", "voter_group", "amount", "other_seat", "cards", "action", "second", "step", "target_staffer", "path", "pools", "revealed", "term")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STAFFER_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    LOCALITY_FIELD_NUMBER: _ClassVar[int]
    VOTER_GROUP_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    OTHER_SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    TARGET_STAFFER_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    POOLS_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    kind: SpinDoctorsEventKind
    seat: int
    staffer: int
    field: int
    locality: int
    voter_group: int
    amount: int
    other_seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    action: str
    second: int
    step: int
    target_staffer: int
    path: _containers.RepeatedScalarFieldContainer[int]
    pools: _containers.RepeatedScalarFieldContainer[int]
    revealed: _containers.RepeatedCompositeFieldContainer[SpinDoctorsBoardStaffer]
    term: SpinDoctorsDealTerm
    def __init__(self, kind: _Optional[_Union[SpinDoctorsEventKind, str]] = ..., seat: _Optional[int] = ..., staffer: _Optional[int] = ..., field: _Optional[int] = ..., locality: _Optional[int] = ..., voter_group: _Optional[int] = ..., amount: _Optional[int] = ..., other_seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., action: _Optional[str] = ..., second: _Optional[int] = ..., step: _Optional[int] = ..., target_staffer: _Optional[int] = ..., path: _Optional[_Iterable[int]] = ..., pools: _Optional[_Iterable[int]] = ..., revealed: _Optional[_Iterable[_Union[SpinDoctorsBoardStaffer, _Mapping]]] = ..., term: _Optional[_Union[SpinDoctorsDealTerm, _Mapping]] = ...) -> None: ...
