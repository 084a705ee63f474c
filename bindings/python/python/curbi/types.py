"""TypedDicts of the JSON documents the module's functions return (docs/CHECK_API.md, docs/LINT.md, docs/PURCHASE.md,
docs/PROOF.md, docs/RECORDER.md, docs/REGRESSION.md). Members named like Python keywords (`pass`) use the functional
form. Values the caller wrote (a policy, a record, a bundle's offered JWKS) stay `Any`: they are the caller's."""

from typing import Any, List, Optional, TypedDict

__all__ = [
    "Attested",
    "BatchResponse",
    "BundleReceipt",
    "CaseResult",
    "CheckProof",
    "CheckResponse",
    "Decision",
    "DecisionReason",
    "ErrorDetail",
    "GrantInfo",
    "Cosigned",
    "Head",
    "HeldAction",
    "HeldActions",
    "LintReport",
    "LintWarning",
    "OlderHead",
    "ProofBundle",
    "Published",
    "ReceiptList",
    "RecorderKey",
    "RecorderKeys",
    "RecorderStatus",
    "Regression",
    "RegressionCase",
    "RegressionExpected",
    "RegressionExport",
    "RegressionFinding",
    "ReplayCase",
    "ReplayChange",
    "ReplayDiff",
    "ReplayReport",
    "Settled",
    "StepUp",
    "StoredReceipt",
    "Verification",
    "VerificationHead",
    "VerificationItem",
    "VerificationScope",
    "WireFinding",
    "WitnessAnswer",
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


# The recorder's answers (docs/RECORDER.md §Calls).


class GrantInfo(TypedDict):
    """`grant` and `mandate`: the id and the uses the recorder counted."""

    id: str
    used: int


class _AttestedRequired(TypedDict):
    decision: str
    check: Decision


class Attested(_AttestedRequired, total=False):
    """`attest`: ALLOW (or a confirmed STEP_UP) carries the attestation."""

    attestation: str


class _SettledRequired(TypedDict):
    status: str


class Settled(_SettledRequired, total=False):
    """`confirm` and `reconcile`: DONE or FAILED with the receipt and its seq; HELD or RELEASED without."""

    seq: int
    receipt: str


class HeldAction(TypedDict):
    tenant: str
    idempotency_key: str
    state: str
    grant: str
    attestation: str
    since: int


class HeldActions(TypedDict):
    """`held`: the actions not yet settled, oldest first."""

    actions: List[HeldAction]
    more: bool


class Published(TypedDict):
    """`publish`: the log as C2SP tiles up to `size` (from `previous`), `files` written, the checkpoint served."""

    size: int
    previous: int
    files: int
    checkpoint: str


class _WitnessAnswerRequired(TypedDict):
    name: str
    status: str


class WitnessAnswer(_WitnessAnswerRequired, total=False):
    """One witness's answer: `cosigned`, or `failed` with the error."""

    error: str


class Cosigned(TypedDict):
    """`cosign`: the latest head with every cosignature collected, and each witness's answer."""

    size: int
    note: str
    witnesses: List[WitnessAnswer]


class _HeadRequired(TypedDict):
    size: int
    note: str


class Head(_HeadRequired, total=False):
    """`checkpoint`: a signed head; with witnesses or a publish directory configured, their answers."""

    witnesses: List[WitnessAnswer]
    published: Published


class StoredReceipt(TypedDict):
    """`receipt`: the receipt, the attestation it completes and the provider's answer."""

    seq: int
    tenant: str
    idempotency_key: str
    status: str
    receipt: str
    attestation: str
    evidence: str
    created: int


class ReceiptList(TypedDict):
    """`receipts`: the newest receipts of a subject or a conversation, in log order."""

    receipts: List[str]


RecorderKey = TypedDict(
    "RecorderKey",
    {"kty": str, "crv": str, "x": str, "kid": str, "curbi:nbf": int, "curbi:exp": int, "curbi:test": bool},
    total=False,
)


class RecorderKeys(TypedDict):
    """`keys`: the log's JWKS, every key with its window."""

    keys: List[RecorderKey]


class RecorderStatus(TypedDict):
    """`status`."""

    origin: str
    kid: str
    vkey: str
    size: int
    head: Optional[Head]
    sealed: Optional[int]


# Proof bundles (docs/PROOF.md §Bundles): what the recorder's `bundle` writes and `verify_bundle` reads.


class _BundleReceiptRequired(TypedDict):
    receipt: str
    index: int
    proof: List[str]


class BundleReceipt(_BundleReceiptRequired, total=False):
    """One receipt (the compact JWS, also the log entry) with its RFC 9162 inclusion proof (base64 hashes)."""

    attestation: str


class OlderHead(TypedDict):
    """An older head and the consistency proof from its size to the bundle's head."""

    head: str
    proof: List[str]


class _ProofBundleRequired(TypedDict):
    object: str
    head: str
    receipts: List[BundleReceipt]


class ProofBundle(_ProofBundleRequired, total=False):
    """A `curbi.proof/0.1` bundle; `keys` is a JWKS the issuer offers, never trusted unless the verifier opts in."""

    consistency: List[OlderHead]
    keys: Any


# Regressions (docs/REGRESSION.md): `export_regression` writes one, `replay_regression` reports on one.


class RegressionFinding(TypedDict):
    rule: str
    span: List[int]
    text: str


RegressionExpected = TypedDict(
    "RegressionExpected", {"pass": bool, "rules": List[str], "findings": List[RegressionFinding]}
)


class _RegressionCaseRequired(TypedDict):
    reply: str
    expected: RegressionExpected


class RegressionCase(_RegressionCaseRequired, total=False):
    """One case; `id` and `record` only when the request had them (the record as the caller wrote it)."""

    id: str
    record: Any


class _RegressionRequired(TypedDict):
    object: str
    version: str
    title: str
    checker: str
    policy: Any
    cases: List[RegressionCase]


class Regression(_RegressionRequired, total=False):
    """A `curbi.regression` document: expectations from the checker named in `checker`, never from the caller."""

    note: str


class RegressionExport(TypedDict):
    """`export_regression`: the document and the two generated test files' text (seed 000's names)."""

    regression: Regression
    nodeTest: str
    pytest: str


class ReplayChange(TypedDict):
    expected: Any
    got: Any


_ReplayDiffOptional = TypedDict("_ReplayDiffOptional", {"pass": ReplayChange, "rules": ReplayChange}, total=False)


class ReplayDiff(_ReplayDiffOptional):
    """What differs: `pass` and `rules` only when they differ; the findings missing and those produced anew."""

    missing: List[RegressionFinding]
    unexpected: List[RegressionFinding]


class _ReplayCaseRequired(TypedDict):
    index: int
    ok: bool


class ReplayCase(_ReplayCaseRequired, total=False):
    id: str
    diff: ReplayDiff


ReplayReport = TypedDict(
    "ReplayReport",
    {
        "object": str,
        "title": str,
        "checker": str,
        "pass": bool,
        "total": int,
        "failed": int,
        "cases": List[ReplayCase],
    },
)
"""`replay_regression`'s report (`object` is `curbi.replay`)."""
