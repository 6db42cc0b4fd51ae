from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor

class SpinDoctorsOptions(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SpinDoctorsMove(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SpinDoctorsView(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SpinDoctorsEvent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
