//! The verifier in shares, for hosts whose WebAssembly has no threads (a page without cross-origin isolation has no
//! `SharedArrayBuffer`): each of several workers checks the receipts' own checks of one share of the receipts
//! ([`Shares::share`]), and one finish does everything that spans receipts — the head, duplicates, conflicts, the
//! history, the verdict — with their outcomes ([`Shares::finish`]), in a worker that read the text already. The finish's result is the one-call
//! verifier's ([`verify_request_text`](super::verify_request_text), [`verify_parts_text`](super::verify_parts_text)),
//! byte for byte; the split is the one [`verify_bundle`](super::verify_bundle) makes over threads.
//!
//! A share is compact JSON, `{"items": N, "from": I, "outcomes": [[reason | null, message, read, digest], ...]}`:
//! `reason` `null` when every own check passed but no head verified to place the receipt under, `read` whether its
//! signed payload was read, `digest` the lowercase hex SHA-256 of its signed bytes (the worker hashed them for its
//! checks, so the finish does not hash every receipt again on one thread). The finish takes outcomes and digests
//! as given: shares are the pool's own workers' answers from the same text, not input from anyone else. A request
//! whose verdict needs no receipt checked (malformed, a browser gate proof's, no key left) has the share
//! `{"items":0,"from":0,"outcomes":[]}`.

use std::sync::{Mutex, PoisonError};

use serde_json::{Value, json};

use super::algorithm::{Kept, Share, ShareOutcome, check_share, finish_shares};
use super::options::VerifyOptions;
use super::options::{Read, read_parts_text, read_request_text};
use super::report::{Reason, Verification};
use crate::encoding::{decode_lower_hex, hex};
use crate::error::{Error, ErrorCode};
use crate::pointer::element;
use crate::proof::browser_gate;
use crate::proof::bundle::ParsedBundle;

/// A request read once, to verify in shares: [`Shares::share`] in each worker (each with its own `Shares` of the same
/// text), then [`Shares::finish`] in one of them with every share.
#[derive(Debug)]
pub struct Shares {
    state: State,
    /// What the last [`Shares::share`] worked out (the receipts it parsed, the head it verified), for the finish.
    kept: Mutex<Kept>,
}

#[derive(Debug)]
enum State {
    Bundle(Box<ParsedBundle>, Box<VerifyOptions>),
    Known(Box<Verification>),
    /// A browser gate proof's request (whole, or bundle and options), which its own reader verifies in the finish.
    GateRequest(String),
    GateParts(String, String),
}

impl Shares {
    /// A whole request `{bundle, keys, ...}`, read as [`verify_request_text`](super::verify_request_text) reads it.
    /// `Err` only when the text is not JSON.
    pub fn from_request(text: &str) -> Result<Shares, Error> {
        Ok(Shares::of(read_request_text(text)?, || State::GateRequest(text.to_string())))
    }

    /// A bundle and its options as two documents, read as [`verify_parts_text`](super::verify_parts_text) reads
    /// them. `Err` only when either text is not JSON.
    pub fn from_parts(bundle: &str, options: &str) -> Result<Shares, Error> {
        Ok(Shares::of(read_parts_text(bundle, options)?, || State::GateParts(bundle.to_string(), options.to_string())))
    }

    fn of(read: Read, gate: impl FnOnce() -> State) -> Shares {
        let state = match read {
            Read::Bundle(bundle, options) => State::Bundle(bundle, options),
            Read::Known(v) => State::Known(v),
            Read::Gate => gate(),
        };
        Shares { state, kept: Mutex::default() }
    }

    /// Share `part` (from 0) of `parts`: the own checks of the `part`-th of `parts` runs of consecutive receipts
    /// (as even as can be), as compact JSON. `Err` (`out_of_range` at `/part`) unless `part < parts`.
    pub fn share(&self, part: usize, parts: usize) -> Result<String, Error> {
        if part >= parts {
            let m = format!("part {part} of {parts}: a part is from 0 to one less than the parts (at least 1)");
            return Err(Error::new(ErrorCode::OutOfRange, "/part", m));
        }
        let share = match &self.state {
            State::Bundle(bundle, options) => {
                let (share, kept) = check_share(bundle, options, part, parts);
                *self.kept.lock().unwrap_or_else(PoisonError::into_inner) = kept;
                share
            }
            _ => Share { items: 0, from: 0, outcomes: Vec::new() },
        };
        let outcomes: Vec<Value> = share
            .outcomes
            .into_iter()
            .map(|o| match o.finding {
                Some((reason, message)) => json!([reason.as_str(), message, o.read, hex(&o.digest)]),
                None => json!([null, "", o.read, hex(&o.digest)]),
            })
            .collect();
        Ok(json!({"items": share.items, "from": share.from, "outcomes": outcomes}).to_string())
    }

    /// The verification, with the receipts' own checks read from `shares` (a JSON array of every share made of the
    /// same text, in any order): the one-call verifier's result. `Err` when `shares` is not JSON, or not shares
    /// (`invalid_value` at `/shares/...`), or they do not cover this bundle's receipts exactly once (`/shares`).
    pub fn finish(&self, shares: &str) -> Result<Verification, Error> {
        // The strict reader, as for every document core takes: a repeated member is refused, never last-wins.
        let value = crate::json::read_str(shares)?;
        let shares = read_shares(&value)?;
        match &self.state {
            State::Bundle(bundle, options) => {
                // Taken, not copied: a second finish of this reading parses every receipt again.
                let kept = std::mem::take(&mut *self.kept.lock().unwrap_or_else(PoisonError::into_inner));
                finish_shares(bundle, options, shares, kept).map_err(|m| {
                    Error::new(ErrorCode::InvalidValue, "/shares", format!("shares of another bundle: {m}"))
                })
            }
            State::Known(v) => Ok(Verification::clone(v)),
            State::GateRequest(text) => browser_gate::verify_request_text(text),
            State::GateParts(bundle, options) => browser_gate::verify_parts_text(bundle, options),
        }
    }

    /// [`Shares::finish`] to the result document (compact JSON), as the one-call JSON entry points write it.
    pub fn finish_json(&self, shares: &[u8]) -> Result<String, Error> {
        Ok(self.finish(crate::json::utf8(shares)?)?.to_json_string())
    }
}

fn read_shares(value: &Value) -> Result<Vec<Share>, Error> {
    let list = value.as_array().ok_or_else(|| not_share("/shares", "an array of shares"))?;
    list.iter().enumerate().map(|(i, s)| read_share(s, &element("/shares", i))).collect()
}

fn read_share(value: &Value, at: &str) -> Result<Share, Error> {
    let count = |name: &str| {
        value
            .get(name)
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| not_share(&format!("{at}/{name}"), "a count"))
    };
    let (items, from) = (count("items")?, count("from")?);
    let outcomes = value
        .get("outcomes")
        .and_then(Value::as_array)
        .ok_or_else(|| not_share(&format!("{at}/outcomes"), "an array of outcomes"))?;
    let outcomes = outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| read_outcome(o).ok_or_else(|| not_share(&element(&format!("{at}/outcomes"), i), OUTCOME)))
        .collect::<Result<_, _>>()?;
    Ok(Share { items, from, outcomes })
}

const OUTCOME: &str = "an outcome [reason | null, message, read, digest]";

fn read_outcome(value: &Value) -> Option<ShareOutcome> {
    let [reason, message, read, digest] = value.as_array()?.as_slice() else { return None };
    let digest = decode_lower_hex::<32>(digest.as_str()?)?;
    let message = message.as_str()?;
    let finding = match reason {
        Value::Null => None,
        Value::String(r) => Some((*Reason::ALL.iter().find(|x| x.as_str() == r)?, message.to_string())),
        _ => return None,
    };
    Some(ShareOutcome { finding, read: read.as_bool()?, digest })
}

fn not_share(at: &str, what: &str) -> Error {
    Error::new(ErrorCode::InvalidValue, at, format!("not a share of a verification: expected {what} here"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    // What `api::verify_bundle_json` and `verify_bundle_parts_json` answer (core may not import the facade).
    fn verify_bundle_json(request: &[u8]) -> Result<String, Error> {
        Ok(super::super::verify_request_text(std::str::from_utf8(request).unwrap())?.to_json_string())
    }
    fn verify_bundle_parts_json(bundle: &[u8], options: &[u8]) -> Result<String, Error> {
        let (bundle, options) = (std::str::from_utf8(bundle).unwrap(), std::str::from_utf8(options).unwrap());
        Ok(super::super::verify_parts_text(bundle, options)?.to_json_string())
    }

    /// Each share of `parts` from its own reading of the text, as each worker has its own, finished in reverse order
    /// (the finish takes them in any order) by the reading that made the last.
    fn in_shares(document: &str, options: Option<&str>, parts: usize) -> String {
        let read = || match options {
            None => Shares::from_request(document).unwrap(),
            Some(o) => Shares::from_parts(document, o).unwrap(),
        };
        let finisher = read();
        let mut shares: Vec<String> = (0..parts - 1).map(|p| read().share(p, parts).unwrap()).collect();
        shares.push(finisher.share(parts - 1, parts).unwrap());
        shares.reverse();
        let kept = finisher.finish_json(format!("[{}]", shares.join(",")).as_bytes()).unwrap();
        // A reading that made no share parses every receipt itself: the same bytes.
        assert_eq!(read().finish_json(format!("[{}]", shares.join(",")).as_bytes()).unwrap(), kept);
        kept
    }

    fn vectors() -> Vec<(String, Value)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/proof");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            if let Some(input) = doc.get("input") {
                out.push((path.display().to_string(), input.clone()));
            }
        }
        assert!(out.len() > 50, "the proof vectors are there: {}", out.len());
        out
    }

    #[test]
    fn shares_give_the_one_call_result_on_every_proof_vector() {
        for (name, input) in vectors() {
            let request = input.to_string();
            let whole = verify_bundle_json(request.as_bytes()).unwrap();
            // The vectors' own expectation holds for the one-call result (so the comparison below is not vacuous).
            assert!(whole.starts_with(r#"{"ok":"#), "{name}: {whole}");
            for parts in [1, 2, 3, 5] {
                assert_eq!(in_shares(&request, None, parts), whole, "{name}, {parts} shares");
            }
            // The two-document form, where the input is an object with a bundle.
            let Some(mut options) = input.as_object().cloned() else { continue };
            let Some(bundle) = options.remove("bundle") else { continue };
            let (bundle, options) = (bundle.to_string(), Value::Object(options).to_string());
            let whole = verify_bundle_parts_json(bundle.as_bytes(), options.as_bytes()).unwrap();
            assert_eq!(in_shares(&bundle, Some(&options), 2), whole, "{name}, two documents");
        }
    }

    /// A bundle of `n` receipts from the reference gate with attestations, and its key set, as a request.
    fn large(n: usize) -> Value {
        let (bundle, keys) = curbi_testkit::large_bundle(n, true).unwrap();
        json!({"bundle": bundle, "keys": keys.to_value(), "allowTest": true})
    }

    #[test]
    fn a_large_bundle_with_one_tampered_receipt_in_the_middle() {
        let mut request = large(120);
        let whole = verify_bundle_json(request.to_string().as_bytes()).unwrap();
        assert!(whole.starts_with(r#"{"ok":true,"reason":"verifies""#), "{}", &whole[..200]);
        // One signature byte of receipt 61 changed: that item alone is bad_signature, and it decides the verdict.
        let receipt = &mut request["bundle"]["receipts"][61]["receipt"];
        // `curbi-receipt-v1.<payload>.<signature>.<kid>`: the signature's second character.
        let mut parts: Vec<String> = receipt.as_str().unwrap().split('.').map(str::to_string).collect();
        let flipped = if &parts[2][1..2] == "A" { "B" } else { "A" };
        parts[2].replace_range(1..2, flipped);
        *receipt = Value::String(parts.join("."));
        // And receipt 7 again at the end: a duplicate across shares.
        let again = request["bundle"]["receipts"][7].clone();
        request["bundle"]["receipts"].as_array_mut().unwrap().push(again);
        let request = request.to_string();
        let whole = verify_bundle_json(request.as_bytes()).unwrap();
        let v: Value = serde_json::from_str(&whole).unwrap();
        assert_eq!((&v["reason"], &v["path"]), (&json!("bad_signature"), &json!("/bundle/receipts/61")));
        assert_eq!(v["items"][61]["reason"], "bad_signature");
        assert_eq!(v["items"][120]["reason"], "duplicate");
        assert_eq!(v["items"].as_array().unwrap().iter().filter(|i| i["ok"] == true).count(), 119);
        for parts in [2, 3, 4, 7, 121, 130] {
            assert_eq!(in_shares(&request, None, parts), whole, "{parts} shares");
        }
        // A reading that kept the receipts of one split, finishing with the shares of another: the kept receipts
        // are this bundle's own, so the result is still the one-call result.
        let finisher = Shares::from_request(&request).unwrap();
        finisher.share(0, 2).unwrap();
        let others: Vec<String> =
            (0..3).map(|p| Shares::from_request(&request).unwrap().share(p, 3).unwrap()).collect();
        assert_eq!(finisher.finish_json(format!("[{}]", others.join(",")).as_bytes()).unwrap(), whole);
    }

    #[test]
    fn the_head_a_finish_keeps_names_the_key_that_signed_it() {
        // Another trusted key listed first: the finish takes the head's verification from its reading's share, and
        // must still name the key that signed the head, not the first one it trusts.
        let mut request = large(40);
        let mut other = request["keys"]["keys"][0].clone();
        other["kid"] = json!("listed-first");
        other["x"] = json!(crate::ed25519::SigningKey::from_seed(&[9; 32]).verifying_key().to_jwk_x());
        request["keys"]["keys"].as_array_mut().unwrap().insert(0, other);
        let request = request.to_string();
        let whole = verify_bundle_json(request.as_bytes()).unwrap();
        let v: Value = serde_json::from_str(&whole).unwrap();
        assert_eq!(v["reason"], "verifies");
        assert_ne!(v["head"]["kid"], "listed-first");
        for parts in [1, 2, 3] {
            assert_eq!(in_shares(&request, None, parts), whole, "{parts} shares");
        }
    }

    #[test]
    fn shares_that_do_not_cover_the_receipts_are_refused() {
        let shares = Shares::from_request(&large(40).to_string()).unwrap();
        let share = |p, n| shares.share(p, n).unwrap();
        let finish = |list: &[String]| shares.finish(&format!("[{}]", list.join(","))).map_err(|e| (e.code, e.path));
        let refused = Err((ErrorCode::InvalidValue, "/shares".to_string()));
        assert_eq!(finish(&[share(0, 2)]), refused, "a share missing");
        assert_eq!(finish(&[share(0, 2), share(0, 2), share(1, 2)]), refused, "a share twice");
        assert_eq!(finish(&[share(0, 2), share(2, 3)]), refused, "shares of two splits");
        let other = Shares::from_request(&large(41).to_string()).unwrap().share(0, 1).unwrap();
        assert_eq!(finish(&[other]), refused, "another bundle's share");
        assert!(finish(&[share(1, 2), share(0, 2)]).is_ok());
        assert_eq!(
            finish(&["{\"items\":40,\"from\":0,\"outcomes\":[[\"fine\",\"\",true]]}".into()]),
            Err((ErrorCode::InvalidValue, "/shares/0/outcomes/0".to_string()))
        );
        // An outcome's digest is 32 bytes of lowercase hex, or the share is refused at that outcome.
        let one = share(0, 1);
        let first = one.find("\",true,\"").or_else(|| one.find("\",false,\"")).expect("an outcome with a digest") + 8;
        let digest = &one[first..first + 64];
        let with = |d: &str| one.replacen(digest, d, 1);
        for bad in [digest.to_uppercase(), digest[..62].to_string(), format!("{digest}00"), "zz".repeat(32)] {
            assert_ne!(with(&bad), one);
            assert_eq!(
                finish(&[with(&bad)]),
                Err((ErrorCode::InvalidValue, "/shares/0/outcomes/0".to_string())),
                "{bad}"
            );
        }
        let without = one.replacen(&format!(",\"{digest}\""), "", 1);
        assert_eq!(finish(&[without]), Err((ErrorCode::InvalidValue, "/shares/0/outcomes/0".to_string())));
        // A share is read strictly too: a member written twice is refused at its path, not read last-wins.
        let twice = share(0, 1).replacen("\"items\":40", "\"items\":40,\"items\":40", 1);
        assert_ne!(twice, share(0, 1));
        assert_eq!(finish(&[twice]), Err((ErrorCode::DuplicateMember, "/0/items".to_string())));
        let out_of_range = |p, n| shares.share(p, n).map_err(|e| (e.code, e.path));
        assert_eq!(out_of_range(2, 2), Err((ErrorCode::OutOfRange, "/part".to_string())));
        assert_eq!(out_of_range(0, 0), Err((ErrorCode::OutOfRange, "/part".to_string())));
    }
}
