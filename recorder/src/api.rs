//! The recorder as JSON in, JSON out: what the C ABI, Python, Node, Go, the CLI and the server call, so that every
//! surface only marshals (docs/RECORDER.md §Calls). Requests are read by core's strict reader; every refusal is an
//! error with a stable code and the pointer of the bad member.

use curbi::proof::gate::Mutation;
use curbi::{Error, ErrorCode};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::time::Duration;

use crate::keyfile;
use crate::recorder::{AttestRequest, BundleRequest, Outcome, Recorder, RecorderOptions, Select};
use crate::store::About;
use crate::witness::{Sharing, Witness};

/// Every method [`Recorder::call_json`] answers.
pub const METHODS: [&str; 16] = [
    "grant",
    "mandate",
    "attest",
    "confirm",
    "reconcile",
    "held",
    "checkpoint",
    "cosign",
    "publish",
    "bundle",
    "receipt",
    "receipts",
    "keys",
    "status",
    "set_clock",
    "seal",
];

fn wrong(path: &str, expected: &str, got: &Value) -> Error {
    curbi::json::wrong_type(path, expected, got)
}

/// An object's members, refusing any not in `allowed`.
fn object<'v>(v: &'v Value, path: &str, allowed: &[&str]) -> Result<&'v Map<String, Value>, Error> {
    let obj = v.as_object().ok_or_else(|| wrong(path, "an object", v))?;
    if let Some(name) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(Error::new(
            ErrorCode::UnknownField,
            curbi::json::member_pointer(path, name),
            format!("\"{name}\" is not a member here (allowed: {})", allowed.join(", ")),
        ));
    }
    Ok(obj)
}

fn text(obj: &Map<String, Value>, path: &str, name: &str) -> Result<Option<String>, Error> {
    match obj.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(wrong(&format!("{path}/{name}"), "a string", v)),
    }
}

/// `conversation`: 1 to 256 bytes without control characters, an id the caller chooses (a chat session, a ticket).
fn conversation(obj: &Map<String, Value>) -> Result<Option<String>, Error> {
    let c = text(obj, "", "conversation")?;
    if let Some(s) = &c
        && (s.is_empty() || s.len() > 256 || s.chars().any(char::is_control))
    {
        let m = "a conversation id is 1 to 256 bytes without control characters";
        return Err(Error::new(ErrorCode::InvalidValue, "/conversation", m));
    }
    Ok(c)
}

fn required(obj: &Map<String, Value>, path: &str, name: &str) -> Result<String, Error> {
    text(obj, path, name)?
        .ok_or_else(|| Error::new(ErrorCode::MissingField, format!("{path}/{name}"), format!("\"{name}\" is required")))
}

fn integer(obj: &Map<String, Value>, path: &str, name: &str) -> Result<Option<i64>, Error> {
    match obj.get(name) {
        None => Ok(None),
        Some(v) => v.as_i64().map(Some).ok_or_else(|| wrong(&format!("{path}/{name}"), "an integer", v)),
    }
}

fn unsigned(obj: &Map<String, Value>, path: &str, name: &str) -> Result<Option<u64>, Error> {
    match obj.get(name) {
        None => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| wrong(&format!("{path}/{name}"), "an integer from 0", v)),
    }
}

fn boolean(obj: &Map<String, Value>, path: &str, name: &str) -> Result<Option<bool>, Error> {
    match obj.get(name) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(wrong(&format!("{path}/{name}"), "a boolean", v)),
    }
}

fn strings(obj: &Map<String, Value>, path: &str, name: &str) -> Result<Vec<String>, Error> {
    match obj.get(name) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().map(str::to_string).ok_or_else(|| wrong(&format!("{path}/{name}/{i}"), "a string", v))
            })
            .collect(),
        Some(v) => Err(wrong(&format!("{path}/{name}"), "an array of strings", v)),
    }
}

/// Opens a recorder from `{"path", "origin"?, "create"?, "key_file" | "key_env", "rotate"?, "now"?,
/// "attestation_ttl"?, "receipt_ttl"?, "max_clock_ahead"?, "predecessor"?, "witnesses"?, "witness_timeout_ms"?,
/// "publish"?}`. `create` (a boolean): `true` starts a new log in a missing or empty file, `false` opens an existing
/// log only; absent, a missing file becomes a new log when `origin` is given (docs/RECORDER.md §Creating and opening).
/// `now` (Unix seconds) fixes the clock, for tests and vectors; without it the system clock runs. `max_clock_ahead`
/// (seconds, default 7 days) is how far ahead of the last time the log used a write may be (docs/RECORDER.md §Time).
/// `predecessor` (a sealed log's final head) makes the log a successor: its first entry names that head
/// (§Sealing a log). `witnesses` (`[{key, url}]`) and `publish` (a directory) are what each `checkpoint` call does
/// with the head it signs (docs/RECORDER.md §Witnesses).
pub fn open_json(config: &[u8]) -> Result<Recorder, Error> {
    let v = curbi::json::read(config)?;
    let obj = object(
        &v,
        "",
        &[
            "path",
            "origin",
            "create",
            "key_file",
            "key_env",
            "rotate",
            "now",
            "attestation_ttl",
            "receipt_ttl",
            "max_clock_ahead",
            "predecessor",
            "witnesses",
            "witness_timeout_ms",
            "publish",
        ],
    )?;
    let path = PathBuf::from(required(obj, "", "path")?);
    // Absent: the origin the database was created with.
    let origin = text(obj, "", "origin")?.unwrap_or_default();
    let key = match (text(obj, "", "key_file")?, text(obj, "", "key_env")?) {
        (Some(file), None) => keyfile::read_key_file(std::path::Path::new(&file)),
        (None, Some(var)) => keyfile::read_key_env(&var),
        (None, None) => keyfile::read_key_env(keyfile::KEY_ENV),
        (Some(_), Some(_)) => {
            Err(Error::new(ErrorCode::ConflictingFields, "/key_env", "name a key file or a variable, not both"))
        }
    }?;
    let mut options = RecorderOptions::new(path, &origin, key);
    match boolean(obj, "", "create")? {
        Some(true) => options.create = crate::dbfile::Create::Yes,
        Some(false) => options.create = crate::dbfile::Create::No,
        None => {}
    }
    options.rotate = boolean(obj, "", "rotate")?.unwrap_or(false);
    if let Some(t) = integer(obj, "", "now")? {
        options = options.fixed_clock(t);
    }
    if let Some(t) = integer(obj, "", "attestation_ttl")? {
        options.attestation_ttl = t;
    }
    if let Some(t) = integer(obj, "", "receipt_ttl")? {
        options.receipt_ttl = t;
    }
    if let Some(t) = integer(obj, "", "max_clock_ahead")? {
        options.max_clock_ahead = t;
    }
    let predecessor = text(obj, "", "predecessor")?;
    let sharing = sharing(obj)?;
    let recorder = Recorder::open(options)?;
    if let Some(head) = predecessor {
        recorder.record_predecessor(&head)?;
    }
    if let Some(s) = sharing {
        recorder.share_heads(s)?;
    }
    Ok(recorder)
}

/// Most witnesses a recorder asks.
pub const MAX_WITNESSES: usize = 32;

/// `witnesses: [{key, url}]`, `witness_timeout_ms` (default 5000) and `publish` (a directory), when any is given.
fn sharing(obj: &Map<String, Value>) -> Result<Option<Sharing>, Error> {
    let mut witnesses = Vec::new();
    if let Some(list) = obj.get("witnesses") {
        let items = list.as_array().ok_or_else(|| wrong("/witnesses", "an array of {key, url}", list))?;
        if items.len() > MAX_WITNESSES {
            return Err(Error::new(ErrorCode::TooManyItems, "/witnesses", format!("more than {MAX_WITNESSES}")));
        }
        for (i, item) in items.iter().enumerate() {
            let path = format!("/witnesses/{i}");
            let o = object(item, &path, &["key", "url"])?;
            let w = Witness::new(&required(o, &path, "key")?, &required(o, &path, "url")?, &path)?;
            if witnesses.iter().any(|o: &Witness| o.name() == w.name()) {
                return Err(Error::new(ErrorCode::DuplicateKey, format!("{path}/key"), "this witness is listed twice"));
            }
            witnesses.push(w);
        }
    }
    let timeout = match unsigned(obj, "", "witness_timeout_ms")? {
        Some(0) => return Err(Error::new(ErrorCode::OutOfRange, "/witness_timeout_ms", "a timeout is positive")),
        Some(ms) => Duration::from_millis(ms),
        None => Duration::from_secs(5),
    };
    let publish = text(obj, "", "publish")?.map(PathBuf::from);
    if witnesses.is_empty() && publish.is_none() {
        return Ok(None);
    }
    Ok(Some(Sharing { witnesses, timeout, publish }))
}

fn to_json<T: Serialize>(v: &T) -> Result<String, Error> {
    serde_json::to_string(v).map_err(|e| Error::new(ErrorCode::Internal, "", e.to_string()))
}

fn attest_request(v: &Value) -> Result<AttestRequest, Error> {
    if v.get("checkout").is_some() {
        return purchase_request(v);
    }
    let obj = object(v, "", &["tenant", "idempotency_key", "grant", "action", "step_up_confirmed", "conversation"])?;
    let action =
        obj.get("action").ok_or_else(|| Error::new(ErrorCode::MissingField, "/action", "\"action\" is required"))?;
    let a = object(action, "/action", &["agent", "operation", "resource", "amount", "currency"])?;
    let amount = integer(a, "/action", "amount")?;
    let currency = text(a, "/action", "currency")?;
    if amount.is_some() != currency.is_some() {
        return Err(Error::new(ErrorCode::MissingField, "/action/currency", "amount and currency go together"));
    }
    Ok(AttestRequest {
        grant: required(obj, "", "grant")?,
        mutation: Mutation {
            tenant: required(obj, "", "tenant")?,
            idempotency_key: required(obj, "", "idempotency_key")?,
            agent: required(a, "/action", "agent")?,
            operation: required(a, "/action", "operation")?,
            resource: required(a, "/action", "resource")?,
            amount,
            currency,
        },
        checkout: None,
        step_up_confirmed: boolean(obj, "", "step_up_confirmed")?.unwrap_or(false),
        conversation: conversation(obj)?,
    })
}

/// `{tenant, idempotency_key, mandate, agent, checkout, step_up_confirmed?}`: a purchase under a mandate. The
/// operation, resource, amount and currency attested are the checkout's (`checkout.complete`, `checkout:<id>`).
fn purchase_request(v: &Value) -> Result<AttestRequest, Error> {
    let obj = object(
        v,
        "",
        &["tenant", "idempotency_key", "mandate", "agent", "checkout", "step_up_confirmed", "conversation"],
    )?;
    let checkout = obj.get("checkout").cloned().unwrap_or_default();
    let grant = required(obj, "", "mandate")?;
    let (tenant, key) = (required(obj, "", "tenant")?, required(obj, "", "idempotency_key")?);
    Ok(AttestRequest {
        grant,
        // What the purchase attests, read from the checkout once (`attest` uses it as it is).
        mutation: crate::recorder::purchase_mutation(tenant, key, required(obj, "", "agent")?, &checkout),
        checkout: Some(checkout),
        step_up_confirmed: boolean(obj, "", "step_up_confirmed")?.unwrap_or(false),
        conversation: conversation(obj)?,
    })
}

fn outcome(obj: &Map<String, Value>, allowed: &[&str]) -> Result<Outcome, Error> {
    let name = required(obj, "", "outcome")?;
    let evidence = text(obj, "", "evidence")?;
    let needs = name == "DONE" || name == "FAILED";
    if !allowed.contains(&name.as_str()) {
        return Err(Error::new(
            ErrorCode::InvalidEnum,
            "/outcome",
            format!("outcome is one of {}", allowed.join(", ")),
        ));
    }
    match (needs, evidence) {
        (true, None) => {
            Err(Error::new(ErrorCode::MissingField, "/evidence", format!("{name} needs the provider's answer")))
        }
        (false, Some(_)) => {
            Err(Error::new(ErrorCode::ConflictingFields, "/evidence", format!("{name} carries no evidence")))
        }
        (true, Some(e)) if name == "DONE" => Ok(Outcome::Done(e.into_bytes())),
        (true, Some(e)) => Ok(Outcome::Failed(e.into_bytes())),
        (false, None) if name == "UNKNOWN" => Ok(Outcome::Unknown),
        (false, None) => Ok(Outcome::NotPerformed),
    }
}

fn bundle_request(v: &Value) -> Result<BundleRequest, Error> {
    let obj = object(v, "", &["receipts", "actions", "head", "known", "attestations"])?;
    let select = match (obj.get("receipts"), obj.get("actions")) {
        (Some(r), None) => {
            let items = r.as_array().ok_or_else(|| wrong("/receipts", "an array of sequence numbers", r))?;
            let seqs = items
                .iter()
                .enumerate()
                .map(|(i, s)| s.as_u64().ok_or_else(|| wrong(&format!("/receipts/{i}"), "a sequence number", s)))
                .collect::<Result<Vec<_>, Error>>()?;
            Select::Seqs(seqs)
        }
        (None, Some(a)) => {
            let items = a.as_array().ok_or_else(|| wrong("/actions", "an array of actions", a))?;
            let actions = items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let path = format!("/actions/{i}");
                    let o = object(item, &path, &["tenant", "idempotency_key"])?;
                    Ok((required(o, &path, "tenant")?, required(o, &path, "idempotency_key")?))
                })
                .collect::<Result<Vec<_>, Error>>()?;
            Select::Actions(actions)
        }
        (Some(_), Some(_)) => {
            return Err(Error::new(
                ErrorCode::ConflictingFields,
                "/actions",
                "select by receipts or by actions, not both",
            ));
        }
        (None, None) => return Err(Error::new(ErrorCode::MissingField, "/receipts", "name receipts or actions")),
    };
    Ok(BundleRequest {
        select,
        head: text(obj, "", "head")?,
        known: strings(obj, "", "known")?,
        attestations: boolean(obj, "", "attestations")?.unwrap_or(true),
    })
}

impl Recorder {
    /// One call, JSON in and out (docs/RECORDER.md §Calls). `method` is one of [`METHODS`].
    pub fn call_json(&self, method: &str, request: &[u8]) -> Result<String, Error> {
        let v = curbi::json::read(request)?;
        match method {
            "grant" => to_json(&self.grant(&v)?),
            "mandate" => to_json(&self.mandate(&v)?),
            "attest" => to_json(&self.attest(&attest_request(&v)?)?),
            "confirm" | "reconcile" => {
                let obj = object(&v, "", &["tenant", "idempotency_key", "outcome", "evidence"])?;
                let (tenant, key) = (required(obj, "", "tenant")?, required(obj, "", "idempotency_key")?);
                let settled = if method == "confirm" {
                    self.confirm(&tenant, &key, outcome(obj, &["DONE", "FAILED", "UNKNOWN"])?)?
                } else {
                    self.reconcile(&tenant, &key, outcome(obj, &["DONE", "FAILED", "NOT_PERFORMED"])?)?
                };
                to_json(&settled)
            }
            "held" => {
                let obj = object(&v, "", &["limit"])?;
                let limit = unsigned(obj, "", "limit")?.unwrap_or(1000);
                to_json(&self.open_actions(usize::try_from(limit).unwrap_or(usize::MAX))?)
            }
            "checkpoint" => {
                object(&v, "", &[])?;
                match self.sharing() {
                    Some(s) => to_json(&self.checkpoint_shared(s)?),
                    None => to_json(&self.checkpoint()?),
                }
            }
            "cosign" => {
                // The latest head, cosigned by the configured witnesses (a retry after a witness was down).
                object(&v, "", &[])?;
                let s = self.sharing().filter(|s| !s.witnesses.is_empty()).ok_or_else(|| {
                    Error::new(ErrorCode::MissingField, "/witnesses", "the recorder was opened without witnesses")
                })?;
                to_json(&self.cosign(&s.witnesses, s.timeout)?)
            }
            "publish" => {
                // `{"dir"?}`: the log as C2SP tiles into dir (default: the configured `publish`).
                let obj = object(&v, "", &["dir"])?;
                let dir = match text(obj, "", "dir")? {
                    Some(d) => PathBuf::from(d),
                    None => self.sharing().and_then(|s| s.publish.clone()).ok_or_else(|| {
                        Error::new(ErrorCode::MissingField, "/dir", "name the directory to publish into")
                    })?,
                };
                to_json(&self.publish(&dir)?)
            }
            "bundle" => Ok(self.bundle(&bundle_request(&v)?)?.to_json_string()),
            "receipt" => {
                let obj = object(&v, "", &["seq", "tenant", "idempotency_key"])?;
                match unsigned(obj, "", "seq")? {
                    Some(seq) if obj.len() == 1 => to_json(&self.receipt(seq)?),
                    Some(_) => {
                        Err(Error::new(ErrorCode::ConflictingFields, "/seq", "name a seq or an action, not both"))
                    }
                    None => to_json(
                        &self.receipt_of(&required(obj, "", "tenant")?, &required(obj, "", "idempotency_key")?)?,
                    ),
                }
            }
            "receipts" => {
                // `{"subject"} | {"conversation"}, "limit"?`: the receipts to put in `record.receipts`.
                let obj = object(&v, "", &["subject", "conversation", "limit"])?;
                let limit = unsigned(obj, "", "limit")?.unwrap_or(Recorder::MAX_RECEIPTS_ABOUT as u64);
                let (subject, conv) = (text(obj, "", "subject")?, text(obj, "", "conversation")?);
                let by = match (&subject, &conv) {
                    (Some(s), None) => About::Subject(s),
                    (None, Some(c)) => About::Conversation(c),
                    (Some(_), Some(_)) => {
                        let m = "name a subject or a conversation, not both";
                        return Err(Error::new(ErrorCode::ConflictingFields, "/conversation", m));
                    }
                    (None, None) => {
                        let m = "name a \"subject\" (a resource) or a \"conversation\"";
                        return Err(Error::new(ErrorCode::MissingField, "/subject", m));
                    }
                };
                let receipts = self.receipts_about(by, usize::try_from(limit).unwrap_or(usize::MAX))?;
                Ok(serde_json::json!({ "receipts": receipts }).to_string())
            }
            "keys" => {
                object(&v, "", &[])?;
                Ok(self.keys()?.to_value().to_string())
            }
            "status" => {
                object(&v, "", &[])?;
                Ok(self.status()?.to_string())
            }
            "seal" => {
                object(&v, "", &[])?;
                to_json(&self.seal()?)
            }
            "set_clock" => {
                let obj = object(&v, "", &["now"])?;
                let now = integer(obj, "", "now")?
                    .ok_or_else(|| Error::new(ErrorCode::MissingField, "/now", "\"now\" is required"))?;
                self.set_clock(now)?;
                Ok("{}".into())
            }
            other => Err(Error::new(
                ErrorCode::NotFound,
                "",
                format!("no recorder method {other:?} (methods: {})", METHODS.join(", ")),
            )),
        }
    }
}
