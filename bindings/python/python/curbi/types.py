"""TypedDicts of the JSON documents the module's functions return (docs/CHECK_API.md, docs/LINT.md, docs/PURCHASE.md,
docs/PROOF.md). Members named like Python keywords (`pass`) use the functional form. Recorder answers and regression
documents stay `dict[str, Any]`: their shapes are the documents of docs/RECORDER.md and docs/REGRESSION.md."""

from typing import Any, List, Optional, TypedDict

__all__ = [
    "BatchResponse",
    "CaseResult",
    "CheckProof",
    "CheckResponse",
    "Decision",
    "DecisionReason",
    "ErrorDetail",
    "LintReport",
    "LintWarning",
    "StepUp",
    "Verification",
    "VerificationHead",
    "VerificationItem",
    "VerificationScope",
    "WireFinding",
]


class ErrorDetail(TypedDict):
    """`{code, message, path}`: a stable code (vectors/errors.json) and the JSON pointer of the bad field."""

    code: str
    message: str
    path: str


class WireFinding(TypedDict):
    rule: str
    span: List[int]
    text: str
    why: str


CheckProof = TypedDict(
    "CheckProof",
    {"scope": str, "factsAuthenticated": bool, "replayProtection": str, "authorizationGranted": bool},
)

CheckResponse = TypedDict(
    "CheckResponse",
    {
        "object": str,
        "version": str,
        "recordTrust": str,
        "pass": bool,
        "findings": List[WireFinding],
        "proof": CheckProof,
    },
)

_CaseRequired = TypedDict("_CaseRequired", {"index": int, "pass": bool, "findings": List[WireFinding]})


class CaseResult(_CaseRequired, total=False):
    id: str


BatchResponse = TypedDict(
    "BatchResponse",
    {
        "object": str,
        "version": str,
        "recordTrust": str,
        "pass": bool,
        "results": List[CaseResult],
        "proof": CheckProof,
    },
)


class LintWarning(TypedDict):
    code: str
    message: str
    path: str


class LintReport(TypedDict):
    valid: bool
    errors: List[ErrorDetail]
    warnings: List[LintWarning]


class DecisionReason(TypedDict):
    code: str
    effect: str
    path: str
    expected: str
    actual: str
    message: str


class StepUp(TypedDict):
    kind: str
    summary: str


class _DecisionRequired(TypedDict):
    object: str
    decision: str
    reasons: List[DecisionReason]
    authorizationGranted: bool


class Decision(_DecisionRequired, total=False):
    """A purchase or action check: `object` is `purchase_check` or `action_check`; `stepUp` only on STEP_UP."""

    stepUp: StepUp


class _ItemRequired(TypedDict):
    index: int
    ok: bool
    reason: str
    message: str


class VerificationItem(_ItemRequired, total=False):
    leaf: int
    digest: str
    kid: str
    attested: bool
    receipt: Any


class VerificationHead(TypedDict, total=False):
    origin: str
    size: int
    root: str
    signedAt: int
    kid: str
    witnesses: List[Any]


class VerificationScope(TypedDict):
    shows: str
    providerActionProven: bool
    authorizationGranted: bool


class _VerificationRequired(TypedDict):
    ok: bool
    reason: str
    message: str
    path: str
    items: List[VerificationItem]
    head: Optional[VerificationHead]
    evidence: Any
    scope: VerificationScope


class Verification(_VerificationRequired, total=False):
    """`verify_bundle`'s result; `error` only for a malformed request or bundle."""

    error: ErrorDetail
