//! The WebAssembly build of Curbi (npm package `@curbi/web`): core compiled to `wasm32-unknown-unknown`, with
//! wasm-bindgen exports that only marshal. Every export takes JSON text and hands it to one of core's JSON entry
//! points (`curbi::api`), answering with the entry point's JSON text; a core error is thrown as its error document
//! `{"error":{"code","message","path"}}` (text), which the JavaScript layer (`core.js`) turns into a `CurbiError`.
//! No checking or verifying happens here: the same code as the CLI's, the server's and every binding's.

use std::sync::Arc;

use curbi::api::{self, CheckOptions, SpanUnit};
use curbi::{CompiledPolicy, Error};
use wasm_bindgen::prelude::wasm_bindgen;

/// A core error as the text every binding writes: `{"error":{"code","message","path"}}`.
fn error_text(e: Error) -> String {
    e.to_json().to_string()
}

/// The library version, e.g. "0.1.0".
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

#[wasm_bindgen]
extern "C" {
    /// The host's clock: `Date.now()`, milliseconds since 1970.
    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    fn date_now() -> f64;
}

/// Unix seconds from the host's clock: `wasm32-unknown-unknown` has no system clock of its own.
fn host_now() -> i64 {
    (date_now() / 1000.0).floor() as i64
}

/// Receipt keys `{keys, allowTest?, now?}` (JSON text; empty for none). Without `now`, expiry is judged by the
/// host's clock (`Date.now()`), never by a system clock this target does not have.
fn receipt_verifier(receipts: &str) -> Result<Option<Arc<api::ReceiptVerifier>>, String> {
    if receipts.trim().is_empty() {
        return Ok(None);
    }
    let v = api::ReceiptVerifier::from_json(receipts.as_bytes()).map_err(error_text)?;
    let v = match v.clock() {
        api::Clock::Fixed(_) => v,
        api::Clock::Now(_) => v.with_clock(api::Clock::Now(host_now)),
    };
    Ok(Some(Arc::new(v)))
}

/// The whole Check API: a request document in, the response document out (UTF-16 spans, the wire's unit).
/// `receipts` are the receipt keys to verify the record's receipts with (configuration, never the request's;
/// empty for none: receipts and `verify: "required"` are then `unsupported`).
#[wasm_bindgen]
pub fn check(request: &str, receipts: &str) -> Result<String, String> {
    let keys = receipt_verifier(receipts)?;
    api::check_json_with(request.as_bytes(), keys.as_ref()).map(|r| r.to_json_string()).map_err(error_text)
}

/// One-document exports: each hands its JSON text to a core entry point and answers with that entry point's JSON.
macro_rules! json_exports {
    ($($(#[doc = $doc:literal])* $js:ident => $name:ident: $f:path;)*) => {$(
        $(#[doc = $doc])*
        #[wasm_bindgen(js_name = $js)]
        pub fn $name(document: &str) -> Result<String, String> {
            $f(document.as_bytes()).map_err(error_text)
        }
    )*};
}

json_exports! {
    /// Lint (docs/LINT.md): a policy document in, `{valid, errors, warnings}` out.
    validatePolicy => validate_policy: api::validate_policy_json;
    /// An `export_regression` request in, `{regression, nodeTest, pytest}` out (docs/REGRESSION.md).
    exportRegression => export_regression: api::export_regression_json;
    /// A `curbi.regression` document in, the `curbi.replay` report out.
    replayRegression => replay_regression: api::replay_regression_json;
    /// Purchase check (docs/PURCHASE.md): `{mandate, checkout, ledger?, now}` in, the decision out.
    verifyCheckout => verify_checkout: api::verify_checkout_json;
    /// Action check (docs/PURCHASE.md): `{grant, action, now}` in, the decision out.
    verifyAction => verify_action: api::verify_action_json;
    /// The `checkout_digest` a mandate pins for a checkout, as a JSON string.
    checkoutDigest => checkout_digest: api::checkout_digest_json;
    /// Proof of Action (docs/PROOF.md): a whole request `{bundle, keys, ...}` in, the verification out.
    verifyRequest => verify_request: api::verify_bundle_json;
}

/// A YAML document in, the compact JSON text it stands for out (docs/YAML.md).
#[wasm_bindgen(js_name = yamlToJson)]
pub fn yaml_to_json(yaml: &str) -> Result<String, String> {
    api::yaml_to_json(yaml.as_bytes()).map_err(error_text)
}

/// Proof of Action with the bundle and the options as two documents (as `curbi verify` reads them).
#[wasm_bindgen(js_name = verifyBundleParts)]
pub fn verify_bundle_parts(bundle: &str, options: &str) -> Result<String, String> {
    api::verify_bundle_parts_json(bundle.as_bytes(), options.as_bytes()).map_err(error_text)
}

/// A browser gate (docs/PROOF.md §Browser gate proofs): decides proposed actions in the page with the action check
/// and proves each decision, signed with a test key and logged in a small in-memory log.
#[wasm_bindgen]
#[derive(Debug)]
pub struct BrowserGate {
    inner: curbi::proof::browser_gate::BrowserGate,
}

/// A gate whose test key is made from `seed` (32 bytes; the JavaScript layer draws them with
/// `crypto.getRandomValues`), logging under `log` (`curbi-checkpoint-v1.<name>`), calling itself
/// `curbi-web/<this version>`.
#[wasm_bindgen(js_name = createBrowserGate)]
pub fn create_browser_gate(seed: &[u8], log: &str) -> Result<BrowserGate, String> {
    let seed: [u8; 32] = seed.try_into().map_err(|_| {
        error_text(Error::new(curbi::ErrorCode::InvalidValue, "/seed", "a test key seed is exactly 32 bytes"))
    })?;
    let key = curbi::proof::SigningKey::from_seed(&seed);
    curbi::proof::browser_gate::BrowserGate::new(key, log, env!("CARGO_PKG_VERSION"))
        .map(|inner| BrowserGate { inner })
        .map_err(error_text)
}

#[wasm_bindgen]
impl BrowserGate {
    /// `{policy, registry, proposal}` (JSON text) in, `{proof, trust, decision}` out.
    pub fn prove(&mut self, request: &str) -> Result<String, String> {
        self.inner.prove_json(request.as_bytes()).map_err(error_text)
    }

    /// The gate's identity: the JWKS of its test key.
    pub fn identity(&self) -> String {
        self.inner.identity().to_string()
    }
}

/// A compiled policy: check any number of replies with it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Policy {
    inner: Arc<CompiledPolicy>,
}

/// Compiles a policy document; its error paths point into the policy (`/prices/0/item`). With `receipts` (receipt
/// keys, JSON text; empty for none) claimed actions are checked against the record's signed receipts.
#[wasm_bindgen(js_name = compilePolicy)]
pub fn compile_policy(policy: &str, receipts: &str) -> Result<Policy, String> {
    let mut compiled = CompiledPolicy::from_json(policy.as_bytes()).map_err(error_text)?;
    if let Some(v) = receipt_verifier(receipts)? {
        compiled = compiled.with_receipts(v);
    }
    Ok(Policy { inner: Arc::new(compiled) })
}

#[wasm_bindgen]
impl Policy {
    /// Checks one reply with options `{record?, version?, verify?}` (JSON text; empty for none), spans in UTF-16
    /// code units.
    pub fn check(&self, reply: &str, options: &str) -> Result<String, String> {
        let options = CheckOptions::from_json(options.as_bytes()).map_err(error_text)?;
        api::check_one(&self.inner, reply, &options, SpanUnit::Utf16).map(|r| r.to_json_string()).map_err(error_text)
    }

    /// Checks up to 50 cases (a JSON array of `{id?, reply, record?}`) with the same options.
    #[wasm_bindgen(js_name = checkCases)]
    pub fn check_cases(&self, cases: &str, options: &str) -> Result<String, String> {
        let cases = api::Cases::from_json(cases.as_bytes()).map_err(error_text)?;
        let options = CheckOptions::from_json(options.as_bytes()).map_err(error_text)?;
        api::check_cases(&self.inner, &cases.0, &options, SpanUnit::Utf16)
            .map(|r| r.to_json_string())
            .map_err(error_text)
    }
}

/// A Proof of Action verifier: the caller's keys and options read once.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Verifier {
    inner: api::Verifier,
}

/// Reads verification options (`{keys, allowTest?, mode?, now?, known?, trustBundleKeys?, witnesses?}`) once.
#[wasm_bindgen(js_name = createVerifier)]
pub fn create_verifier(options: &str) -> Result<Verifier, String> {
    api::Verifier::from_json(options.as_bytes()).map(|inner| Verifier { inner }).map_err(error_text)
}

#[wasm_bindgen]
impl Verifier {
    /// Verifies one bundle document, exactly as a whole request of these options and this bundle.
    pub fn verify(&self, bundle: &str) -> Result<String, String> {
        self.inner.verify_json(bundle.as_bytes()).map_err(error_text)
    }
}

/// A bundle verification split over workers (docs/WEB.md §A pool of workers; `pool-worker.js`): every worker reads
/// the same text into its own `Shares` and verifies its share of the receipts; one of them finishes with every
/// share, giving `verifyRequest`'s (or `verifyBundleParts`') answer byte for byte.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Shares {
    inner: api::Shares,
}

/// A whole request `{bundle, keys, ...}`, as UTF-8 bytes, read for verifying in shares. Bytes, not a string: the
/// pool encodes the text once and hands each worker its own copy, where a posted string would be copied to every
/// worker and encoded again in each (a bundle's head has non-ASCII dashes, so the text is a two-byte string).
#[wasm_bindgen(js_name = sharesOfRequest)]
pub fn shares_of_request(request: &[u8]) -> Result<Shares, String> {
    let request = curbi::json::utf8(request).map_err(error_text)?;
    api::Shares::from_request(request).map(|inner| Shares { inner }).map_err(error_text)
}

/// A bundle and its options (two documents, UTF-8 bytes) read for verifying in shares.
#[wasm_bindgen(js_name = sharesOfBundle)]
pub fn shares_of_bundle(bundle: &[u8], options: &[u8]) -> Result<Shares, String> {
    let bundle = curbi::json::utf8(bundle).map_err(error_text)?;
    let options = curbi::json::utf8(options).map_err(error_text)?;
    api::Shares::from_parts(bundle, options).map(|inner| Shares { inner }).map_err(error_text)
}

#[wasm_bindgen]
impl Shares {
    /// Share `part` (from 0) of `parts`: the own checks of that run of receipts, as compact JSON.
    pub fn share(&self, part: u32, parts: u32) -> Result<String, String> {
        self.inner.share(part as usize, parts as usize).map_err(error_text)
    }

    /// The verification, from every share (a JSON array, any order).
    pub fn finish(&self, shares: &str) -> Result<String, String> {
        self.inner.finish_json(shares.as_bytes()).map_err(error_text)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn errors_are_the_core_error_document() {
        // A hand-worked case: an item of "" is refused at its path (docs/CHECK_API.md, invalid_value rules).
        let err = compile_policy(r#"{"prices":[{"item":"","amount":1}]}"#, "").err().unwrap_or_default();
        assert!(err.starts_with(r#"{"error":{"code":""#), "{err}");
        assert!(err.ends_with(r#""path":"/prices/0/item"}}"#), "{err}");
        assert_eq!(check("{", "").err().map(|e| e.contains(r#""code":"invalid_json""#)), Some(true));
    }

    #[test]
    fn utf16_spans_as_the_seed_gives_them() {
        // Seed 000: "Starter is $99 a month." against Starter at $49 has its finding at [11,14].
        let p = compile_policy(r#"{"prices":[{"item":"Starter","amount":49}]}"#, "").unwrap();
        let out = p.check("Starter is $99 a month.", r#"{"version":"2026-11-01"}"#).unwrap_or_default();
        assert!(out.contains(r#""span":[11,14],"text":"$99""#), "{out}");
        // An emoji before the price is two UTF-16 units: the span moves by 2, not by its 4 UTF-8 bytes.
        let out = p.check("😀 Starter is $99 a month.", "").unwrap_or_default();
        assert!(out.contains(r#""span":[14,17]"#), "{out}");
    }

    #[test]
    fn a_gate_in_the_page_proves_what_verifies() {
        // The action check's own example shape: an action inside the grant is ALLOW (docs/PURCHASE.md).
        let mut gate = create_browser_gate(&[1; 32], "curbi-checkpoint-v1.page.example/gate").unwrap();
        let request = r#"{"policy":{"agent":"a","operations":["op"],"resources":["r:*"],"expires_at":"2030-01-01T00:00:00Z"},"registry":{},"proposal":{"action":{"agent":"a","operation":"op","resource":"r:1"},"now":"2029-01-01T00:00:00Z"}}"#;
        let out: serde_json::Value = serde_json::from_str(&gate.prove(request).unwrap()).unwrap();
        assert_eq!(out["decision"]["decision"], "ALLOW");
        let verify = serde_json::json!({"bundle": out["proof"], "keys": out["trust"], "allowTest": true}).to_string();
        assert!(verify_request(&verify).unwrap().contains(r#""reason":"verifies""#));
        assert!(create_browser_gate(&[1; 31], "curbi-checkpoint-v1.x").err().unwrap().contains("/seed"));
    }

    #[test]
    fn parts_give_the_whole_requests_answer() {
        // Missing keys: malformed at /keys, whether the request comes whole or in two documents.
        let whole = verify_request(r#"{"bundle":{}}"#).unwrap_or_default();
        let parts = verify_bundle_parts("{}", "{}").unwrap_or_default();
        assert_eq!(whole, parts);
        assert!(whole.contains(r#""reason":"malformed""#) && whole.contains(r#""path":"/keys""#), "{whole}");
    }
}
