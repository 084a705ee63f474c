//! The signing key, as a private Ed25519 JWK (RFC 8037): `{"kty":"OKP","crv":"Ed25519","d":…,"x":…}` with an
//! optional `kid`, `alg` (`EdDSA`) and `use` (`sig`). It comes from a file that only its owner may read, or from an
//! environment variable holding the same text. Neither the key nor the text is ever logged, echoed or put in an
//! error message.

use std::io::Write;
use std::path::Path;

use curbi::proof::SigningKey;
use curbi::proof::encoding::{decode_url, encode_url};
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

/// Reads the key file at `path`, which must be readable by its owner only (mode 0600 or stricter) on Unix.
pub fn read_key_file(path: &Path) -> Result<LoadedKey, Error> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| bad(format!("cannot read the key file {shown}: {e}")))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode();
        if mode & 0o077 != 0 {
            return Err(bad(format!(
                "the key file {shown} is readable by others (mode {:o}); chmod 600 it",
                mode & 0o777
            )));
        }
    }
    if meta.len() > MAX_KEY_TEXT as u64 {
        return Err(bad(format!("the key file {shown} is over {MAX_KEY_TEXT} bytes")));
    }
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read the key file {shown}: {e}")))?;
    parse_key(text.trim_end())
}

/// Reads the key from the environment variable `name`.
pub fn read_key_env(name: &str) -> Result<LoadedKey, Error> {
    let text =
        std::env::var(name).map_err(|_| bad(format!("the environment variable {name} is not set (or not UTF-8)")))?;
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
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let shown = path.display();
    let mut file = options.open(path).map_err(|e| bad(format!("cannot create the key file {shown}: {e}")))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.write_all(b"\n"))
        .and_then(|()| file.sync_all())
        .map_err(|e| bad(format!("cannot write the key file {shown}: {e}")))?;
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
    }
}
