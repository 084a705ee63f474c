//! Arbitrary bytes as the IN of `curbi check --policy P --jsonl IN` (cli/src/check_cmd/jsonl.rs): split into lines
//! as the CLI reads them (`read_until(b'\n')`, blank lines skipped), each line through the same steps as the CLI's
//! `check_line` (core's strict reader, `CompiledCase::from_value`, `find_one`, `findings_in` in UTF-16 units)
//! against a fixed policy that uses every kind of rule. The CLI catches a panic per line and reports it as an
//! internal error; here nothing catches it, so a panic is a finding. A line's answer is one JSON line (no raw
//! newline, which would break the framing of the output), spans lie inside the reply, an invalid line is an error
//! with a code and a path, and each answer is linear in its line.
#![no_main]

use std::sync::LazyLock;

use curbi::api::{CaseResult, CheckOptions, SpanUnit, find_one, findings_in};
use curbi::check::CompiledCase;
use curbi::{CheckerVersion, CompiledPolicy, Verify};
use libfuzzer_sys::fuzz_target;

mod common;

/// Prices with discounts, forbidden phrases and action words, from the shared check vectors.
const POLICY: &str = r#"{"prices":[{"item":"Starter","amount":49},{"item":"Pro","amount":99},
{"item":"Enterprise","amount":10000},{"item":"Sticker","amount":0.99}],"discounts":[{"percent":20,"items":["Pro"]},
{"percent":10}],"forbid":[{"id":"guarantee","phrases":["guarantee"]},{"id":"moneyback","phrases":["money back"]}],
"actions":{"refunded":"billing.refund","shipped":"orders.ship","booked":"calendar.book"}}"#;

static COMPILED: LazyLock<CompiledPolicy> =
    LazyLock::new(|| CompiledPolicy::from_json(POLICY.as_bytes()).expect("the fuzz policy compiles"));

/// Findings cost at most this many bytes of answer per byte of line (each finding quotes its text and says why).
const PER_BYTE: usize = 64;

fn check_line(line: &[u8], index: usize) {
    let value = match curbi::json::read(line) {
        Ok(v) => v,
        Err(e) => return common::assert_error(&e, line.len()),
    };
    let case = match CompiledCase::from_value(&value) {
        Ok(c) => c,
        Err(e) => return common::assert_error(&e, line.len()),
    };
    let reply_units = case.reply.encode_utf16().count();
    for version in CheckerVersion::ALL {
        let options = CheckOptions { record: case.record.clone(), version, verify: Verify::Optional };
        let found = match find_one(&COMPILED, &case.reply, &options) {
            Ok((found, _)) => found,
            Err(e) => {
                common::assert_error(&e, line.len());
                continue;
            }
        };
        let findings = findings_in(&case.reply, found, SpanUnit::Utf16);
        for f in &findings {
            assert!(f.span[0] <= f.span[1] && f.span[1] <= reply_units, "span {:?} of {reply_units}", f.span);
        }
        let pass = findings.is_empty();
        let result = CaseResult { index, id: case.id.clone(), pass, findings };
        let text = serde_json::to_string(&result).expect("a result serialises");
        assert!(!text.contains('\n'), "an answer spans lines: {text}");
        common::assert_bounded("a line's answer", text.len(), line.len(), PER_BYTE);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    let mut index = 0;
    while !rest.is_empty() {
        let end = rest.iter().position(|&b| b == b'\n').map_or(rest.len(), |i| i + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        if !line.iter().all(u8::is_ascii_whitespace) {
            check_line(line, index);
        }
        index += 1;
    }
});
