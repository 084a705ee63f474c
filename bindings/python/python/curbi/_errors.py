"""Curbi's exceptions. Every error the library raises is a `CurbiError` carrying the core's stable `code` (one of
`curbi.error_codes()`, the list in vectors/errors.json), a readable `message`, and the JSON pointer `path` of the
bad field ("" is the whole document)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._native import Check, Finding

__all__ = ["CurbiError", "CurbiViolation", "UnsupportedError", "ValidationError"]


class CurbiError(Exception):
    """Invalid input, a bug caught at the boundary (`code == "internal"`), or the recorder's storage failing
    (`storage`, `corrupt`, `busy`)."""

    code: str
    message: str
    path: str

    def __init__(self, message: str, code: str = "internal", path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message, self.code, self.path))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r}, path={self.path!r})"


class ValidationError(CurbiError):
    """A document does not match its schema or cannot be read, or the recorder refuses a request (`held`,
    `outcome_conflict`, `idempotency_conflict`, ...)."""


class UnsupportedError(CurbiError):
    """Valid, but not supported by this build."""


class CurbiViolation(CurbiError):
    """A reply broke the policy (raised by guards, never by `Policy.check`, which returns the result).

    `.check` is the whole result and `.findings` what fired; `code` is ``"violation"`` (not one of the input error
    codes: nothing was wrong with the input) and `path` is ``"/reply"``."""

    check: "Check"
    findings: "list[Finding]"

    def __init__(self, check: "Check") -> None:
        self.check = check
        self.findings = check.findings
        rules = ", ".join(f"{f.rule} at {f.span}: {f.why}" for f in self.findings)
        super().__init__(f"reply failed {len(self.findings)} Curbi rule(s): {rules}", "violation", "/reply")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.check,))
