# Type stubs for the Rust extension module, checked against the built module with `mypy.stubtest`.
from typing import Any, Mapping, Optional, Sequence, Union, overload

from typing_extensions import final

_Json = Union[Mapping[str, Any], str]

__all__ = [
    "CURRENT_CHECKER_VERSION",
    "Batch",
    "Check",
    "CurbiError",
    "Finding",
    "Policy",
    "Record",
    "UnsupportedError",
    "ValidationError",
    "Verifier",
    "check",
    "error_codes",
    "export_regression",
    "replay_regression",
    "validate_policy",
    "verify_action",
    "verify_bundle",
    "verify_checkout",
    "version",
]

CURRENT_CHECKER_VERSION: str

class CurbiError(Exception):
    code: str
    path: str
    message: str

class ValidationError(CurbiError): ...
class UnsupportedError(CurbiError): ...

@final
class Finding:
    @property
    def rule(self) -> str: ...
    @property
    def span(self) -> tuple[int, int]: ...
    @property
    def text(self) -> str: ...
    @property
    def why(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __eq__(self, value: object, /) -> bool: ...

@final
class Check:
    @property
    def passed(self) -> bool: ...
    @property
    def version(self) -> str: ...
    @property
    def record_trust(self) -> str: ...
    @property
    def index(self) -> Optional[int]: ...
    @property
    def id(self) -> Optional[str]: ...
    @property
    def findings(self) -> list[Finding]: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __bool__(self) -> bool: ...

@final
class Batch:
    @property
    def passed(self) -> bool: ...
    @property
    def version(self) -> str: ...
    @property
    def results(self) -> list[Check]: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __len__(self) -> int: ...
    def __bool__(self) -> bool: ...

@final
class Record:
    @staticmethod
    def parse(record: _Json) -> Record: ...

_RecordArg = Optional[Union[Record, Mapping[str, Any], str]]

@final
class Policy:
    @staticmethod
    def compile(policy: _Json) -> Policy: ...
    @overload
    def check(
        self,
        reply: str,
        *,
        cases: None = None,
        record: _RecordArg = None,
        version: Optional[str] = None,
    ) -> Check: ...
    @overload
    def check(
        self,
        reply: None = None,
        *,
        cases: Union[Sequence[Mapping[str, Any]], str],
        record: _RecordArg = None,
        version: Optional[str] = None,
    ) -> Batch: ...

@final
class Verifier:
    @staticmethod
    def compile(options: _Json) -> Verifier: ...
    def verify(self, bundle: _Json) -> dict[str, Any]: ...

def check(request: _Json) -> dict[str, Any]: ...
def validate_policy(policy: _Json) -> dict[str, Any]: ...
def export_regression(request: _Json) -> dict[str, Any]: ...
def replay_regression(regression: _Json) -> dict[str, Any]: ...
def verify_checkout(request: _Json) -> dict[str, Any]: ...
def verify_action(request: _Json) -> dict[str, Any]: ...
def verify_bundle(request: _Json) -> dict[str, Any]: ...
def version() -> str: ...
def error_codes() -> list[str]: ...
