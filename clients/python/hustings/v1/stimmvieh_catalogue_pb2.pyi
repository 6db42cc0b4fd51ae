from hustings.v1 import catalogue_pb2 as _catalogue_pb2
from hustings.v1 import stimmvieh_pb2 as _stimmvieh_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StimmviehCatalogueParty(_message.Message):
    __slots__ = ("party", "name", "source")
    PARTY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    party: int
    name: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, party: _Optional[int] = ..., name: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class StimmviehCatalogueCard(_message.Message):
    __slots__ = ("card_id", "type", "amount", "influence", "label", "source")
    CARD_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    INFLUENCE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    card_id: str
    type: _stimmvieh_pb2.StimmviehCardType
    amount: int
    influence: int
    label: str
    source: _catalogue_pb2.ContentSource
    def __init__(self, card_id: _Optional[str] = ..., type: _Optional[_Union[_stimmvieh_pb2.StimmviehCardType, str]] = ..., amount: _Optional[int] = ..., influence: _Optional[int] = ..., label: _Optional[str] = ..., source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ...) -> None: ...

class StimmviehCatalogue(_message.Message):
    __slots__ = ("parties", "angelus_name", "angelus_source", "politician_influences", "influence_source", "vote_cards", "donation_cards", "custom_vote_card_id")
    PARTIES_FIELD_NUMBER: _ClassVar[int]
    ANGELUS_NAME_FIELD_NUMBER: _ClassVar[int]
    ANGELUS_SOURCE_FIELD_NUMBER: _ClassVar[int]
    POLITICIAN_INFLUENCES_FIELD_NUMBER: _ClassVar[int]
    INFLUENCE_SOURCE_FIELD_NUMBER: _ClassVar[int]
    VOTE_CARDS_FIELD_NUMBER: _ClassVar[int]
    DONATION_CARDS_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_VOTE_CARD_ID_FIELD_NUMBER: _ClassVar[int]
    parties: _containers.RepeatedCompositeFieldContainer[StimmviehCatalogueParty]
    angelus_name: str
    angelus_source: _catalogue_pb2.ContentSource
    politician_influences: _containers.RepeatedScalarFieldContainer[int]
    influence_source: _catalogue_pb2.ContentSource
    vote_cards: _containers.RepeatedCompositeFieldContainer[StimmviehCatalogueCard]
    donation_cards: _containers.RepeatedCompositeFieldContainer[StimmviehCatalogueCard]
    custom_vote_card_id: str
    def __init__(self, parties: _Optional[_Iterable[_Union[StimmviehCatalogueParty, _Mapping]]] = ..., angelus_name: _Optional[str] = ..., angelus_source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ..., politician_influences: _Optional[_Iterable[int]] = ..., influence_source: _Optional[_Union[_catalogue_pb2.ContentSource, _Mapping]] = ..., vote_cards: _Optional[_Iterable[_Union[StimmviehCatalogueCard, _Mapping]]] = ..., donation_cards: _Optional[_Iterable[_Union[StimmviehCatalogueCard, _Mapping]]] = ..., custom_vote_card_id: _Optional[str] = ...) -> None: ...
