//! A provider simulation: a refund API on loopback that honours idempotency keys and misbehaves on purpose (loses
//! responses, answers 5xx before or after performing, performs after the client gave up). Refunds are driven
//! through the recorder (attest → POST → confirm DONE or UNKNOWN), the recorder is reopened, and every held action
//! is reconciled from GET-only reads. The end state must be exactly one DONE receipt per refund the provider
//! performed and no receipt for any it did not.
#![allow(clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};

/// What the provider does with one POST, chosen by the test per idempotency key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// Performs and answers 200.
    None,
    /// Performs, then closes the connection without answering.
    LoseResponse,
    /// Answers 503 without performing.
    FailBefore,
    /// Performs, then answers 502.
    FailAfter,
    /// Performs only after the client's timeout has passed, then answers (to nobody).
    Late,
}

#[derive(Default)]
struct Provider {
    /// Refunds performed, by idempotency key: the refund object the provider answers with.
    refunds: BTreeMap<String, String>,
    /// POSTs received, by idempotency key (a key replayed by a client is performed once).
    posts: BTreeMap<String, u32>,
    late_pending: u32,
}

fn refund_body(key: &str, charge: &str, amount: i64) -> String {
    json!({"id": format!("re_{key}"), "object": "refund", "operation": "billing.refund", "resource": charge,
           "amount": amount, "currency": "usd", "status": "succeeded"})
    .to_string()
}

fn respond(stream: &mut TcpStream, status: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// Serves one connection: `POST /v1/refunds` (Idempotency-Key header, body {charge, amount}) and
/// `GET /v1/refunds/<key>`.
fn serve(mut stream: TcpStream, state: Arc<Mutex<Provider>>, faults: Arc<BTreeMap<String, Fault>>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clones"));
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let (mut length, mut key) = (0usize, String::new());
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h == "\r\n" || h.is_empty() {
            break;
        }
        let (name, value) = h.trim_end().split_once(':').unwrap_or(("", ""));
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "idempotency-key" => key = value.trim().to_string(),
            _ => {}
        }
    }
    let mut body = vec![0; length.min(64 * 1024)];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method == "GET" {
        let key = path.strip_prefix("/v1/refunds/").unwrap_or("");
        let s = state.lock().expect("state");
        match s.refunds.get(key) {
            Some(r) => respond(&mut stream, "200 OK", r),
            None => respond(&mut stream, "404 Not Found", r#"{"error":"no such refund"}"#),
        }
        return;
    }
    let req: Value = serde_json::from_slice(&body).unwrap_or_default();
    let (charge, amount) = (req["charge"].as_str().unwrap_or("").to_string(), req["amount"].as_i64().unwrap_or(0));
    let fault = faults.get(&key).copied().unwrap_or(Fault::None);
    let perform = |s: &mut Provider| -> String {
        // Idempotency: a key already performed answers with the same refund, never a second one.
        s.refunds.entry(key.clone()).or_insert_with(|| refund_body(&key, &charge, amount)).clone()
    };
    let mut s = state.lock().expect("state");
    *s.posts.entry(key.clone()).or_default() += 1;
    match fault {
        Fault::None => {
            let r = perform(&mut s);
            drop(s);
            respond(&mut stream, "200 OK", &r);
        }
        Fault::LoseResponse => {
            perform(&mut s);
            drop(s);
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        Fault::FailBefore => {
            drop(s);
            respond(&mut stream, "503 Service Unavailable", r#"{"error":"try later"}"#);
        }
        Fault::FailAfter => {
            perform(&mut s);
            drop(s);
            respond(&mut stream, "502 Bad Gateway", r#"{"error":"upstream"}"#);
        }
        Fault::Late => {
            s.late_pending += 1;
            drop(s);
            std::thread::sleep(CLIENT_TIMEOUT * 3);
            let mut s = state.lock().expect("state");
            let r = perform(&mut s);
            s.late_pending -= 1;
            drop(s);
            respond(&mut stream, "200 OK", &r);
        }
    }
}

const CLIENT_TIMEOUT: Duration = Duration::from_millis(150);

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().timeout_global(Some(CLIENT_TIMEOUT)).http_status_as_error(false).build().new_agent()
}

#[test]
fn refunds_through_a_misbehaving_provider_end_with_one_receipt_each_that_happened() {
    let kinds = [Fault::None, Fault::LoseResponse, Fault::FailBefore, Fault::FailAfter, Fault::Late];
    let keys: Vec<String> = (0..40).map(|i| format!("rf-{i}")).collect();
    let faults: BTreeMap<String, Fault> = keys.iter().enumerate().map(|(i, k)| (k.clone(), kinds[i * 7 % 5])).collect();
    let faults = Arc::new(faults);
    let state = Arc::new(Mutex::new(Provider::default()));
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds loopback");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    {
        let (state, faults) = (state.clone(), faults.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (state, faults) = (state.clone(), faults.clone());
                std::thread::spawn(move || serve(stream, state, faults));
            }
        });
    }
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("log.db");
    let r = open(&db, 1, "k1", T0);
    call(&r, "grant", &refund_grant().to_string());
    let http = agent();
    let mut answered = 0;
    for (i, key) in keys.iter().enumerate() {
        let amount = 50 + i as i64;
        let a = call(&r, "attest", &attest_body(key, amount));
        assert_eq!(a["decision"], "ALLOW");
        let sent = http
            .post(&format!("{base}/v1/refunds"))
            .header("Idempotency-Key", key)
            .send(json!({"charge": "charge:ch_1", "amount": amount}).to_string());
        let outcome = match sent {
            Ok(mut resp) if resp.status() == 200 => {
                let body = resp.body_mut().read_to_string().expect("reads the answer");
                answered += 1;
                settle(&r, "confirm", key, "DONE", Some(&body))
            }
            // 5xx, a lost response or a timeout: the outcome is unknown.
            _ => settle(&r, "confirm", key, "UNKNOWN", None),
        };
        assert!(["DONE", "HELD"].contains(&outcome["status"].as_str().unwrap_or("")), "{outcome}");
    }
    assert!(answered > 0 && answered < keys.len(), "the provider both answered and misbehaved ({answered})");
    drop(r);
    // Wait for the late refunds to land, as a merchant waits out the provider's own retry window.
    for _ in 0..100 {
        if state.lock().expect("state").late_pending == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let r = open(&db, 1, "k1", T0 + 600);
    let held = call(&r, "held", "{}");
    for action in held["actions"].as_array().expect("list") {
        let key = action["idempotency_key"].as_str().expect("key");
        let mut resp = http.get(&format!("{base}/v1/refunds/{key}")).call().expect("GET answers");
        let settled = match resp.status().as_u16() {
            200 => settle(&r, "reconcile", key, "DONE", Some(&resp.body_mut().read_to_string().expect("body"))),
            404 => settle(&r, "reconcile", key, "NOT_PERFORMED", None),
            s => panic!("GET answered {s}"),
        };
        assert!(["DONE", "RELEASED"].contains(&settled["status"].as_str().unwrap_or("")));
    }
    assert_eq!(call(&r, "held", "{}")["actions"], json!([]), "nothing stays held");
    let provider = state.lock().expect("state");
    let mut receipted = 0;
    for key in &keys {
        let performed = provider.refunds.contains_key(key);
        match r.receipt_of("acme", key) {
            Ok(rec) => {
                assert!(performed, "{key}: a receipt for a refund the provider never performed");
                assert_eq!(rec.status, "DONE");
                assert_eq!(
                    Some(rec.evidence.as_slice()),
                    provider.refunds.get(key).map(String::as_bytes),
                    "{key}: the evidence is the provider's answer, byte for byte"
                );
                receipted += 1;
            }
            Err(e) => {
                assert_eq!(e.code.as_str(), "unknown_receipt");
                assert!(!performed, "{key}: the provider performed it, the log has no receipt");
            }
        }
    }
    assert_eq!(receipted, provider.refunds.len(), "one receipt per refund performed");
    assert!(provider.refunds.len() < keys.len(), "some refunds were never performed");
    let head = r.checkpoint().expect("head");
    let all: Vec<u64> = (0..head.size).collect();
    let bundle = call(&r, "bundle", &json!({"receipts": all}).to_string());
    let v = verify(&bundle, &r.keys().expect("keys").to_value(), &[]);
    assert_eq!(v["ok"], true, "{v}");
}
