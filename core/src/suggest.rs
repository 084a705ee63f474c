//! "Did you mean": the closest of a few known names to a mistyped one, for error messages (unknown policy
//! members, unknown CLI commands). Distance is optimal string alignment (Levenshtein plus adjacent transposition,
//! so `prcies` is one edit from `prices`), over characters; a name is suggested only when it is close relative to
//! its length, and only when exactly one name is closest.

/// The one name in `known` closest to `typed`, if it is within `max(1, len / 3)` edits (len: the longer of the two
/// in characters). Ties between two names at the best distance give no suggestion; case is ignored.
pub fn closest<'a>(typed: &str, known: &[&'a str]) -> Option<&'a str> {
    let typed: Vec<char> = typed.to_lowercase().chars().collect();
    let mut best: Option<(usize, &'a str)> = None;
    let mut tie = false;
    for &name in known {
        let cand: Vec<char> = name.to_lowercase().chars().collect();
        let limit = (typed.len().max(cand.len()) / 3).max(1);
        // The lengths alone put it out of reach: no alignment, so a long name costs one pass, not one per name.
        if typed.len().abs_diff(cand.len()) > limit {
            continue;
        }
        let d = distance(&typed, &cand);
        if d == 0 || d > limit {
            continue;
        }
        match best {
            Some((b, _)) if d > b => {}
            Some((b, _)) if d == b => tie = true,
            _ => {
                best = Some((d, name));
                tie = false;
            }
        }
    }
    if tie { None } else { best.map(|(_, n)| n) }
}

/// The message for a member `key` not among `allowed`: names the closest allowed member when there is one.
pub fn unknown_member_message(key: &str, allowed: &[&str]) -> String {
    let suggestion = closest(key, allowed);
    let key = crate::error::excerpt(key);
    match suggestion {
        Some(s) => format!("unknown member '{key}': did you mean '{s}'? (allowed: {})", allowed.join(", ")),
        None => format!("unknown member '{key}' (allowed: {})", allowed.join(", ")),
    }
}

/// Optimal string alignment distance between two character sequences.
fn distance(a: &[char], b: &[char]) -> usize {
    // Three rows: two back (for transpositions), the previous one and the current one.
    let mut prev2: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(prev2[j - 2] + 1);
            }
            cur[j] = v;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: &[&str] = &["name", "description", "prices", "forbid", "actions", "discounts", "unknownAmounts"];

    #[test]
    fn distances_worked_by_hand() {
        let d = |a: &str, b: &str| distance(&a.chars().collect::<Vec<_>>(), &b.chars().collect::<Vec<_>>());
        assert_eq!(d("prcies", "prices"), 1); // one adjacent transposition
        assert_eq!(d("chek", "check"), 1); // one insertion
        assert_eq!(d("kitten", "sitting"), 3); // the textbook example
        assert_eq!(d("", "abc"), 3);
        assert_eq!(d("ca", "abc"), 3); // OSA, not full Damerau (which gives 2)
    }

    #[test]
    fn suggests_the_close_name_only() {
        assert_eq!(closest("prcies", POLICY), Some("prices"));
        assert_eq!(closest("Prices", POLICY), None); // same name but for case: distance 0 is no typo to fix
        assert_eq!(closest("forbidden", POLICY), Some("forbid")); // 3 edits, within 9 / 3
        assert_eq!(closest("pricing", POLICY), None); // 3 edits from "prices": too far for 7 characters
        assert_eq!(closest("discount", POLICY), Some("discounts"));
        assert_eq!(closest("chek", &["check", "serve", "lint"]), Some("check"));
        assert_eq!(closest("xyz", &["check", "serve", "lint"]), None);
        // Two names one edit away: no guess.
        assert_eq!(closest("cat", &["bat", "hat"]), None);
    }

    #[test]
    fn message_names_the_suggestion() {
        assert_eq!(
            unknown_member_message("prcies", &["prices", "forbid"]),
            "unknown member 'prcies': did you mean 'prices'? (allowed: prices, forbid)"
        );
        assert_eq!(unknown_member_message("zzz", &["prices"]), "unknown member 'zzz' (allowed: prices)");
    }
}
