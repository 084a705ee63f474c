//! The bundled SQLite is built as `.cargo/config.toml` asks: statement journals held in memory in small chunks. A
//! build that lost the setting still records correctly, only slower (a 64 KiB allocation and a heap trim for each
//! statement that needs a journal, ~20 µs of a confirm); this test is what notices.
#![allow(clippy::panic)]

#[test]
fn statement_journals_stay_in_memory() {
    let c = rusqlite::Connection::open_in_memory().expect("opens");
    let mut st = c.prepare("PRAGMA compile_options").expect("prepares");
    let options: Vec<String> =
        st.query_map([], |r| r.get(0)).expect("reads").collect::<Result<_, _>>().expect("every option");
    assert!(
        options.iter().any(|o| o == "STMTJRNL_SPILL=-1"),
        "the bundled SQLite was built without LIBSQLITE3_FLAGS=-DSQLITE_STMTJRNL_SPILL=-1: {options:?}"
    );
}
