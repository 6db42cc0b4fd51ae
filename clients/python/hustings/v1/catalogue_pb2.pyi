from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Provenance(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROVENANCE_UNSPECIFIED: _ClassVar[Provenance]
    PROVENANCE_PRINTED: _ClassVar[Provenance]
    PROVENANCE_DERIVED: _ClassVar[Provenance]
    PROVENANCE_DESIGNED: _ClassVar[Provenance]
PROVENANCE_UNSPECIFIED: Provenance
PROVENANCE_PRINTED: Provenance
PROVENANCE_DERIVED: Provenance
PROVENANCE_DESIGNED: Provenance

class ContentSource(_message.Message):
    __slots__ = ("provenance", "note")
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    provenance: Provenance
    note: str
    def __init__(self, provenance: _Optional[_Union[Provenance, str]] = ..., note: _Optional[str] = ...) -> None: ...
