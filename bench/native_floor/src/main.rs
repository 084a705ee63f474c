//! Native floor for bench/python_peers.py: times `CompiledPolicy::check` in Rust on the same replies, interleaved
//! with the Python timings so both see the same machine load.
//!
//! Protocol (stdin/stdout, one JSON document per line): the first input line is `{"policy", "record", "replies",
//! "batch_ms"}`; the binary warms up, sizes each batch to about `batch_ms` and prints `{"ready": true}`. Then each
//! input line `round` times one batch of every measurement and prints `{name: ns_per_call}`; end of input ends it.
use std::hint::black_box;
use std::io::{BufRead, Write};
use std::time::Instant;

use curbi::api::CheckOptions;
use curbi::{CheckerVersion, CompiledPolicy, policy};
use serde_json::{Map, Value, json};

type Job<'a> = (&'static str, Box<dyn FnMut(&str) + 'a>, Vec<String>, u64);

fn batch(f: &mut dyn FnMut(&str), replies: &[String], loops: u64) -> f64 {
    let t0 = Instant::now();
    for _ in 0..loops {
        for r in replies {
            f(black_box(r.as_str()));
        }
    }
    t0.elapsed().as_nanos() as f64 / (loops as f64 * replies.len() as f64)
}

fn calibrate(f: &mut dyn FnMut(&str), replies: &[String], batch_ms: f64) -> u64 {
    let warm = Instant::now();
    while warm.elapsed().as_millis() < 200 {
        batch(f, replies, 1);
    }
    let mut loops = 1u64;
    loop {
        let ns = batch(f, replies, loops) * (loops as f64) * replies.len() as f64;
        if ns >= batch_ms * 1e6 / 4.0 || loops >= 1 << 24 {
            return ((loops as f64) * batch_ms * 1e6 / ns).max(1.0) as u64;
        }
        loops *= 4;
    }
}

fn main() {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let first = lines.next().expect("a config line").expect("stdin");
    let req: Value = serde_json::from_str(&first).expect("JSON config");
    let compiled = CompiledPolicy::new(policy::parse_policy(&req["policy"]).expect("policy"));
    let record_value = json!({"record": req["record"]});
    let record = CheckOptions::from_value(&record_value).expect("record").record;
    let replies: Vec<String> =
        req["replies"].as_array().expect("replies").iter().map(|r| r.as_str().expect("str").to_owned()).collect();
    let batch_ms = req["batch_ms"].as_f64().unwrap_or(60.0);
    let v = CheckerVersion::CURRENT;
    let s8 = vec![replies[0].clone()];

    let (c, r) = (&compiled, record.as_ref());
    let rv = &record_value;
    let mut jobs: Vec<Job<'_>> = vec![
        ("check", Box::new(move |x: &str| drop(black_box(c.check(x, r, v)))), replies.clone(), 0),
        ("check_no_record", Box::new(move |x: &str| drop(black_box(c.check(x, None, v)))), replies.clone(), 0),
        (
            // What the binding does per call besides the check, minus the Python-to-JSON conversion: read the record.
            "parse_record_and_check",
            Box::new(move |x: &str| {
                let o = CheckOptions::from_value(black_box(rv)).expect("record");
                drop(black_box(c.check(x, o.record.as_ref(), v)));
            }),
            replies.clone(),
            0,
        ),
        ("s8_check", Box::new(move |x: &str| drop(black_box(c.check(x, r, v)))), s8.clone(), 0),
        ("s8_check_no_record", Box::new(move |x: &str| drop(black_box(c.check(x, None, v)))), s8, 0),
    ];
    for (_, f, reps, loops) in jobs.iter_mut() {
        *loops = calibrate(f.as_mut(), reps, batch_ms);
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", json!({"ready": true})).expect("stdout");
    out.flush().expect("stdout");
    for line in lines {
        if line.expect("stdin").trim() != "round" {
            continue;
        }
        let mut m = Map::new();
        for (name, f, reps, loops) in jobs.iter_mut() {
            m.insert((*name).to_owned(), json!(batch(f.as_mut(), reps, *loops)));
        }
        writeln!(out, "{}", Value::Object(m)).expect("stdout");
        out.flush().expect("stdout");
    }
}
