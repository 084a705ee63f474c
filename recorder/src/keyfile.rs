//! The signing key, as a private Ed25519 JWK (RFC 8037): `{"kty":"OKP","crv":"Ed25519","d":…,"x":…}` with an
//! optional `kid`, `alg` (`EdDSA`) and `use` (`sig`). It comes from a file that only its owner may read, or from an
//! environment variable holding the same text. Neither the key nor the text is ever logged, echoed or put in an
//! error message.

use std::io::{Read, Write};
use std::path::Path;

use curbi::encoding::{decode_url, encode_url};
use curbi::proof::SigningKey;
use curbi::{Error, ErrorCode};
use serde_json::Value;

/// The environment variable the CLI reads the key from when no key file is named.
pub const KEY_ENV: &str = "CURBI_RECORDER_KEY";

/// Longest key text read, in bytes.
const MAX_KEY_TEXT: usize = 4096;

fn bad(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidKeyFile, "", message)
}

/// A key and the `kid` its JWK names (the RFC 7638 thumbprint when it names none).
#[derive(Debug, Clone)]
pub struct LoadedKey {
    pub key: SigningKey,
    pub kid: String,
}

/// Reads a private JWK's text.
pub fn parse_key(text: &str) -> Result<LoadedKey, Error> {
    if text.len() > MAX_KEY_TEXT {
        return Err(bad(format!("the key text is over {MAX_KEY_TEXT} bytes")));
    }
    // The strict reader, but its errors could quote the text: only the code and path are kept.
    let v =
        curbi::json::read_str(text).map_err(|e| bad(format!("the key is not JSON ({} at '{}')", e.code, e.path)))?;
    let obj = v.as_object().ok_or_else(|| bad("the key is not a JSON object (a private Ed25519 JWK)"))?;
    if let Some(name) = obj.keys().find(|k| !["kty", "crv", "d", "x", "kid", "alg", "use"].contains(&k.as_str())) {
        return Err(bad(format!("the key has a member \"{name}\" a private Ed25519 JWK does not have")));
    }
    let text_member =
        |name: &str| obj.get(name).map(|v| v.as_str().ok_or_else(|| bad(format!("\"{name}\" is not a string"))));
    if text_member("kty").transpose()? != Some("OKP") || text_member("crv").transpose()? != Some("Ed25519") {
        return Err(bad("the key must have \"kty\": \"OKP\" and \"crv\": \"Ed25519\""));
    }
    if text_member("alg").transpose()?.is_some_and(|a| a != "EdDSA") {
        return Err(bad("\"alg\" must be \"EdDSA\""));
    }
    if text_member("use").transpose()?.is_some_and(|u| u != "sig") {
        return Err(bad("\"use\" must be \"sig\""));
    }
    let d = text_member("d").transpose()?.ok_or_else(|| bad("the key has no \"d\" (it is not a private key)"))?;
    let seed: [u8; 32] = decode_url(d)
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .ok_or_else(|| bad("\"d\" is not 32 bytes of unpadded base64url"))?;
    let key = SigningKey::from_seed(&seed);
    let public = key.verifying_key();
    match text_member("x").transpose()? {
        Some(x) if x == public.to_jwk_x() => {}
        Some(_) => return Err(bad("\"x\" is not the public key of \"d\"")),
        None => return Err(bad("the key has no \"x\"")),
    }
    let kid = match text_member("kid").transpose()? {
        Some(k) if !k.is_empty() && k.len() <= 256 && !k.chars().any(char::is_control) => k.to_string(),
        Some(_) => return Err(bad("\"kid\" must be 1 to 256 bytes without control characters")),
        None => public.thumbprint(),
    };
    Ok(LoadedKey { key, kid })
}

/// Reads the key file at `path`, which must be a regular file readable by its owner only (mode 0600 or stricter)
/// on Unix. It is opened without waiting (a FIFO with no writer does not block) and judged on the opened handle, so
/// nothing can be swapped in between the checks and the read. No message names the path: a caller may have passed
/// the key's text where its path belongs.
pub fn read_key_file(path: &Path) -> Result<LoadedKey, Error> {
    let file = open_regular(path).map_err(|e| bad(format!("cannot read the key file: {e}")))?;
    let meta = file.metadata().map_err(|e| bad(format!("cannot read the key file: {e}")))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode();
        if mode & 0o077 != 0 {
            return Err(bad(format!("the key file is readable by others (mode {:o}); chmod 600 it", mode & 0o777)));
        }
    }
    let mut text = String::new();
    file.take(MAX_KEY_TEXT as u64 + 1)
        .read_to_string(&mut text)
        .map_err(|e| bad(format!("cannot read the key file: {e}")))?;
    if text.len() > MAX_KEY_TEXT {
        return Err(bad(format!("the key file is over {MAX_KEY_TEXT} bytes")));
    }
    parse_key(text.trim_end())
}

/// Opens `path` for reading without waiting for a writer (a FIFO with no writer opens at once instead of blocking)
/// and refuses it (`InvalidInput`, "it is a FIFO, not a regular file") unless the opened handle is a regular file:
/// the check is on the handle (fstat), so nothing can be swapped in between. Symlinks are followed (a key mounted
/// by an orchestrator is often one). Every file a key is read from is opened through this (the CLI's, the
/// server's). Its errors never name the path.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() {
        return Ok(file);
    }
    let t = meta.file_type();
    let mut kind = if t.is_dir() { "a folder" } else { "not a regular file" };
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            kind = "a FIFO";
        } else if t.is_socket() {
            kind = "a socket";
        } else if t.is_char_device() || t.is_block_device() {
            kind = "a device";
        }
    }
    let why = format!("it is {kind}, not a regular file; nothing was read");
    Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, why))
}

/// Creates `path` new, readable and writable by its owner only (mode 0600 on Unix), writes `bytes` and syncs them.
/// Never through a symlink and never over anything already there (`create_new`, with `O_NOFOLLOW`): an existing
/// path, a dangling symlink included, is `AlreadyExists` and is left as it was. Every file a key is written to is
/// created through this.
pub fn create_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Reads the key from the environment variable `name`. A message never repeats `name`: a caller may have put the
/// key's text where the variable's name belongs.
pub fn read_key_env(name: &str) -> Result<LoadedKey, Error> {
    let text =
        std::env::var(name).map_err(|_| bad("the environment variable named for the key is not set (or not UTF-8)"))?;
    parse_key(text.trim_end())
}

/// The private JWK text of `key` under `kid`.
pub fn key_text(seed: &[u8; 32], kid: Option<&str>) -> String {
    let key = SigningKey::from_seed(seed);
    let mut jwk = serde_json::Map::new();
    jwk.insert("kty".into(), "OKP".into());
    jwk.insert("crv".into(), "Ed25519".into());
    jwk.insert("d".into(), encode_url(seed).into());
    jwk.insert("x".into(), key.verifying_key().to_jwk_x().into());
    if let Some(kid) = kid {
        jwk.insert("kid".into(), kid.into());
    }
    Value::Object(jwk).to_string()
}

/// Writes a new random key to `path` (created, never overwritten; mode 0600), returning its kid.
pub fn generate_key_file(path: &Path, kid: Option<&str>) -> Result<String, Error> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| bad(format!("no randomness from the system: {e}")))?;
    let text = key_text(&seed, kid);
    seed.fill(0);
    let loaded = parse_key(&text)?;
    let shown = path.display();
    create_private(path, format!("{text}\n").as_bytes()).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            bad(format!("{shown} already exists (or is a symlink); nothing was written: remove it or name a new file"))
        } else {
            bad(format!("cannot write the key file {shown}: {e}"))
        }
    })?;
    Ok(loaded.kid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc8037_example_key_reads_and_wrong_keys_do_not() {
        // RFC 8037 Appendix A.1: the Ed25519 private key example.
        let rfc = r#"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#;
        let k = parse_key(rfc).expect("the RFC's key");
        // RFC 8037 Appendix A.3: its RFC 7638 thumbprint.
        assert_eq!(k.kid, "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
        for (bad_text, why) in [
            (rfc.replace("\"d\":\"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A\",", ""), "no d"),
            (rfc.replace("11qY", "21qY"), "x of another key"),
            (rfc.replace("OKP", "EC"), "kty"),
            (rfc.replace("}", ",\"p\":\"x\"}"), "unknown member"),
            (rfc.replace("}", ",\"kty\":\"OKP\"}"), "repeated member"),
            ("not json".to_string(), "syntax"),
        ] {
            let e = parse_key(&bad_text).expect_err(why);
            assert_eq!(e.code, ErrorCode::InvalidKeyFile, "{why}");
            assert!(!e.message.contains("nWGxne"), "{why}: the message must not echo the key: {}", e.message);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_generated_file_is_private_reads_back_and_is_never_overwritten() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("key.jwk");
        let kid = generate_key_file(&path, Some("k1")).expect("writes");
        assert_eq!(kid, "k1");
        assert_eq!(std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777, 0o600);
        assert_eq!(read_key_file(&path).expect("reads").kid, "k1");
        assert_eq!(generate_key_file(&path, None).map_err(|e| e.code), Err(ErrorCode::InvalidKeyFile));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let e = read_key_file(&path).expect_err("readable by others");
        assert!(e.message.contains("chmod 600"), "{}", e.message);
        // A symlink, even a dangling one, is never written through.
        let target = dir.path().join("target");
        let link = dir.path().join("link.jwk");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        let e = generate_key_file(&link, None).expect_err("a symlink");
        assert!(e.message.contains("already exists"), "{}", e.message);
        assert!(!target.exists(), "nothing was created through the link");
    }

    #[cfg(unix)]
    #[test]
    fn a_key_file_that_is_a_fifo_is_refused_without_waiting_and_no_message_names_the_path() {
        let dir = tempfile::tempdir().expect("dir");
        let fifo = dir.path().join("key.fifo");
        assert!(
            std::process::Command::new("mkfifo").arg("-m").arg("600").arg(&fifo).status().expect("mkfifo").success()
        );
        // No writer: a blocking open would never return (the test would hang rather than fail).
        let e = read_key_file(&fifo).expect_err("a FIFO");
        assert!(e.message.contains("a FIFO, not a regular file"), "{}", e.message);
        let e = read_key_file(dir.path()).expect_err("a folder");
        assert!(e.message.contains("a folder, not a regular file"), "{}", e.message);
        // The key's text where its path belongs, or in place of a variable's name: never repeated.
        let rfc = r#"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#;
        for e in [read_key_file(Path::new(rfc)).expect_err("no such file"), read_key_env(rfc).expect_err("no such var")]
        {
            assert!(!e.message.contains("nWGxne") && !e.message.contains("kty"), "{}", e.message);
        }
    }
}
