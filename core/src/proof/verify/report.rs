//! The verdict document: `Verification` (`{ok, reason, message, path, items, head, evidence, error, scope}`), each
//! receipt's `ItemResult`, the head summary, the evidence of a rejection and the seed's reasons ([`Reason`]).

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::proof::browser_gate::GateResult;
use crate::proof::envelope::Receipt;

/// Why a bundle or item did or did not verify: the seed's words, plus `malformed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Everything checked holds.
    Verifies,
    /// After the caller's policy (test keys only with `allowTest`, bundle keys only on opt-in) no key is left.
    NoTrustedKeys,
    /// A signature by a trusted key does not verify, or the signer is no key the caller trusts.
    BadSignature,
    /// The receipt is not the entry at its position under the verified head.
    NotInLog,
    /// The attached attestation is not the one the receipt binds, or describes another mutation.
    AttestationNotBound,
    /// The same signed receipt appears again in the bundle; it counts once.
    Duplicate,
    /// Two different DONE receipts for one tenant and idempotency key: issuer misbehaviour.
    ConflictingReceipt,
    /// Two signed heads of one log and size with different roots (evidence holds both).
    ForkDetected,
    /// A head the caller knows, or an older head in the bundle, is not proven a prefix of the head.
    HistoryUnproven,
    /// The head is signed by no key the caller trusts.
    CheckpointUnknownKey,
    /// Fresh mode: a receipt past its `exp`, or a key not valid now.
    Expired,
    /// The signing key's window does not cover the signing time.
    CheckpointKeyNotValidAtIssue,
    /// The input cannot be read (the `error` member says where).
    Malformed,
    /// A browser gate result decided against another policy or registry than the caller pinned, or by a gate older
    /// than the caller's `minVersion` (docs/PROOF.md §Browser gate proofs).
    GateNotPinned,
    /// A browser gate result that is not the decision on its proposal: re-running the action check gives another
    /// decision or other reasons, or the result names other documents than the proof carries.
    DecisionMismatch,
}

impl Reason {
    /// Every reason, seed order first, then `malformed`, then the browser gate proof's two.
    pub const ALL: [Reason; 15] = [
        Reason::Verifies,
        Reason::NoTrustedKeys,
        Reason::BadSignature,
        Reason::NotInLog,
        Reason::AttestationNotBound,
        Reason::Duplicate,
        Reason::ConflictingReceipt,
        Reason::ForkDetected,
        Reason::HistoryUnproven,
        Reason::CheckpointUnknownKey,
        Reason::Expired,
        Reason::CheckpointKeyNotValidAtIssue,
        Reason::Malformed,
        Reason::GateNotPinned,
        Reason::DecisionMismatch,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Verifies => "verifies",
            Reason::NoTrustedKeys => "no_trusted_keys",
            Reason::BadSignature => "bad_signature",
            Reason::NotInLog => "not_in_log",
            Reason::AttestationNotBound => "attestation_not_bound",
            Reason::Duplicate => "duplicate",
            Reason::ConflictingReceipt => "conflicting_receipt",
            Reason::ForkDetected => "fork_detected",
            Reason::HistoryUnproven => "history_unproven",
            Reason::CheckpointUnknownKey => "checkpoint_unknown_key",
            Reason::Expired => "expired",
            Reason::CheckpointKeyNotValidAtIssue => "checkpoint_key_not_valid_at_issue",
            Reason::Malformed => "malformed",
            Reason::GateNotPinned => "gate_not_pinned",
            Reason::DecisionMismatch => "decision_mismatch",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verified head, as the result reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadSummary {
    pub origin: String,
    pub size: u64,
    /// Standard base64, as in the checkpoint.
    pub root: String,
    /// The log key's `cosignature/v1` time, Unix seconds.
    pub signed_at: u64,
    pub kid: String,
    /// Names of the pinned witnesses whose cosignatures verified.
    pub witnesses: Vec<String>,
}

/// What a rejection rests on: for a fork both signed heads, for conflicting receipts both compact receipts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub heads: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub receipts: Vec<String>,
}

/// One receipt's result, in bundle order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ItemResult {
    /// Position in the bundle's `receipts`.
    pub index: usize,
    pub ok: bool,
    pub reason: Reason,
    pub message: String,
    /// The leaf index the bundle claims.
    pub leaf: u64,
    /// Lowercase hex SHA-256 of the receipt's signed bytes (what duplicates and conflicts are keyed on).
    pub digest: String,
    pub kid: String,
    /// Whether an attestation was attached.
    pub attested: bool,
    /// The receipt's members, when its signature verified under a trusted key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
    /// For a browser gate proof: the result's members, when its signature verified under a trusted key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<GateResult>,
}

/// What a verified bundle shows and does not show (seed 003).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    pub shows: &'static str,
    pub provider_action_proven: bool,
    pub authorization_granted: bool,
}

/// The scope of every result.
pub const SCOPE: Scope = Scope {
    shows: "what a trusted key signed and logged",
    provider_action_proven: false,
    authorization_granted: false,
};

/// The verdict on a bundle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    pub ok: bool,
    pub reason: Reason,
    pub message: String,
    /// JSON pointer into the request of what decided the reason (`""` when the bundle verifies).
    pub path: String,
    pub items: Vec<ItemResult>,
    pub head: Option<HeadSummary>,
    pub evidence: Option<Evidence>,
    /// For `malformed`: the stable error code, message and pointer.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "error_doc")]
    pub error: Option<Error>,
    pub scope: Scope,
}

fn error_doc<S: serde::Serializer>(e: &Option<Error>, s: S) -> Result<S::Ok, S::Error> {
    match e {
        Some(e) => serde_json::json!({"code": e.code.as_str(), "message": e.message, "path": e.path}).serialize(s),
        None => s.serialize_none(),
    }
}

impl Verification {
    /// A `malformed` verdict for unreadable input.
    pub fn malformed(error: Error) -> Verification {
        Verification {
            ok: false,
            reason: Reason::Malformed,
            message: format!("unreadable input at \"{}\": {}", error.path, error.message),
            path: error.path.clone(),
            items: Vec::new(),
            head: None,
            evidence: None,
            error: Some(error),
            scope: SCOPE,
        }
    }

    /// A rejection resting on `finding`.
    pub(crate) fn rejected(
        finding: Finding,
        items: Vec<ItemResult>,
        head: Option<HeadSummary>,
        evidence: Option<Evidence>,
    ) -> Verification {
        let Finding { reason, message, path } = finding;
        Verification { ok: false, reason, message, path, items, head, evidence, error: None, scope: SCOPE }
    }

    /// Every check holds: every receipt signed by a trusted key and logged under `head`.
    pub(super) fn verified(items: Vec<ItemResult>, head: HeadSummary) -> Verification {
        let message = format!(
            "{} receipt(s) signed by a trusted key and logged under the head of size {}",
            items.len(),
            head.size
        );
        Verification {
            ok: true,
            reason: Reason::Verifies,
            message,
            path: String::new(),
            items,
            head: Some(head),
            evidence: None,
            error: None,
            scope: SCOPE,
        }
    }

    /// Compact JSON.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_else(|e| format!("{{\"ok\":false,\"reason\":\"malformed\",\"message\":{:?}}}", e.to_string()))
    }

    /// Indented JSON, in the same member order.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| self.to_json_string())
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A reason with what it is about: what a phase of the verifier decides.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub(crate) reason: Reason,
    pub(crate) message: String,
    pub(crate) path: String,
}

impl Finding {
    pub(crate) fn new(reason: Reason, path: impl Into<String>, message: impl Into<String>) -> Finding {
        Finding { reason, message: message.into(), path: path.into() }
    }
}
