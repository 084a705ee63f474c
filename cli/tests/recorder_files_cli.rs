//! `curbi recorder` and the files it makes, run in a temporary working directory (issue 43): relative and nested
//! publish directories are created, only `init` starts a log, and the database is 0600 under a umask of 022.
#![allow(clippy::panic)]

mod common;

use common::answer;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `curbi` with `args`, in `cwd`, under a umask of 022.
fn curbi(cwd: &Path, args: &[&str]) -> Output {
    Command::new("sh")
        .args(["-c", "umask 022 && exec \"$@\"", "sh", common::BIN])
        .args(args)
        .current_dir(cwd)
        .env_remove("CURBI_RECORDER_KEY")
        .output()
        .expect("runs curbi")
}

fn work_dir(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("recorder-files-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    d
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())).permissions().mode() & 0o777
}

const ORIGIN: &str = "curbi-checkpoint-v1.shop.example/refunds";

#[test]
fn relative_and_nested_publish_directories_are_created() {
    let cwd = work_dir("publish");
    assert_eq!(curbi(&cwd, &["recorder", "keys", "generate", "--out", "key.jwk"]).status.code(), Some(0));
    let init = curbi(&cwd, &["recorder", "init", "--db", "log.db", "--key", "key.jwk", "--origin", ORIGIN]);
    assert_eq!(init.status.code(), Some(0), "{}", answer(&init));
    let base = ["--db", "log.db", "--key", "key.jwk"];
    let run = |sub: &str, extra: &[&str]| {
        let mut args = vec!["recorder", sub];
        args.extend(base);
        args.extend(extra);
        let out = curbi(&cwd, &args);
        assert_eq!(out.status.code(), Some(0), "{sub} {extra:?}: {}", answer(&out));
        answer(&out)
    };
    // The README's own examples: a new relative directory, with and without a trailing slash, and nested ones.
    run("checkpoint", &["--publish", "public/"]);
    assert!(cwd.join("public/checkpoint").is_file());
    run("publish", &["--dir", "site"]);
    run("publish", &["--dir", "a/b/c/"]);
    run("checkpoint", &["--publish", "x/y"]);
    for d in ["site", "a/b/c", "x/y"] {
        assert!(cwd.join(d).join("checkpoint").is_file(), "{d}");
        assert_eq!(mode(&cwd.join(d).join("checkpoint")), 0o644, "published tiles are public: {d}");
    }
    // A path that starts with `./`.
    run("publish", &["--dir", "./dot/"]);
    assert!(cwd.join("dot/checkpoint").is_file());
}

#[test]
fn only_init_starts_a_log_and_the_database_is_0600() {
    let cwd = work_dir("create");
    assert_eq!(curbi(&cwd, &["recorder", "keys", "generate", "--out", "key.jwk"]).status.code(), Some(0));
    let files = |cwd: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(cwd)
            .expect("lists")
            .map(|e| e.expect("e").file_name().to_string_lossy().into())
            .collect();
        v.sort();
        v
    };
    // Any other command on a missing file, even with an origin: not_found, and nothing is left behind.
    for extra in [&[][..], &["--origin", ORIGIN][..]] {
        let mut args = vec!["recorder", "status", "--db", "log.db", "--key", "key.jwk"];
        args.extend(extra);
        let out = curbi(&cwd, &args);
        let e = &answer(&out)["error"];
        assert_eq!(
            (out.status.code(), e["code"].as_str(), e["path"].as_str()),
            (Some(2), Some("not_found"), Some("/path"))
        );
        assert_eq!(files(&cwd), ["key.jwk"]);
    }
    // init refused (a bad origin) leaves nothing either.
    let bad = curbi(&cwd, &["recorder", "init", "--db", "log.db", "--key", "key.jwk", "--origin", "not-curbi"]);
    assert_eq!(bad.status.code(), Some(2), "{}", answer(&bad));
    assert_eq!(files(&cwd), ["key.jwk"]);
    // An empty file: refused by every command but init, which makes it a log, 0600.
    std::fs::write(cwd.join("log.db"), b"").expect("an empty file");
    let out = curbi(&cwd, &["recorder", "status", "--db", "log.db", "--key", "key.jwk"]);
    assert_eq!(answer(&out)["error"]["code"], "corrupt");
    assert_eq!(std::fs::metadata(cwd.join("log.db")).expect("meta").len(), 0);
    let init = curbi(&cwd, &["recorder", "init", "--db", "log.db", "--key", "key.jwk", "--origin", ORIGIN]);
    assert_eq!(init.status.code(), Some(0), "{}", answer(&init));
    assert_eq!(mode(&cwd.join("log.db")), 0o600);
    let init = curbi(&cwd, &["recorder", "init", "--db", "new.db", "--key", "key.jwk", "--origin", ORIGIN]);
    assert_eq!(init.status.code(), Some(0), "{}", answer(&init));
    assert_eq!(mode(&cwd.join("new.db")), 0o600);
    // The umask is in force for other files: the publish below writes 0644 tiles.
    let out = curbi(&cwd, &["recorder", "checkpoint", "--db", "new.db", "--key", "key.jwk", "--publish", "pub"]);
    assert_eq!(out.status.code(), Some(0), "{}", answer(&out));
    assert_eq!(mode(&cwd.join("pub/checkpoint")), 0o644);
}
