//! Failpoints for the crash tests (feature `failpoints`, off in every build that ships): at a named point the
//! process announces `FAILPOINT <name>` on stdout and waits there to be killed with SIGKILL by the test that
//! drives it. `CURBI_FAILPOINT=<name>@<n>` picks the point and the hit (from 1) that stops.

#[cfg(feature = "failpoints")]
pub(crate) fn hit(name: &str) {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static HITS: AtomicU64 = AtomicU64::new(0);
    let Ok(spec) = std::env::var("CURBI_FAILPOINT") else { return };
    let (point, nth) = spec.split_once('@').unwrap_or((spec.as_str(), "1"));
    if point != name {
        return;
    }
    if HITS.fetch_add(1, Ordering::SeqCst) + 1 == nth.parse::<u64>().unwrap_or(1) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "FAILPOINT {name}");
        let _ = out.flush();
        loop {
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
    }
}

#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn hit(_name: &str) {}
