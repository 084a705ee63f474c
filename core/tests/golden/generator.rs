//! The golden oracle's reply generator: seeded and deterministic, it builds policies and replies from the policy's
//! own words (items, aliases, phrases, verbs, fact words) in every shape the checker reads (docs/CHECKER.md).
//!
//! Frozen with the oracle: `inputs.jsonl` holds what it made, and the oracle test checks that it still makes exactly
//! that, so a change here is a change of the oracle's inputs, not of its verdicts. It uses no crate's random numbers
//! (SplitMix64, written out below), so the sequence never changes with a dependency.

use serde_json::{Value, json};

/// What the oracle's header names as its generator.
pub(crate) const NAME: &str =
    "core/tests/golden/generator.rs (SplitMix64, seed 44, 260 batches of 10 and 240 single replies)";
pub(crate) const SEED: u64 = 44;
const BATCHES: usize = 260;
const BATCH: usize = 10;
const SINGLES: usize = 240;

/// SplitMix64 (Steele, Lea and Flood 2014): a fixed, portable sequence.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, list: &'a [T]) -> &'a T {
        &list[self.below(list.len())]
    }

    /// `k` distinct indices of `0..n`, in order.
    fn subset(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..n).collect();
        for i in 0..n {
            let j = i + self.below(n - i);
            all.swap(i, j);
        }
        let mut out = all[..k.min(n)].to_vec();
        out.sort_unstable();
        out
    }
}

const ITEMS: [(&str, &[&str]); 9] = [
    ("Starter", &["Starter plan"]),
    ("Pro", &["Pro plan", "Professional"]),
    ("Pro Max", &[]),
    ("Pro Max Plus", &[]),
    ("Team", &["Teams", "team plan"]),
    ("Enterprise", &[]),
    ("Basic", &["Basic tier"]),
    ("Plus", &[]),
    ("Premium", &["Premium tier"]),
];

/// Amounts in cents.
const AMOUNTS: [u64; 16] =
    [900, 1900, 2900, 4900, 4990, 7900, 9900, 14900, 19900, 49000, 129900, 129999, 1000000, 4950, 1250, 0];

/// (id, phrase, match)
const FORBID: [(&str, &str, &str); 10] = [
    ("guarantee", "guarantee", "word"),
    ("refund", "refund", "word"),
    ("lifetime", "lifetime access", "word"),
    ("moneyback", "money back", "word"),
    ("promise", "promise", "word"),
    ("free", "free forever", "word"),
    ("unlimited", "unlimited", "word"),
    ("guarant", "guarant", "prefix"),
    ("warranty", "warranty", "word"),
    ("cancel-anytime", "cancel anytime", "word"),
];

const ACTIONS: [(&str, &str); 8] = [
    ("refunded", "billing.refund"),
    ("cancelled", "orders.cancel"),
    ("canceled", "orders.cancel"),
    ("shipped", "orders.ship"),
    ("charged", "billing.charge"),
    ("booked", "calendar.book"),
    ("processed", "billing.process"),
    ("credited", "billing.credit"),
];

const NEAR: [&str; 6] = ["appointment", "delivery", "refund", "meeting", "pickup", "renewal"];
const TIMES: [&str; 14] = [
    "3:30 PM",
    "15:30",
    "10 AM",
    "10:15\u{202f}PM",
    "3:30",
    "4:30",
    "9am",
    "3:30 pm",
    "noon",
    "11:45 AM",
    "7 p.m.",
    "12:00",
    "2 PM",
    "10:00",
];
const DATES: [&str; 12] = [
    "4 May 2026",
    "May 4",
    "May 4, 2026",
    "4 May",
    "2026-05-04",
    "Tuesday, 5 May",
    "05/04/2026",
    "4 Jun. 2026",
    "June 12th",
    "12 June",
    "1st of July",
    "Dec 25, 2026",
];
const PERCENTS: [&str; 8] = ["10", "12.5", "15", "20", "25", "50", "12,5", "30"];
const SPACES: [&str; 4] = ["\u{a0}", "\u{202f}", "\u{2009}", " "];

const ONES: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 10] = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];

/// A whole number in English words ("forty-nine", "one thousand, two hundred ninety-nine").
fn words(n: u64, comma: bool) -> String {
    if n < 20 {
        return ONES[n as usize].to_string();
    }
    if n < 100 {
        let t = TENS[(n / 10) as usize];
        return if n % 10 == 0 { t.to_string() } else { format!("{t}-{}", ONES[(n % 10) as usize]) };
    }
    for (scale, name) in [(1_000_000u64, "million"), (1000, "thousand"), (100, "hundred")] {
        if n >= scale {
            let head = format!("{} {name}", words(n / scale, comma));
            return match n % scale {
                0 => head,
                rest if comma && scale > 100 => format!("{head}, {}", words(rest, comma)),
                rest => format!("{head} {}", words(rest, comma)),
            };
        }
    }
    unreachable!()
}

/// `1299` → `1,299` (or with `sep`).
fn grouped(units: u64, sep: char) -> String {
    let digits = units.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// Indian grouping: `129999` → `1,29,999`.
fn indian(units: u64) -> String {
    let digits = units.to_string();
    if digits.len() <= 3 {
        return digits;
    }
    let (head, tail) = digits.split_at(digits.len() - 3);
    let mut out = String::new();
    for (i, c) in head.chars().enumerate() {
        if i > 0 && (head.len() - i) % 2 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{out},{tail}")
}

/// One amount in one of the money shapes the checker reads (and a few it must not read as money).
fn money(r: &mut Rng, cents: u64) -> String {
    let units = cents / 100;
    let frac = cents % 100;
    let dot = if frac == 0 { units.to_string() } else { format!("{units}.{frac:02}") };
    let comma = if frac == 0 { units.to_string() } else { format!("{units},{frac:02}") };
    let g = grouped(units, ',');
    let shape = r.below(44);
    match shape {
        0 => format!("${dot}"),
        1 => format!("${units}.{frac:02}"),
        2 => format!("{dot} USD"),
        3 => format!("USD {dot}"),
        4 => format!("US${dot}"),
        5 => format!("{dot} dollars"),
        6 => format!("${dot}/month"),
        7 => format!("€{dot}"),
        8 => format!("{comma} €"),
        9 => format!("${comma}"),
        10 => format!("{},{frac:02} €", grouped(units, '.')),
        11 => format!("${g}"),
        12 => format!("CAD ${g}"),
        13 => format!("AUD ${dot}"),
        14 => format!("NZD${dot}"),
        15 => format!("USD ${dot}"),
        16 => format!("${dot} CAD"),
        17 => format!("${dot} (CAD)"),
        18 => format!("{dot} Canadian dollars"),
        19 => format!("{units} $ CA"),
        20 => format!("{dot} dollars (CAD)"),
        21 => format!("{units} US$"),
        22 => format!("a {units}-dollar plan"),
        23 => format!("{units} dólares"),
        24 if units >= 1000 && units % 1000 == 0 => format!("${}k", units / 1000),
        24 => format!("${dot}k"),
        25 if units >= 1_000_000 => format!("${} million", units / 1_000_000),
        25 => "$2 million".to_string(),
        26 => format!("{} dollars", words(units, false)),
        27 => format!("{} dollars", words(units, true)),
        28 => "two million dollars".to_string(),
        29 => format!("₹{}", indian(units)),
        30 => format!("{dot} CZK"),
        31 => format!("{comma} zł"),
        32 => format!("Rs. {dot}"),
        33 => format!("${dot} pesos"),
        34 => format!("£{dot}"),
        35 => format!("¥{units}"),
        36 => format!("{units},- €"),
        37 => format!("{dot} TL"),
        38 => format!("{comma} Kč"),
        39 => format!("{dot} SAR"),
        40 => format!("{units} руб"),
        41 => format!("{units}元"),
        42 => format!("{} dollars and {} cents", words(units, false), words(frac, false)),
        _ => format!("${dot}{}", r.pick(&["", " a month", " per seat", "/yr", " each", " flat"])),
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// A generated policy with the words its replies draw from.
struct Policy {
    doc: Value,
    /// (name or alias, approved cents)
    names: Vec<(String, Vec<u64>)>,
    phrases: Vec<String>,
    verbs: Vec<String>,
    ops: Vec<String>,
    near: Vec<String>,
}

fn policy(r: &mut Rng) -> Policy {
    let n_items = 1 + r.below(4);
    let mut prices = Vec::new();
    let mut names = Vec::new();
    for i in r.subset(ITEMS.len(), n_items) {
        let (item, aliases) = ITEMS[i];
        let mut amounts = vec![*r.pick(&AMOUNTS[..15])];
        if r.chance(25) {
            amounts.push(*r.pick(&AMOUNTS[..15]));
        }
        let aliases: Vec<&str> = aliases.iter().copied().filter(|_| r.chance(60)).collect();
        let number = |c: u64| json!(c as f64 / 100.0);
        let mut p = json!({"item": item});
        if amounts.len() == 1 && r.chance(70) {
            p["amount"] = number(amounts[0]);
        } else {
            p["amounts"] = Value::Array(amounts.iter().map(|&c| number(c)).collect());
        }
        if !aliases.is_empty() {
            p["aliases"] = json!(aliases);
        }
        for n in std::iter::once(item).chain(aliases.iter().copied()) {
            names.push((n.to_string(), amounts.clone()));
        }
        prices.push(p);
    }
    let mut forbid = Vec::new();
    let mut phrases = Vec::new();
    let k = 1 + r.below(3);
    for i in r.subset(FORBID.len(), k) {
        let (id, phrase, mode) = FORBID[i];
        let mut f = json!({"id": id, "phrases": [phrase]});
        if mode == "prefix" {
            f["match"] = json!("prefix");
        }
        if r.chance(20) {
            f["negatable"] = json!(false);
        }
        if r.chance(40) {
            f["why"] = json!(format!("We never say {phrase}."));
        }
        phrases.push(phrase.to_string());
        forbid.push(f);
    }
    // Several rules on one phrase, and a second phrase on a rule.
    if r.chance(15) {
        let p = phrases[0].clone();
        forbid.push(json!({"id": "again", "phrases": [p, "100% satisfaction"]}));
        phrases.push("100% satisfaction".to_string());
    }
    let mut actions = serde_json::Map::new();
    let (mut verbs, mut ops) = (Vec::new(), Vec::new());
    let k = 1 + r.below(4);
    for i in r.subset(ACTIONS.len(), k) {
        let (verb, op) = ACTIONS[i];
        actions.insert(verb.to_string(), json!(op));
        verbs.push(verb.to_string());
        ops.push(op.to_string());
    }
    let mut doc = json!({"prices": prices, "forbid": forbid, "actions": actions});
    if r.chance(50) {
        let mut discounts = Vec::new();
        for _ in 0..1 + r.below(2) {
            let pct: f64 = r.pick(&PERCENTS).replace(',', ".").parse().unwrap_or(10.0);
            let mut d = json!({"percent": pct});
            if r.chance(50) {
                d["items"] = json!([names[r.below(names.len())].0]);
            }
            discounts.push(d);
        }
        doc["discounts"] = Value::Array(discounts);
    }
    if r.chance(25) {
        doc["unknownAmounts"] = json!("allow");
    }
    let k = 1 + r.below(2);
    let near = r.subset(NEAR.len(), k).into_iter().map(|i| NEAR[i].to_string()).collect();
    Policy { doc, names, phrases, verbs, ops, near }
}

/// A record naming some of the policy's operations and facts near its words.
fn record(r: &mut Rng, p: &Policy) -> Value {
    let mut effects = Vec::new();
    for op in &p.ops {
        if r.chance(45) {
            let status = if r.chance(80) { "DONE" } else { *r.pick(&["PENDING", "FAILED", "done"]) };
            effects.push(json!({"operation": op, "status": status}));
        }
    }
    let mut facts = Vec::new();
    for near in &p.near {
        let fact = match r.below(3) {
            0 => {
                json!({"near": near, "kind": "time", "value": r.pick(&["15:30", "3:30 PM", "10:00", "9 AM", "22:15"])})
            }
            1 => json!({"near": near, "kind": "date", "value": r.pick(&["2026-05-04", "4 May 2026", "2026-06-12"])}),
            _ => match r.below(3) {
                0 => json!({"near": near, "kind": "money", "value": 500}),
                1 => json!({"near": near, "kind": "money", "value": "$20.00"}),
                _ => json!({"near": near, "kind": "money", "value": "49.90"}),
            },
        };
        facts.push(fact);
    }
    let mut rec = json!({"effects": effects});
    if !facts.is_empty() && r.chance(80) {
        rec["facts"] = Value::Array(facts);
    }
    rec
}

/// An amount for `name`: mostly an approved one, sometimes another.
fn amount_for(r: &mut Rng, approved: &[u64]) -> u64 {
    if r.chance(60) { *r.pick(approved) } else { *r.pick(&AMOUNTS) }
}

fn price_sentence(r: &mut Rng, p: &Policy) -> String {
    let (name, approved) = r.pick(&p.names).clone();
    let m = {
        let c = amount_for(r, &approved);
        money(r, c)
    };
    let (name2, approved2) = r.pick(&p.names).clone();
    let m2 = {
        let c = amount_for(r, &approved2);
        money(r, c)
    };
    match r.below(22) {
        0 => format!("{name} is {m}."),
        1 => format!("{name} costs {m} a month."),
        2 => format!("{name} is now just {m}!"),
        3 => format!("{name} starts at {m}."),
        4 => format!("{name} is not {m}."),
        5 => format!("{name} is under {m}."),
        6 => format!("{name} was {m}, now {m2}."),
        7 => format!("Was {name} ever {m}?"),
        8 => format!("Is {name} {m}?"),
        9 => {
            let (n3, a3) = r.pick(&p.names).clone();
            let c3 = amount_for(r, &a3);
            let m3 = money(r, c3);
            format!("{name}, {name2} and {n3} are {m}, {m2} and {m3} respectively.")
        }
        10 => format!("{name} is {m} - {m2}."),
        11 => format!("{name} costs {m}–{m2}."),
        12 => format!("{name} is between {m} and {m2}."),
        13 => format!("{name} is {m}.{} is {m2}.", capitalise(&name2)),
        14 => format!("{name} is {m}; {name2} is {m2}."),
        15 => format!("{} seats of {name} at {m} come to {m2}.", 2 + r.below(4)),
        16 => format!("Extra seats are {m} each."),
        17 => format!("{name} is {m} - 24/7 support included."),
        18 => format!("{name} is {m} — 10 or more seats."),
        19 => format!("{name} is {m}, {name2} {m2}."),
        20 => format!("The {} is {m}.", name.to_lowercase()),
        _ => format!("{} IS {m}!", name.to_uppercase()),
    }
}

fn forbid_sentence(r: &mut Rng, p: &Policy) -> String {
    let ph = r.pick(&p.phrases).clone();
    let cap = capitalise(&ph);
    match r.below(24) {
        0 => format!("We {ph} it."),
        1 => format!("We do not {ph} anything."),
        2 => format!("{cap}s are not available."),
        3 => format!("No, we {ph} it."),
        4 => format!("We offer a no-quibble {ph}."),
        5 => format!("No worries, we {ph} it."),
        6 => format!("We can't (sadly) {ph} it."),
        7 => format!("I don't think we'll be able to {ph} that."),
        8 => format!("We do not, as a rule, {ph} that."),
        9 => format!("Full {ph}s for annual plans are not available."),
        10 => format!("No. We {ph} that."),
        11 => format!("We {ph} no extra charges."),
        12 => format!("Once again, we {ph} it."),
        13 => format!("In case of issues we {ph} it."),
        14 => format!("\"{ph}\" is a word we avoid."),
        15 => format!("We never {ph}."),
        16 => format!("{cap} is not guaranteed."),
        17 => format!("There is a {ph} on every plan."),
        18 => format!("Our {ph} is no longer offered."),
        19 => format!("Don't worry, {ph} included."),
        20 => format!("We {ph}ed it yesterday."),
        21 => format!("We will {ph} it, provided you ask."),
        22 => format!("{cap}? Not at all."),
        _ => format!("You get a {ph}, no problem."),
    }
}

fn action_sentence(r: &mut Rng, p: &Policy) -> String {
    let v = r.pick(&p.verbs).clone();
    match r.below(26) {
        0 => format!("I've {v} your order."),
        1 => format!("I have {v} it."),
        2 => format!("I haven't {v} it."),
        3 => format!("I haven't yet {v} it."),
        4 => format!("I will {v} it tomorrow."),
        5 => format!("It will automatically be {v}."),
        6 => format!("Has it been {v}?"),
        7 => format!("Was your order {v}?"),
        8 => format!("Let me get that {v}."),
        9 => format!("I can get your order {v}."),
        10 => format!("When your order is {v}, you'll get an email."),
        11 => format!("I've {v} it — anything else?"),
        12 => format!("It is being {v}."),
        13 => format!("Orders are {v} within 5–7 days."),
        14 => format!("We've fully {v} your order."),
        15 => format!("You were {v} nothing."),
        16 => format!("I {v} none of it."),
        17 => format!("It's all {v} up."),
        18 => format!("It was {v} up front."),
        19 => format!("If it is {v}, we'll let you know."),
        20 => format!("I'm not sure it has {v}."),
        21 => format!("Done! I {v} it."),
        22 => format!("It has not been {v}."),
        23 => format!("Your order was {v} and {}.", r.pick(&p.verbs)),
        24 => format!("As soon as it is {v}, we'll write."),
        _ => format!("I {v} your order for {}.", money(r, 4900)),
    }
}

fn fact_sentence(r: &mut Rng, p: &Policy) -> String {
    let n = r.pick(&p.near).clone();
    let t = *r.pick(&TIMES);
    let t2 = *r.pick(&TIMES);
    let d = *r.pick(&DATES);
    let m = {
        let c = *r.pick(&[50000, 2000, 4990, 5000, 2500]);
        money(r, c)
    };
    match r.below(16) {
        0 => format!("Your {n} is at {t}."),
        1 => format!("Your {n} is confirmed for {t} on {d}."),
        2 => format!("We moved your {n} from {t} to {t2}."),
        3 => format!("Your {n} is at {t}, not {t2}."),
        4 => format!("Your {n} is no longer at {t}."),
        5 => format!("Your {n} is from {t} to {t2}."),
        6 => format!("Your {n} is {t}–{t2}."),
        7 => format!("Your {n} is on {d}."),
        8 => format!("Your {n} is on {d}. See you then."),
        9 => format!("Your {n} of {m} has been sent."),
        10 => format!("Your {n} of {m} instead of {} was sent.", money(r, 2000)),
        11 => format!("The {n} is in the afternoon at {t}."),
        12 => format!("Your {n} is not on {d}, it is at {t}."),
        13 => format!("Your {n}: {d} at {t}."),
        14 => format!("Your {n} 2 may arrive late, on {d}."),
        _ => format!("{} {n} at {t} is set.", capitalise(d)),
    }
}

fn discount_sentence(r: &mut Rng, p: &Policy) -> String {
    let (name, approved) = r.pick(&p.names).clone();
    let pct = *r.pick(&PERCENTS);
    let m = {
        let c = amount_for(r, &approved);
        money(r, c)
    };
    match r.below(14) {
        0 => format!("{name} is {pct}% off."),
        1 => format!("Get {pct}% off {name}!"),
        2 => format!("Save {m} on {name}."),
        3 => format!("{name} is {m} off."),
        4 => format!("{m} sale on {name}."),
        5 => format!("{name} is discounted to {m}."),
        6 => "Buy one, get one free.".to_string(),
        7 => format!("2 for 1 on {name}."),
        8 => format!("{pct}% discount on everything."),
        9 => format!("{name} is {pct} percent off."),
        10 => format!("{name} is {pct} % off, so {m}."),
        11 => format!("Take {pct}% off {name} and {}.", r.pick(&p.names).0),
        12 => format!("{name} was {m}, now {pct}% off."),
        _ => format!("Up to {pct}% off {name}."),
    }
}

/// Joins sentences the ways replies do: spaces, no space, new lines, dashes, clause joins.
fn join(r: &mut Rng, parts: &[String]) -> String {
    let mut out = String::new();
    for (i, s) in parts.iter().enumerate() {
        if i > 0 {
            let glue: &&str = r.pick(&[" ", " ", " ", "\n", "  ", " — ", " Also, ", " But ", ""]);
            out.push_str(glue);
        }
        out.push_str(s);
    }
    if r.chance(10) {
        let space: &&str = r.pick(&SPACES);
        let times = 1 + r.below(3);
        out = out.replacen(' ', space, times);
    }
    if r.chance(5) {
        out = format!("😀 {out}");
    }
    out
}

fn reply(r: &mut Rng, p: &Policy) -> String {
    let n = 1 + r.below(3);
    let parts: Vec<String> = (0..n)
        .map(|_| match r.below(5) {
            0 => price_sentence(r, p),
            1 => forbid_sentence(r, p),
            2 => action_sentence(r, p),
            3 => fact_sentence(r, p),
            _ => discount_sentence(r, p),
        })
        .collect();
    join(r, &parts)
}

/// The generated requests, each `(id, request)`; no request names a checker version (the oracle pins each).
pub(crate) fn requests(seed: u64) -> Vec<(String, Value)> {
    let mut r = Rng::new(seed);
    let mut out = Vec::with_capacity(BATCHES + SINGLES);
    for b in 0..BATCHES {
        let p = policy(&mut r);
        let mut cases = Vec::with_capacity(BATCH);
        for k in 0..BATCH {
            let mut c = json!({"id": format!("g{k}"), "reply": reply(&mut r, &p)});
            if r.chance(20) {
                c["record"] = record(&mut r, &p);
            }
            cases.push(c);
        }
        let mut req = json!({"policy": p.doc, "cases": cases});
        if r.chance(60) {
            req["record"] = record(&mut r, &p);
        }
        out.push((format!("gen/batch/{b}"), req));
    }
    for s in 0..SINGLES {
        let p = policy(&mut r);
        let mut req = json!({"policy": p.doc, "reply": reply(&mut r, &p)});
        if r.chance(60) {
            req["record"] = record(&mut r, &p);
        }
        out.push((format!("gen/one/{s}"), req));
    }
    out
}
