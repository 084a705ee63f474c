//! The native side of bench/bench.mjs: what each Node call does in Rust, on the DESIGN §8 workload (the policy,
//! record and reply of core/benches/check.rs). Run: `cargo bench -p curbi-node --bench native`.
//! With `CURBI_LOOP=MODE:N` (MODE: prepared, record, none) the binary only makes N calls, for callgrind.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use curbi::api::{self, CheckOptions, SpanUnit};
use curbi::{CompiledPolicy, policy};

const SOURCE: &str = include_str!("../../../core/benches/check.rs");

/// The text of `pub const NAME: &str = r#"..."#;` in core/benches/check.rs.
fn raw_const(name: &str) -> &'static str {
    let start = format!("pub const {name}: &str = r#\"");
    let from = SOURCE.find(&start).unwrap_or_else(|| panic!("core/benches/check.rs defines {name}")) + start.len();
    &SOURCE[from..from + SOURCE[from..].find("\"#;").unwrap()]
}

/// The value of `pub const REPLY: &str = "...";`, with the escapes used there (`\` + newline, `\"`, `\\`).
fn reply() -> String {
    let start = "pub const REPLY: &str = \"";
    let from = SOURCE.find(start).unwrap() + start.len();
    let (mut out, mut chars) = (String::new(), SOURCE[from..].chars().peekable());
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => match chars.next().unwrap() {
                '\n' => {
                    while chars.peek().is_some_and(|c| c.is_whitespace()) {
                        chars.next();
                    }
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let reply = reply();
    assert!((195..=205).contains(&reply.chars().count()), "{}", reply.chars().count());
    let policy_value: serde_json::Value = serde_json::from_str(raw_const("POLICY")).unwrap();
    let compiled = CompiledPolicy::new(policy::parse_policy(&policy_value).unwrap());
    // What `policy.check(reply, { record })` hands over after JSON.stringify: the options as JSON text.
    let options_json = format!("{{\"record\":{}}}", raw_const("RECORD"));
    let prepared = CheckOptions::from_json(options_json.as_bytes()).unwrap();
    assert!(
        api::check_one(&compiled, &reply, &prepared, SpanUnit::Utf16).expect("a valid check").pass,
        "the workload reply passes"
    );

    if let Ok(spec) = std::env::var("CURBI_LOOP") {
        let (mode, n) = spec.split_once(':').unwrap();
        let none = CheckOptions::default();
        for _ in 0..n.parse::<usize>().unwrap() {
            let parsed;
            let o = match mode {
                "prepared" => &prepared,
                "record" => {
                    parsed = CheckOptions::from_json(black_box(options_json.as_bytes())).unwrap();
                    &parsed
                }
                "none" => &none,
                other => panic!("CURBI_LOOP mode {other}: use prepared, record or none"),
            };
            let _ = black_box(api::check_one(&compiled, black_box(&reply), o, SpanUnit::Utf16));
        }
        std::process::exit(0);
    }
    // `policy.check(reply, prepared)`: the check with the record already read, answered with UTF-16 spans.
    c.bench_function("node_native_check_prepared", |b| {
        b.iter(|| api::check_one(&compiled, black_box(&reply), black_box(&prepared), SpanUnit::Utf16))
    });
    // `policy.check(reply, { record })`: the options read from JSON text on every call, then the check.
    c.bench_function("node_native_options_json_and_check", |b| {
        b.iter(|| {
            let o = CheckOptions::from_json(black_box(options_json.as_bytes())).unwrap();
            api::check_one(&compiled, black_box(&reply), &o, SpanUnit::Utf16)
        })
    });
    // `policy.check(reply)`: no record.
    c.bench_function("node_native_check_no_record", |b| {
        b.iter(|| api::check_one(&compiled, black_box(&reply), &CheckOptions::default(), SpanUnit::Utf16))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
