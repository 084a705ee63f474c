//! The reference gate, in memory: grant → attest → confirm (DONE | FAILED | UNKNOWN) → receipt → log → checkpoint →
//! bundle. The clock is injected ([`Clock`]; [`FixedClock`] for tests and vectors), so the same calls sign the same
//! bytes. One issuer key signs attestations, receipts and checkpoints, each under its own signing domain.
//!
//! Rules it keeps (docs/PROOF.md §Gate): an attestation is issued only when the action check
//! ([`crate::purchase::verify_action`]) ALLOWs the mutation under its grant; a receipt only when the provider evidence
//! names exactly the attested mutation; an UNKNOWN outcome produces no receipt, never enters the log and holds the
//! action until it is reconciled; and one tenant and idempotency key get at most one DONE receipt.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use rustc_hash::FxHashMap;
use serde_json::{Map, Value, json};

use super::bundle::{Bundle, BundleItem, OlderHead};
use super::envelope::{Attestation, Envelope, EnvelopeError, Kind, Limits, Receipt, Status};
use super::keys::{KeySet, TrustedKey};
use super::merkle::{MerkleError, MerkleLog};
use super::note::{self, Checkpoint, NoteError, NoteSigner};
use crate::ed25519::SigningKey;
use crate::encoding::{hex, sha256};
use crate::money::Currency;
use crate::purchase::{self, Verdict};
use crate::time::Timestamp;

/// Largest provider evidence accepted, in bytes.
pub const MAX_EVIDENCE_BYTES: usize = 64 * 1024;

/// Where the gate gets the time: Unix seconds. Core has no clock of its own.
pub trait Clock: Send + Sync + fmt::Debug {
    fn now(&self) -> i64;
}

/// A clock that says what it was told: for tests and the published vectors.
#[derive(Debug)]
pub struct FixedClock {
    t: AtomicI64,
}

impl FixedClock {
    pub fn new(t: i64) -> FixedClock {
        FixedClock { t: AtomicI64::new(t) }
    }

    pub fn set(&self, t: i64) {
        self.t.store(t, Ordering::SeqCst);
    }

    /// Moves the clock `secs` seconds on.
    pub fn advance(&self, secs: i64) {
        self.t.fetch_add(secs, Ordering::SeqCst);
    }
}

impl Clock for FixedClock {
    fn now(&self) -> i64 {
        self.t.load(Ordering::SeqCst)
    }
}

/// How the gate signs: its log origin (`curbi-checkpoint-v1.…`), the key id in its envelopes, and lifetimes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateConfig {
    /// The checkpoint origin, which is also the log key's note key name.
    pub origin: String,
    /// The `kid` written into attestations and receipts; `None` for the key's RFC 7638 thumbprint.
    pub kid: Option<String>,
    /// How long an attestation permits its mutation, in seconds.
    pub attestation_ttl: i64,
    /// How long a receipt stays fresh (`exp` − `iat`), in seconds.
    pub receipt_ttl: i64,
}

impl GateConfig {
    /// Five-minute attestations and thirty-day receipts under `origin`.
    pub fn new(origin: &str) -> GateConfig {
        GateConfig { origin: origin.to_string(), kid: None, attestation_ttl: 300, receipt_ttl: 30 * 86_400 }
    }
}

/// Permission for an agent: exact agent, the operations and resources it may touch (resources exact, or a prefix
/// pattern ending in `*`), per-action limits and a validity window (Unix seconds, `expires_at` exclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub id: Option<String>,
    pub agent: String,
    pub operations: Vec<String>,
    pub resources: Vec<String>,
    pub limits: Limits,
    pub not_before: Option<i64>,
    pub expires_at: i64,
}

/// A grant the gate holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GrantId(usize);

/// One mutation an agent asks to make. The tenant and idempotency key name it; at most one DONE receipt exists per
/// name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutation {
    pub tenant: String,
    pub idempotency_key: String,
    pub agent: String,
    pub operation: String,
    pub resource: String,
    /// Minor units of `currency`.
    pub amount: Option<i64>,
    /// Uppercase ISO 4217.
    pub currency: Option<String>,
}

/// What the provider said. DONE and FAILED carry the provider evidence as the exact bytes received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome<'a> {
    Done(&'a [u8]),
    Failed(&'a [u8]),
    Unknown,
}

/// A receipt the gate issued and logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedReceipt {
    /// The compact receipt, which is also the log entry.
    pub receipt: String,
    /// Its leaf index in the log.
    pub leaf: u64,
    /// SHA-256 of its signed bytes.
    pub digest: [u8; 32],
}

/// The result of a confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmation {
    Receipt(IssuedReceipt),
    /// UNKNOWN: no receipt, nothing logged; the action is held until [`Gate::confirm`] reconciles it.
    Held,
}

/// Why the gate refused. [`GateError::code`] is stable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GateError {
    #[error("invalid grant: {0}")]
    InvalidGrant(String),
    #[error("no such grant")]
    UnknownGrant,
    #[error("invalid mutation: {0}")]
    InvalidMutation(String),
    #[error("the action check says {verdict}: {}", reasons.join(", "))]
    NotAllowed { verdict: &'static str, reasons: Vec<String> },
    #[error("this idempotency key already names another mutation")]
    IdempotencyConflict,
    #[error("this tenant and idempotency key already have a DONE receipt")]
    AlreadyDone,
    #[error("the action is held after an UNKNOWN outcome; reconcile it with DONE or FAILED")]
    Held,
    #[error("no attestation is waiting for this tenant and idempotency key")]
    NotAttested,
    #[error("provider evidence is {0}")]
    InvalidEvidence(String),
    #[error("provider evidence does not match the attested mutation: {0}")]
    EvidenceMismatch(String),
    #[error("not a head this gate signed")]
    UnknownHead,
    #[error("leaf {leaf} is not below the head size {size}")]
    LeafOutOfRange { leaf: u64, size: u64 },
    #[error("checkpoint: {0}")]
    Note(#[from] NoteError),
    #[error("log: {0}")]
    Merkle(#[from] MerkleError),
    #[error("envelope: {0}")]
    Envelope(#[from] EnvelopeError),
}

impl GateError {
    /// Stable snake_case code.
    pub fn code(&self) -> &'static str {
        match self {
            GateError::InvalidGrant(_) => "invalid_grant",
            GateError::UnknownGrant => "unknown_grant",
            GateError::InvalidMutation(_) => "invalid_mutation",
            GateError::NotAllowed { .. } => "not_allowed",
            GateError::IdempotencyConflict => "idempotency_conflict",
            GateError::AlreadyDone => "already_done",
            GateError::Held => "held",
            GateError::NotAttested => "not_attested",
            GateError::InvalidEvidence(_) => "invalid_evidence",
            GateError::EvidenceMismatch(_) => "evidence_mismatch",
            GateError::UnknownHead => "unknown_head",
            GateError::LeafOutOfRange { .. } => "leaf_out_of_range",
            GateError::Note(_) => "checkpoint_failed",
            GateError::Merkle(_) => "log_failed",
            GateError::Envelope(_) => "envelope_failed",
        }
    }
}

/// Where one tenant and idempotency key stand.
#[derive(Debug, Clone)]
enum Slot {
    /// Permission issued, outcome not yet known.
    Attested(Pending),
    /// The provider outcome was UNKNOWN: held until reconciled.
    Held(Pending),
    /// A FAILED receipt was issued; a new attestation may retry.
    Failed,
    /// A DONE receipt was issued: the key is closed.
    Done,
}

#[derive(Debug, Clone)]
struct Pending {
    envelope: Envelope,
    attestation: Attestation,
}

/// One log entry with the attestation its receipt completes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub receipt: String,
    pub attestation: Option<String>,
}

/// The in-memory reference gate.
#[derive(Debug)]
pub struct Gate {
    key: SigningKey,
    kid: String,
    config: GateConfig,
    clock: Arc<dyn Clock>,
    grants: Vec<(Grant, u64)>,
    slots: FxHashMap<(String, String), Slot>,
    log: MerkleLog,
    entries: Vec<LogEntry>,
    /// Signed heads, by tree size (the latest signature of each size).
    heads: FxHashMap<u64, String>,
}

impl Gate {
    /// A gate that signs with `key` under `config`, reading time from `clock`.
    pub fn new(key: SigningKey, config: GateConfig, clock: Arc<dyn Clock>) -> Result<Gate, GateError> {
        let probe = Checkpoint::new(&config.origin, 0, [0; 32])?;
        if !probe.is_curbi() {
            return Err(GateError::Note(NoteError::NotCurbiOrigin));
        }
        let kid = match &config.kid {
            Some(kid) => kid.clone(),
            None => key.verifying_key().thumbprint(),
        };
        if config.attestation_ttl <= 0 || config.receipt_ttl <= 0 {
            return Err(GateError::InvalidGrant("lifetimes must be positive".into()));
        }
        Ok(Gate {
            key,
            kid,
            config,
            clock,
            grants: Vec::new(),
            slots: FxHashMap::default(),
            log: MerkleLog::new(),
            entries: Vec::new(),
            heads: FxHashMap::default(),
        })
    }

    /// The key id in this gate's envelopes.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    pub fn origin(&self) -> &str {
        &self.config.origin
    }

    /// The issuer's public key as a trusted key (its `kid`, no window, not tagged as a test key).
    pub fn trusted_key(&self) -> Result<TrustedKey, GateError> {
        TrustedKey::new(self.key.verifying_key()).with_kid(&self.kid).map_err(|e| GateError::InvalidGrant(e.message))
    }

    /// The log (for sizes, roots and proofs).
    pub fn log(&self) -> &MerkleLog {
        &self.log
    }

    /// Every log entry, in leaf order.
    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// The tenant and idempotency keys held after an UNKNOWN outcome.
    pub fn held(&self) -> Vec<(String, String)> {
        let mut held: Vec<_> =
            self.slots.iter().filter(|(_, s)| matches!(s, Slot::Held(_))).map(|(k, _)| k.clone()).collect();
        held.sort();
        held
    }

    fn now(&self) -> i64 {
        self.clock.now()
    }

    /// Registers a grant.
    pub fn grant(&mut self, grant: Grant) -> Result<GrantId, GateError> {
        let g = |m: String| GateError::InvalidGrant(m);
        if grant.operations.is_empty() || grant.resources.is_empty() {
            return Err(g("a grant needs at least one operation and one resource".into()));
        }
        // The action check reads it; a grant it cannot read would DENY every action.
        let probe = purchase::verify_action(&grant_document(&grant, 0)?, &json!({}), timestamp(0));
        let unreadable = ["malformed", "amount_invalid", "timestamp_invalid", "currency_unknown"];
        if let Some(r) =
            probe.reasons().iter().find(|r| r.path.starts_with("/grant") && unreadable.contains(&r.code.as_str()))
        {
            return Err(g(format!("{} at {}: {}", r.code.as_str(), r.path, r.message)));
        }
        self.grants.push((grant, 0));
        Ok(GrantId(self.grants.len() - 1))
    }

    /// Signs permission for one mutation, if the action check ALLOWs it under the grant now. Asking again for the
    /// same mutation while its attestation is waiting returns the same attestation.
    pub fn attest(&mut self, grant: GrantId, mutation: &Mutation) -> Result<String, GateError> {
        check_mutation(mutation)?;
        let key = (mutation.tenant.clone(), mutation.idempotency_key.clone());
        match self.slots.get(&key) {
            Some(Slot::Done) => return Err(GateError::AlreadyDone),
            Some(Slot::Held(_)) => return Err(GateError::Held),
            Some(Slot::Attested(p)) => {
                return if same_mutation(&p.attestation, mutation) && p.attestation.exp > self.now() {
                    Ok(p.envelope.to_compact())
                } else if same_mutation(&p.attestation, mutation) {
                    // Expired and never confirmed: a fresh attestation replaces it below.
                    self.issue_attestation(grant, mutation, key)
                } else {
                    Err(GateError::IdempotencyConflict)
                };
            }
            Some(Slot::Failed) | None => {}
        }
        self.issue_attestation(grant, mutation, key)
    }

    fn issue_attestation(
        &mut self,
        grant: GrantId,
        mutation: &Mutation,
        key: (String, String),
    ) -> Result<String, GateError> {
        let now = self.now();
        let (g, used) = self.grants.get(grant.0).ok_or(GateError::UnknownGrant)?;
        let action = action_document(mutation);
        let decision = purchase::verify_action(&grant_document(g, *used)?, &action, timestamp(now));
        if decision.verdict() != Verdict::Allow {
            return Err(GateError::NotAllowed {
                verdict: decision.verdict().as_str(),
                reasons: decision.reasons().iter().map(|r| r.code.as_str().to_string()).collect(),
            });
        }
        let attestation = attestation_for(mutation, &g.limits, g.id.as_deref(), now, self.config.attestation_ttl);
        attestation.check()?;
        let envelope = Envelope::sign(Kind::Attestation, attestation.to_payload(), &self.key, &self.kid)?;
        let compact = envelope.to_compact();
        if let Some((_, used)) = self.grants.get_mut(grant.0) {
            *used += 1;
        }
        self.slots.insert(key, Slot::Attested(Pending { envelope, attestation }));
        Ok(compact)
    }

    /// Records the provider outcome of an attested (or held) mutation. DONE and FAILED need evidence that names
    /// exactly the attested mutation, and then produce a signed receipt appended to the log; UNKNOWN produces
    /// nothing and holds the action.
    pub fn confirm(
        &mut self,
        tenant: &str,
        idempotency_key: &str,
        outcome: Outcome<'_>,
    ) -> Result<Confirmation, GateError> {
        let key = (tenant.to_string(), idempotency_key.to_string());
        let pending = match self.slots.get(&key) {
            Some(Slot::Attested(p) | Slot::Held(p)) => p.clone(),
            Some(Slot::Done) => return Err(GateError::AlreadyDone),
            Some(Slot::Failed) | None => return Err(GateError::NotAttested),
        };
        let (status, evidence) = match outcome {
            Outcome::Unknown => {
                self.slots.insert(key, Slot::Held(pending));
                return Ok(Confirmation::Held);
            }
            Outcome::Done(e) => (Status::Done, e),
            Outcome::Failed(e) => (Status::Failed, e),
        };
        check_evidence(&pending.attestation, evidence)?;
        let issued = self.sign_and_log(&pending, status, evidence)?;
        self.slots.insert(key, if status == Status::Done { Slot::Done } else { Slot::Failed });
        Ok(Confirmation::Receipt(issued))
    }

    fn sign_and_log(&mut self, p: &Pending, status: Status, evidence: &[u8]) -> Result<IssuedReceipt, GateError> {
        let receipt = receipt_for(&p.envelope, &p.attestation, status, evidence, self.now(), self.config.receipt_ttl);
        receipt.check()?;
        let envelope = Envelope::sign(Kind::Receipt, receipt.to_payload(), &self.key, &self.kid)?;
        let compact = envelope.to_compact();
        let leaf = self.log.append(compact.as_bytes());
        self.entries.push(LogEntry { receipt: compact.clone(), attestation: Some(p.envelope.to_compact()) });
        Ok(IssuedReceipt { receipt: compact, leaf, digest: envelope.digest() })
    }

    /// Issuer misbehaviour on purpose, for the published vectors only (feature `misbehave`, which only
    /// curbi-testkit enables): signs and logs a second receipt for an attestation whose key is already closed,
    /// bypassing every rule the gate keeps.
    #[cfg(feature = "misbehave")]
    pub fn misbehave_receipt(
        &mut self,
        attestation: &str,
        status: Status,
        evidence: &[u8],
    ) -> Result<IssuedReceipt, GateError> {
        let envelope = Envelope::parse(Kind::Attestation, attestation)?;
        let attestation = envelope.attestation()?;
        self.sign_and_log(&Pending { envelope, attestation }, status, evidence)
    }

    /// Signs the head of the log at its current size, at the current time (C2SP checkpoint with the log key's
    /// Ed25519 note signature and `cosignature/v1` timestamp). Returns the note text.
    pub fn checkpoint(&mut self) -> Result<String, GateError> {
        let size = self.log.size();
        let checkpoint = Checkpoint::new(&self.config.origin, size, self.log.root())?;
        let at = u64::try_from(self.now()).map_err(|_| NoteError::TimestampOutOfRange)?;
        let text = note::sign_curbi_checkpoint(&checkpoint, &self.key, at)?;
        self.heads.insert(size, text.clone());
        Ok(text)
    }

    /// A bundle of the receipts at `leaves` (with their attestations when `attestations`), proven under `head` (a
    /// head this gate signed), with consistency proofs from each of `older` (heads it signed, smaller or equal).
    pub fn bundle(&self, leaves: &[u64], head: &str, older: &[&str], attestations: bool) -> Result<Bundle, GateError> {
        let size = self.own_head_size(head)?;
        let mut receipts = Vec::with_capacity(leaves.len());
        for &leaf in leaves {
            let entry = usize::try_from(leaf)
                .ok()
                .filter(|_| leaf < size)
                .and_then(|i| self.entries.get(i))
                .ok_or(GateError::LeafOutOfRange { leaf, size })?;
            receipts.push(BundleItem {
                receipt: entry.receipt.clone(),
                attestation: if attestations { entry.attestation.clone() } else { None },
                index: leaf,
                proof: self.log.inclusion_proof(leaf, size)?,
            });
        }
        let mut consistency = Vec::with_capacity(older.len());
        for old in older {
            let old_size = self.own_head_size(old)?;
            // The empty tree is a prefix of every tree: a verifier takes a head of size 0 without a proof, and
            // RFC 9162 has none from size 0 (docs/PROOF.md §Verifying a bundle).
            if old_size == 0 {
                continue;
            }
            consistency
                .push(OlderHead { head: (*old).to_string(), proof: self.log.consistency_proof(old_size, size)? });
        }
        Ok(Bundle { head: head.to_string(), receipts, consistency, keys: None })
    }

    fn own_head_size(&self, head: &str) -> Result<u64, GateError> {
        let size = note::parse_curbi_checkpoint(head)?.checkpoint().size();
        match self.heads.get(&size) {
            Some(text) if text == head => Ok(size),
            _ => Err(GateError::UnknownHead),
        }
    }

    /// A JWKS of this gate's key, tagged as a test key when `test` (for published examples).
    pub fn jwks(&self, test: bool) -> Result<KeySet, GateError> {
        KeySet::from_keys(vec![self.trusted_key()?.with_test(test)]).map_err(|e| GateError::InvalidGrant(e.message))
    }
}

/// Adds a witness's `cosignature/v1` at time `at` to a signed checkpoint note.
pub fn witness_cosign(head: &str, witness: &NoteSigner, at: u64) -> Result<String, NoteError> {
    let mut n = note::Note::parse(head)?;
    let line = witness.cosign(n.text(), at)?;
    n.add_signature(line)?;
    Ok(n.to_string())
}

fn timestamp(t: i64) -> Timestamp {
    Timestamp::from_unix(t, 0).expect("zero nanoseconds are always valid")
}

fn rfc3339(t: i64) -> String {
    timestamp(t).to_rfc3339()
}

/// The grant as the action check reads it (docs/PURCHASE.md §Action check), with `used` attestations so far.
fn grant_document(g: &Grant, used: u64) -> Result<Value, GateError> {
    let mut limits = Map::new();
    if let Some(v) = g.limits.max_amount {
        limits.insert("max_amount".into(), v.into());
    }
    if let Some(v) = g.limits.confirmation_threshold {
        limits.insert("confirmation_threshold".into(), v.into());
    }
    if let Some(c) = &g.limits.currency {
        limits.insert("currency".into(), c.clone().into());
    }
    if let Some(v) = g.limits.max_count {
        limits.insert("max_count".into(), v.into());
    }
    let mut doc = Map::new();
    if let Some(id) = &g.id {
        doc.insert("id".into(), id.clone().into());
    }
    doc.insert("agent".into(), g.agent.clone().into());
    doc.insert("operations".into(), g.operations.clone().into());
    doc.insert("resources".into(), g.resources.clone().into());
    if !limits.is_empty() {
        doc.insert("limits".into(), Value::Object(limits));
    }
    doc.insert("used".into(), used.into());
    if let Some(t) = g.not_before {
        doc.insert("not_before".into(), rfc3339(t).into());
    }
    doc.insert("expires_at".into(), rfc3339(g.expires_at).into());
    if g.expires_at < 0 || g.not_before.is_some_and(|t| t < 0) {
        return Err(GateError::InvalidGrant("times must be Unix seconds from 0".into()));
    }
    Ok(Value::Object(doc))
}

/// The action as the action check reads it (docs/PURCHASE.md §Action check).
pub fn action_document(m: &Mutation) -> Value {
    let mut doc = Map::new();
    doc.insert("agent".into(), m.agent.clone().into());
    doc.insert("operation".into(), m.operation.clone().into());
    doc.insert("resource".into(), m.resource.clone().into());
    if let (Some(a), Some(c)) = (m.amount, &m.currency) {
        doc.insert("amount".into(), a.into());
        doc.insert("currency".into(), c.clone().into());
    }
    Value::Object(doc)
}

/// The attestation permitting `m` under a grant with `limits` (and id `grant`), issued at `now` for `ttl` seconds.
pub fn attestation_for(m: &Mutation, limits: &Limits, grant: Option<&str>, now: i64, ttl: i64) -> Attestation {
    Attestation {
        tenant: m.tenant.clone(),
        idempotency_key: m.idempotency_key.clone(),
        agent: m.agent.clone(),
        operation: m.operation.clone(),
        resource: m.resource.clone(),
        amount: m.amount,
        currency: m.currency.clone(),
        limits: limits.clone(),
        grant: grant.map(str::to_string),
        iat: now,
        exp: now.saturating_add(ttl),
    }
}

/// The receipt that completes the attestation `envelope` (whose payload is `a`) with `status`, issued at `now`
/// and fresh for `ttl` seconds: the attested subject, the attestation's digest and the evidence's digest.
pub fn receipt_for(
    envelope: &Envelope,
    a: &Attestation,
    status: Status,
    evidence: &[u8],
    now: i64,
    ttl: i64,
) -> Receipt {
    Receipt {
        tenant: a.tenant.clone(),
        idempotency_key: a.idempotency_key.clone(),
        agent: a.agent.clone(),
        operation: a.operation.clone(),
        resource: a.resource.clone(),
        amount: a.amount,
        currency: a.currency.clone(),
        status,
        attestation: hex(&envelope.digest()),
        evidence: hex(&sha256(evidence)),
        iat: now,
        exp: now.saturating_add(ttl),
    }
}

fn check_mutation(m: &Mutation) -> Result<(), GateError> {
    // The attestation's own rules, with a placeholder window.
    let probe = attestation_for(m, &Limits::default(), None, 0, 1);
    probe.check().map_err(|e| GateError::InvalidMutation(e.0))
}

fn same_mutation(a: &Attestation, m: &Mutation) -> bool {
    a.agent == m.agent
        && a.operation == m.operation
        && a.resource == m.resource
        && a.amount == m.amount
        && a.currency == m.currency
}

/// Provider evidence must be a JSON object naming the attested `operation` and `resource`, and, when the mutation
/// has an amount, the same `amount` (integer minor units) and `currency` (either case). Other members are the
/// provider's own and are kept only through the digest.
pub fn check_evidence(a: &Attestation, evidence: &[u8]) -> Result<(), GateError> {
    if evidence.len() > MAX_EVIDENCE_BYTES {
        return Err(GateError::InvalidEvidence(format!("larger than {MAX_EVIDENCE_BYTES} bytes")));
    }
    let text = std::str::from_utf8(evidence).map_err(|_| GateError::InvalidEvidence("not UTF-8".into()))?;
    let value = super::json::parse_strict(text).map_err(|e| GateError::InvalidEvidence(e.message))?;
    let obj = value.as_object().ok_or_else(|| GateError::InvalidEvidence("not a JSON object".into()))?;
    let mismatch = |m: &str| GateError::EvidenceMismatch(m.to_string());
    if obj.get("operation").and_then(Value::as_str) != Some(a.operation.as_str()) {
        return Err(mismatch("operation"));
    }
    if obj.get("resource").and_then(Value::as_str) != Some(a.resource.as_str()) {
        return Err(mismatch("resource"));
    }
    match (a.amount, &a.currency) {
        (Some(amount), Some(currency)) => {
            let n = obj.get("amount").filter(|v| v.is_i64() || v.is_u64()).and_then(Value::as_i64);
            if n != Some(amount) {
                return Err(mismatch("amount"));
            }
            let given = obj.get("currency").and_then(Value::as_str).map(Currency::parse);
            let attested = Currency::parse(currency).ok();
            if !matches!(given, Some(Ok(c)) if Some(c) == attested) {
                return Err(mismatch("currency"));
            }
        }
        _ => {
            if obj.contains_key("amount") {
                return Err(mismatch("amount (the attested mutation has none)"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::bundle::ParsedBundle;

    const T0: i64 = 1_793_714_400;

    fn gate() -> (Gate, Arc<FixedClock>) {
        let clock = Arc::new(FixedClock::new(T0));
        let g = Gate::new(
            SigningKey::from_seed(&[3; 32]),
            GateConfig::new("curbi-checkpoint-v1.example.com/log"),
            clock.clone(),
        )
        .expect("gate");
        (g, clock)
    }

    fn refund_grant() -> Grant {
        Grant {
            id: Some("g1".into()),
            agent: "agent:support".into(),
            operations: vec!["billing.refund".into()],
            resources: vec!["charge:*".into()],
            limits: Limits { max_amount: Some(10_000), currency: Some("USD".into()), ..Limits::default() },
            not_before: None,
            expires_at: T0 + 86_400,
        }
    }

    fn refund(key: &str, amount: i64) -> Mutation {
        Mutation {
            tenant: "acme".into(),
            idempotency_key: key.into(),
            agent: "agent:support".into(),
            operation: "billing.refund".into(),
            resource: "charge:ch_1001".into(),
            amount: Some(amount),
            currency: Some("USD".into()),
        }
    }

    fn evidence(amount: i64) -> Vec<u8> {
        format!(r#"{{"operation":"billing.refund","resource":"charge:ch_1001","amount":{amount},"currency":"usd"}}"#)
            .into_bytes()
    }

    #[test]
    fn grant_attest_confirm_log_checkpoint_bundle() {
        let (mut g, clock) = gate();
        let id = g.grant(refund_grant()).expect("grant");
        let att = g.attest(id, &refund("k1", 5000)).expect("attests");
        assert_eq!(g.attest(id, &refund("k1", 5000)), Ok(att.clone()), "asking again returns the same permission");
        assert_eq!(g.attest(id, &refund("k1", 6000)), Err(GateError::IdempotencyConflict));
        clock.advance(60);
        let confirmed = g.confirm("acme", "k1", Outcome::Done(&evidence(5000))).expect("confirms");
        let r = match confirmed {
            Confirmation::Receipt(r) => r,
            Confirmation::Held => IssuedReceipt { receipt: String::new(), leaf: u64::MAX, digest: [0; 32] },
        };
        assert_eq!(r.leaf, 0, "a DONE confirmation issues a receipt at leaf 0");
        let receipt = Envelope::parse(Kind::Receipt, &r.receipt).expect("parses").receipt().expect("payload");
        let att_env = Envelope::parse(Kind::Attestation, &att).expect("parses");
        assert_eq!(receipt.binds(&att_env, &att_env.attestation().expect("payload")), Ok(()));
        assert_eq!(receipt.iat, T0 + 60);
        assert_eq!(g.confirm("acme", "k1", Outcome::Done(&evidence(5000))), Err(GateError::AlreadyDone));
        assert_eq!(g.attest(id, &refund("k1", 5000)), Err(GateError::AlreadyDone));
        let head = g.checkpoint().expect("signs");
        let bundle = g.bundle(&[0], &head, &[], true).expect("bundle");
        let parsed = ParsedBundle::from_value(&bundle.to_value(), "/bundle").expect("parses");
        assert_eq!(parsed.items.len(), 1);
    }

    #[test]
    fn unknown_holds_and_never_logs() {
        let (mut g, _) = gate();
        let id = g.grant(refund_grant()).expect("grant");
        g.attest(id, &refund("k2", 100)).expect("attests");
        assert_eq!(g.confirm("acme", "k2", Outcome::Unknown), Ok(Confirmation::Held));
        assert_eq!(g.log().size(), 0);
        assert_eq!(g.held(), vec![("acme".to_string(), "k2".to_string())]);
        assert_eq!(g.attest(id, &refund("k2", 100)), Err(GateError::Held));
        let c = g.confirm("acme", "k2", Outcome::Failed(&evidence(100))).expect("reconciles");
        assert!(matches!(c, Confirmation::Receipt(IssuedReceipt { leaf: 0, .. })));
        assert!(g.held().is_empty());
        // After FAILED, a retry under the same key may be attested again.
        assert!(g.attest(id, &refund("k2", 100)).is_ok());
    }

    #[test]
    fn evidence_must_match_or_no_receipt() {
        let (mut g, _) = gate();
        let id = g.grant(refund_grant()).expect("grant");
        g.attest(id, &refund("k3", 5000)).expect("attests");
        for (bad, code) in [
            (evidence(50_000), "evidence_mismatch"),
            (b"not json".to_vec(), "invalid_evidence"),
            (
                br#"{"operation":"billing.refund","resource":"charge:ch_2","amount":5000,"currency":"USD"}"#.to_vec(),
                "evidence_mismatch",
            ),
            (
                br#"{"operation":"billing.refund","resource":"charge:ch_1001","amount":5000,"currency":"EUR"}"#
                    .to_vec(),
                "evidence_mismatch",
            ),
        ] {
            let e = g.confirm("acme", "k3", Outcome::Done(&bad)).expect_err("refused");
            assert_eq!(e.code(), code, "{}", String::from_utf8_lossy(&bad));
        }
        assert_eq!(g.log().size(), 0);
    }

    #[test]
    fn the_action_check_decides_attestations() {
        let (mut g, clock) = gate();
        let id = g.grant(refund_grant()).expect("grant");
        let over = g.attest(id, &refund("k4", 20_000)).expect_err("over the cap");
        assert!(
            matches!(&over, GateError::NotAllowed { verdict: "DENY", reasons } if reasons == &["amount_over_cap"]),
            "{over:?}"
        );
        let wrong_agent = Mutation { agent: "agent:other".into(), ..refund("k5", 10) };
        assert_eq!(g.attest(id, &wrong_agent).map_err(|e| e.code()), Err("not_allowed"));
        clock.advance(86_400);
        assert_eq!(g.attest(id, &refund("k6", 10)).map_err(|e| e.code()), Err("not_allowed"));
        let bad = Grant { operations: vec![], ..refund_grant() };
        assert_eq!(g.grant(bad).map_err(|e| e.code()), Err("invalid_grant"));
    }
}
