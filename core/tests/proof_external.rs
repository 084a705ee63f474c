//! The public vectors of `../shared/vectors-external/` (README there) against the proof primitives: transparency-dev
//! Merkle probes, the RFC 6962 reference tree, generated RFC 9162 proofs (n ≤ 16) and digests (n ≤ 130), Wycheproof
//! Ed25519, RFC 8032 §7.1, C2SP CCTV against dalek's `verify_strict`, RFC 8037 JWKs and the C2SP signed-note example.
//! Every expectation comes from those files; each test prints how many vectors it ran (`-- --nocapture`).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};

use curbi::ErrorCode;
use curbi::encoding::{decode_hex, decode_std, hex, sha256};
use curbi::proof::keys::{KeySet, PreparedKey, SigningKey, VerifyingKey, verify_strict_bytes};
use curbi::proof::merkle::{self, Hash, MerkleLog};
use curbi::proof::note::{self, Checkpoint, Note, NoteError, NoteVerifier, SignatureKind};
use serde_json::Value;

/// The shared vectors folder, beside the repository. Missing is a failure, never a skip.
fn vectors_dir() -> PathBuf {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/vectors-external"));
    assert!(
        dir.is_dir(),
        "the public test vectors folder is missing: expected {} (the repository's sibling \
         shared/vectors-external/, present on CI and every developer machine); these tests cannot run without it",
        dir.display()
    );
    dir
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn vector(rel: &str) -> Value {
    read_json(&vectors_dir().join(rel))
}

fn unhex(v: &Value) -> Vec<u8> {
    let s = v.as_str().unwrap_or_else(|| panic!("expected a hex string, got {v}"));
    decode_hex(s).unwrap_or_else(|| panic!("not hex: {s}"))
}

fn hash_hex(v: &Value) -> Hash {
    Hash::try_from(unhex(v).as_slice()).unwrap_or_else(|_| panic!("not a 32-byte hash: {v}"))
}

fn hashes_hex(v: &Value) -> Vec<Hash> {
    v.as_array().unwrap().iter().map(hash_hex).collect()
}

/// Standard base64 as Go's encoding/json writes `[]byte` (the probes' inputs, which may be any length).
fn unb64(v: &Value) -> Vec<u8> {
    let s = v.as_str().unwrap_or_else(|| panic!("expected a base64 string, got {v}"));
    decode_std(s).unwrap_or_else(|| panic!("not standard base64: {s}"))
}

fn u64_of(v: &Value, name: &str) -> u64 {
    v[name].as_u64().unwrap_or_else(|| panic!("{name} is not a u64 in {v}"))
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// A log whose leaf `i` is the single byte `i` (the generated files' tree).
fn byte_log(n: u8) -> MerkleLog {
    let mut log = MerkleLog::new();
    for i in 0..n {
        log.append(&[i]);
    }
    log
}

#[test]
fn transparency_dev_probes() {
    let root = vectors_dir().join("transparency-dev-merkle/testdata");
    let (mut inclusion, mut consistency, mut rejected) = (0, 0, 0);
    let mut failures = Vec::new();
    let mut files = Vec::new();
    json_files(&root, &mut files);
    for path in &files {
        let v = read_json(path);
        let proof: Vec<Vec<u8>> = match &v["proof"] {
            Value::Null => Vec::new(),
            p => p.as_array().unwrap().iter().map(unb64).collect(),
        };
        let want_err = v["wantErr"].as_bool().unwrap();
        let rel = path.strip_prefix(&root).unwrap().display().to_string();
        let result = if rel.starts_with("inclusion") {
            inclusion += 1;
            let (index, size) = (u64_of(&v, "leafIdx"), u64_of(&v, "treeSize"));
            merkle::verify_inclusion_bytes(&unb64(&v["leafHash"]), index, size, &proof, &unb64(&v["root"]))
        } else {
            consistency += 1;
            let (size1, size2) = (u64_of(&v, "size1"), u64_of(&v, "size2"));
            merkle::verify_consistency_bytes(size1, size2, &proof, &unb64(&v["root1"]), &unb64(&v["root2"]))
        };
        rejected += usize::from(result.is_err());
        if result.is_err() != want_err {
            failures.push(format!("{rel}: wantErr {want_err}, got {result:?}"));
        }
    }
    println!(
        "transparency-dev probes: {} ran ({inclusion} inclusion, {consistency} consistency): {rejected} rejected and \
         {} accepted, {} disagreeing with wantErr",
        files.len(),
        files.len() - rejected,
        failures.len()
    );
    assert_eq!(files.len(), 196, "the README lists 196 probes");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn reference_tree() {
    let v = vector("transparency-dev-merkle/reference-tree.json");
    let leaves: Vec<Vec<u8>> = v["leaf_inputs_hex"].as_array().unwrap().iter().map(unhex).collect();
    let mut log = MerkleLog::new();
    for leaf in &leaves {
        log.append(leaf);
    }
    let roots = hashes_hex(&v["root_hashes_by_size"]);
    for (size, root) in roots.iter().enumerate() {
        assert_eq!(log.root_at(size as u64).as_ref(), Ok(root), "root of size {size}");
    }
    let mut nodes = 0;
    for (level, hashes) in v["node_hashes_by_level"].as_array().unwrap().iter().enumerate() {
        for (i, want) in hashes_hex(hashes).iter().enumerate() {
            // The complete subtree of 2^level leaves starting at i·2^level.
            let mut sub = MerkleLog::new();
            for leaf in &leaves[i << level..(i + 1) << level] {
                sub.append(leaf);
            }
            assert_eq!(&sub.root(), want, "node {i} at level {level}");
            nodes += 1;
        }
    }
    for (i, leaf) in leaves.iter().enumerate() {
        assert_eq!(log.leaf_hash(i as u64), Some(merkle::leaf_hash(leaf)));
    }
    println!("reference tree: {} roots and {nodes} subtree hashes ran, 0 failed", roots.len());
    assert_eq!(roots.len(), 9);
}

#[test]
fn rfc9162_proofs_n16_generation_and_verification() {
    let v = vector("generated/rfc9162-proofs-n16.json");
    let max = u8::try_from(v["max_size"].as_u64().unwrap()).unwrap();
    let log = byte_log(max);
    assert_eq!(merkle::empty_root(), sha256(b""));
    for leaf in v["leaves"].as_array().unwrap() {
        let index = u64_of(leaf, "index");
        assert_eq!(merkle::leaf_hash(&unhex(&leaf["data"])), hash_hex(&leaf["leaf_hash"]));
        assert_eq!(log.leaf_hash(index), Some(hash_hex(&leaf["leaf_hash"])));
    }
    let roots: Vec<Hash> = v["roots"].as_array().unwrap().iter().map(|r| hash_hex(&r["root"])).collect();
    for (size, r) in v["roots"].as_array().unwrap().iter().enumerate() {
        assert_eq!(u64_of(r, "size"), size as u64);
        assert_eq!(log.root_at(size as u64).as_ref(), Ok(&roots[size]), "root of size {size}");
    }
    let inclusion = v["inclusion"].as_array().unwrap();
    for item in inclusion {
        let (index, size) = (u64_of(item, "index"), u64_of(item, "size"));
        let want = hashes_hex(&item["path"]);
        assert_eq!(log.inclusion_proof(index, size).as_ref(), Ok(&want), "PATH({index}, D[{size}])");
        let leaf = merkle::leaf_hash(&[u8::try_from(index).unwrap()]);
        assert_eq!(merkle::verify_inclusion(&leaf, index, size, &want, &roots[size as usize]), Ok(()));
    }
    let consistency = v["consistency"].as_array().unwrap();
    for item in consistency {
        let (m, n) = (u64_of(item, "size1"), u64_of(item, "size2"));
        let want = hashes_hex(&item["proof"]);
        assert_eq!(log.consistency_proof(m, n).as_ref(), Ok(&want), "PROOF({m}, D[{n}])");
        let verified = merkle::verify_consistency(m, n, &want, &roots[m as usize], &roots[n as usize]);
        assert_eq!(verified, Ok(()), "{m} -> {n}");
    }
    println!(
        "rfc9162 n<=16: {} roots, {} inclusion and {} consistency proofs generated and verified, 0 failed",
        roots.len(),
        inclusion.len(),
        consistency.len()
    );
    assert_eq!((roots.len(), inclusion.len(), consistency.len()), (17, 136, 136));
}

#[test]
fn rfc9162_accumulated_digests_n130() {
    let v = vector("generated/rfc9162-accumulated-n130.json");
    let log = byte_log(130);
    let line = |m: u64, n: u64, proof: &[Hash]| {
        let mut s = format!("{m} {n}");
        for h in proof {
            s.push(' ');
            s.push_str(&hex(h));
        }
        s.push('\n');
        s
    };
    let (mut roots, mut inclusion, mut consistency) = (String::new(), String::new(), String::new());
    let mut counts = (0, 0, 0);
    for n in 0..=130u64 {
        roots.push_str(&format!("{n} {}\n", hex(&log.root_at(n).unwrap())));
        counts.0 += 1;
    }
    for n in 1..=130u64 {
        let root = log.root_at(n).unwrap();
        for m in 0..n {
            let proof = log.inclusion_proof(m, n).unwrap();
            let leaf = merkle::leaf_hash(&[u8::try_from(m).unwrap()]);
            assert_eq!(merkle::verify_inclusion(&leaf, m, n, &proof, &root), Ok(()), "inclusion {m}/{n}");
            inclusion.push_str(&line(m, n, &proof));
            counts.1 += 1;
        }
        for m in 1..=n {
            let proof = log.consistency_proof(m, n).unwrap();
            let old = log.root_at(m).unwrap();
            assert_eq!(merkle::verify_consistency(m, n, &proof, &old, &root), Ok(()), "consistency {m}->{n}");
            consistency.push_str(&line(m, n, &proof));
            counts.2 += 1;
        }
    }
    assert_eq!(hex(&sha256(roots.as_bytes())), v["roots_digest"]["sha256"].as_str().unwrap(), "roots digest");
    assert_eq!(hex(&sha256(inclusion.as_bytes())), v["inclusion_digest"]["sha256"].as_str().unwrap(), "inclusion");
    assert_eq!(
        hex(&sha256(consistency.as_bytes())),
        v["consistency_digest"]["sha256"].as_str().unwrap(),
        "consistency"
    );
    println!(
        "rfc9162 n<=130 digests: {} roots, {} inclusion and {} consistency proofs hashed into 3 digests, 3 matched",
        counts.0, counts.1, counts.2
    );
}

#[test]
fn wycheproof_ed25519() {
    let v = vector("wycheproof/ed25519_test.json");
    let (mut valid, mut invalid, mut acceptable, mut jwks) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for group in v["testGroups"].as_array().unwrap() {
        let pk = unhex(&group["publicKey"]["pk"]);
        // Every group's publicKeyJwk loads as a key set whose key is exactly `pk`.
        let jwk = &group["publicKeyJwk"];
        let set = KeySet::parse(&serde_json::json!({ "keys": [jwk] }).to_string());
        match &set {
            Ok(set) => assert_eq!(set.keys()[0].key().as_bytes().as_slice(), pk.as_slice(), "{jwk}"),
            Err(e) => failures.push(format!("publicKeyJwk {jwk} refused: {e}")),
        }
        jwks += 1;
        let loaded = VerifyingKey::from_slice(&pk).ok();
        for t in group["tests"].as_array().unwrap() {
            let (msg, sig) = (unhex(&t["msg"]), unhex(&t["sig"]));
            let ok = verify_strict_bytes(&pk, &msg, &sig).is_ok();
            if let Some(key) = &loaded {
                assert_eq!(key.verify(&msg, &sig).is_ok(), ok, "VerifyingKey::verify disagrees on tcId {}", t["tcId"]);
                let prepared = PreparedKey::new(key).verify(&msg, &sig).is_ok();
                assert_eq!(prepared, ok, "PreparedKey::verify disagrees on tcId {}", t["tcId"]);
            }
            let wrong = match t["result"].as_str().unwrap() {
                "valid" => {
                    valid += 1;
                    !ok
                }
                "invalid" => {
                    invalid += 1;
                    ok
                }
                // "acceptable": either answer conforms (none in this file).
                "acceptable" => {
                    acceptable += 1;
                    false
                }
                other => panic!("unknown result {other}"),
            };
            if wrong {
                failures.push(format!("tcId {} ({}): verify_strict said {ok}", t["tcId"], t["comment"]));
            }
        }
    }
    let total = valid + invalid + acceptable;
    println!(
        "wycheproof ed25519: {total} ran ({valid} valid, {invalid} invalid, {acceptable} acceptable), {jwks} JWKs \
         loaded, {} failed",
        failures.len()
    );
    assert_eq!(total, v["numberOfTests"].as_u64().unwrap() as usize);
    assert_eq!(total, 151);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rfc8032_section_7_1() {
    let v = vector("rfc8032/ed25519-rfc8032.json");
    let vectors = v["vectors"].as_array().unwrap();
    for t in vectors {
        let name = t["name"].as_str().unwrap();
        let seed: [u8; 32] = unhex(&t["secret_key_seed"]).try_into().unwrap();
        let (public, msg, sig) = (unhex(&t["public_key"]), unhex(&t["message"]), unhex(&t["signature"]));
        let key = SigningKey::from_seed(&seed);
        assert_eq!(key.verifying_key().as_bytes().as_slice(), public.as_slice(), "{name}: public key");
        assert_eq!(key.sign(&msg).as_slice(), sig.as_slice(), "{name}: signature");
        let vk = VerifyingKey::from_slice(&public).unwrap();
        assert_eq!(vk.verify(&msg, &sig), Ok(()), "{name}: verify");
        assert_eq!(PreparedKey::new(&vk).verify(&msg, &sig), Ok(()), "{name}: verify, prepared");
        let mut tampered = sig.clone();
        tampered[0] ^= 1;
        assert!(vk.verify(&msg, &tampered).is_err(), "{name}: a changed signature must fail");
    }
    println!("rfc8032 §7.1: {} ran (sign from seed and verify), 0 failed", vectors.len());
    assert_eq!(vectors.len(), 5);
}

#[test]
fn cctv_matches_dalek_verify_strict() {
    let cases = vector("cctv-ed25519/ed25519vectors.json");
    let measured = vector("generated/ed25519-cctv-acceptance.json");
    let results = measured["results"].as_array().unwrap();
    let mut failures = Vec::new();
    let (mut accepted, mut weak_refused, mut prepared_ran) = (0, 0, 0);
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), results.len());
    for (case, want) in cases.iter().zip(results) {
        let number = case["number"].as_u64().unwrap();
        assert_eq!(want["number"].as_u64(), Some(number));
        let (key, sig) = (unhex(&case["key"]), unhex(&case["sig"]));
        let msg = case["msg"].as_str().unwrap().as_bytes();
        let ok = verify_strict_bytes(&key, msg, &sig).is_ok();
        accepted += usize::from(ok);
        // Where the key loads, the prepared table answers exactly what verify_strict answers.
        if let Ok(loaded) = VerifyingKey::from_slice(&key) {
            let prepared = PreparedKey::new(&loaded).verify(msg, &sig).is_ok();
            if prepared != ok {
                failures
                    .push(format!("vector {number} ({}): PreparedKey {prepared}, verify_strict {ok}", case["flags"]));
            }
            prepared_ran += 1;
        }
        if Some(ok) != want["dalek_verify_strict"].as_bool() {
            failures.push(format!(
                "vector {number} ({}): ours {ok}, dalek_verify_strict {}",
                case["flags"], want["dalek_verify_strict"]
            ));
        }
        // A key dalek measures as weak never loads as a trusted VerifyingKey.
        if want["dalek_is_weak_key"].as_bool() == Some(true) {
            assert!(VerifyingKey::from_slice(&key).is_err(), "vector {number}: weak key loaded");
            weak_refused += 1;
        }
    }
    println!(
        "cctv ed25519: {} ran, {accepted} accepted (measured total {}), {weak_refused} weak keys refused at load, \
         {prepared_ran} also through PreparedKey, {} differ from dalek_verify_strict",
        cases.len(),
        measured["totals"]["dalek_verify_strict"],
        failures.len()
    );
    assert_eq!(Some(accepted as u64), measured["totals"]["dalek_verify_strict"].as_u64());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rfc8037_jwks_and_thumbprint() {
    let v = vector("rfc8037/jwk-okp-ed25519.json");
    let public = KeySet::parse(&serde_json::json!({ "keys": [v["public_jwk"]] }).to_string()).unwrap();
    let key = &public.keys()[0];
    assert_eq!(key.key().as_bytes().as_slice(), unhex(&v["x_hex"]).as_slice(), "A.2 x");
    assert_eq!(key.thumbprint(), v["thumbprint_b64url"].as_str().unwrap(), "A.3 thumbprint");
    assert_eq!(key.kid(), v["thumbprint_b64url"].as_str().unwrap(), "kid defaults to the thumbprint");
    assert_eq!(
        hex(&sha256(v["thumbprint_input"].as_str().unwrap().as_bytes())),
        v["thumbprint_sha256_hex"].as_str().unwrap()
    );
    // A.1 is the private JWK: a key set refuses it, pointing at `d`.
    let private = KeySet::parse(&serde_json::json!({ "keys": [v["private_jwk"]] }).to_string()).unwrap_err();
    assert_eq!((private.code, private.path.as_str()), (ErrorCode::PrivateKeyPresent, "/keys/0/d"));
    // A.1's d is the RFC 8032 TEST 1 seed: it signs for A.2's x.
    let seed: [u8; 32] = unhex(&v["d_hex"]).try_into().unwrap();
    assert_eq!(SigningKey::from_seed(&seed).verifying_key().as_bytes(), key.key().as_bytes());
    println!("rfc8037: 2 JWKs ran (A.2 loaded, A.1 refused for its d) and the A.3 thumbprint matched, 0 failed");
}

#[test]
fn c2sp_signed_note_example() {
    let v = vector("c2sp/signed-note-example.json");
    let verifier = NoteVerifier::parse_vkey(v["vkey"].as_str().unwrap()).unwrap();
    let name = v["key_name"].as_str().unwrap();
    let want_id = u32::from_str_radix(v["key_id_hex"].as_str().unwrap(), 16).unwrap();
    let public = unhex(&v["ed25519_public_key_hex"]);
    assert_eq!(verifier.name(), name);
    assert_eq!(verifier.kind(), SignatureKind::Ed25519);
    assert_eq!(verifier.key().as_bytes().as_slice(), public.as_slice());
    assert_eq!(note::key_id(name, 0x01, &public), want_id, "key ID recomputes");
    assert_eq!(verifier.key_id(), want_id);
    assert_eq!(verifier.to_vkey(), v["vkey"].as_str().unwrap());

    let text = v["signed_note"].as_str().unwrap();
    let parsed = Note::parse(text).unwrap();
    assert_eq!(parsed.text(), v["note_text"].as_str().unwrap());
    assert_eq!(parsed.signatures().len(), 1);
    assert_eq!(parsed.signatures()[0].key_id, want_id);
    assert_eq!(parsed.to_string(), text, "re-serializes byte for byte");
    let verified = parsed.verify(std::slice::from_ref(&verifier)).unwrap();
    assert_eq!((verified.len(), verified[0].timestamp), (1, None));
    // The same signature over other text fails, and the note is refused.
    let altered = text.replacen("example", "exemplary", 1);
    assert!(matches!(Note::parse(&altered).unwrap().verify(&[verifier]), Err(NoteError::SignatureFailed { .. })));

    // The tlog-checkpoint body example: format only (its log key is not published).
    let body = v["checkpoint_format_example_unverifiable"].as_str().unwrap();
    let cp = Checkpoint::parse_body(body).unwrap();
    assert_eq!((cp.origin(), cp.size()), ("example.com/behind-the-sofa", 20_852_163));
    assert_eq!(cp.body(), body);
    assert!(!cp.is_curbi());
    println!("c2sp: vkey, key ID 530d903a, 1 note signature and 1 checkpoint body ran, 0 failed");
}
