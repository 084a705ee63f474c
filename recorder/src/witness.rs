//! Witnesses (docs/RECORDER.md §Witnesses): after the log signs a head, the recorder asks each configured witness to
//! cosign it over C2SP `tlog-witness` (`POST <url>/add-checkpoint` with the witness's last size, a consistency proof
//! from it and the checkpoint), checks each `cosignature/v1` line against the witness's verifier key, and stores the
//! cosigned head: the log's signed text and root never change, only signature lines are added.
//!
//! A witness that is down, slow or refusing never blocks receipts or the checkpoint: its error is reported, the head
//! stays without its cosignature, and the next cosigning round (the next checkpoint) asks it again, from the size it
//! last cosigned.

use std::time::Duration;

use curbi::encoding::encode_std;
use curbi::proof::merkle::consistency_proof_in;
use curbi::proof::note::{self, Note, NoteVerifier, SignatureKind};
use curbi::{Error, ErrorCode};
use serde::Serialize;

use crate::recorder::Recorder;
use crate::store::Tx;
use crate::tiles::{cosigned_key, cosigned_note};

/// Longest answer read from a witness.
const MAX_ANSWER: u64 = 64 * 1024;

/// A witness the log asks to cosign: its verifier key (a C2SP `cosignature/v1` vkey, which names it) and the URL
/// prefix its `add-checkpoint` is under. Plain `http://` only: put a TLS-terminating proxy in front of a remote
/// witness (docs/RECORDER.md §Witnesses).
#[derive(Debug, Clone)]
pub struct Witness {
    pub verifier: NoteVerifier,
    pub url: String,
}

impl Witness {
    /// A witness from its verifier key text and URL prefix.
    pub fn new(vkey: &str, url: &str, path: &str) -> Result<Witness, Error> {
        let verifier = NoteVerifier::parse_vkey(vkey)
            .map_err(|e| Error::new(ErrorCode::InvalidKey, format!("{path}/key"), format!("not a witness key: {e}")))?;
        if verifier.kind() != SignatureKind::CosignatureV1 {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                format!("{path}/key"),
                "a witness key is of type cosignature/v1 (0x04)",
            ));
        }
        if !url.starts_with("http://") {
            return Err(Error::new(
                ErrorCode::Unsupported,
                format!("{path}/url"),
                "the recorder speaks plain http:// to witnesses (put a TLS proxy in front of a remote one)",
            ));
        }
        Ok(Witness { verifier, url: url.trim_end_matches('/').to_string() })
    }

    pub fn name(&self) -> &str {
        self.verifier.name()
    }
}

/// What one witness answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WitnessAnswer {
    pub name: String,
    /// `cosigned` (its line is on the head), or `failed`.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The result of a cosigning round: the head with every cosignature collected so far, and each witness's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cosigned {
    pub size: u64,
    pub note: String,
    pub witnesses: Vec<WitnessAnswer>,
}

fn meta_size(tx: &dyn Tx, name: &str) -> Result<u64, Error> {
    Ok(tx.meta(&format!("witness.{name}.size"))?.and_then(|s| s.parse().ok()).unwrap_or(0))
}

/// The `add-checkpoint` body: `old N`, the consistency proof lines, a blank line, the checkpoint.
fn request_body(tx: &dyn Tx, old: u64, size: u64, checkpoint: &str) -> Result<String, Error> {
    let mut body = format!("old {old}\n");
    if old > 0 && old < size {
        for h in consistency_proof_in(tx, old, size)? {
            body.push_str(&encode_std(&h));
            body.push('\n');
        }
    }
    body.push('\n');
    body.push_str(checkpoint);
    Ok(body)
}

impl Recorder {
    /// Asks every witness to cosign the latest signed head and stores what they signed (see the module docs).
    /// Errors only when there is no head or the store fails; each witness's own failure is in its answer.
    pub fn cosign(&self, witnesses: &[Witness], timeout: Duration) -> Result<Cosigned, Error> {
        let mut state = None;
        self.storage().read(&mut |tx| {
            let head = tx.latest_head()?.ok_or_else(|| Error::new(ErrorCode::NoHead, "", "no head signed yet"))?;
            let current = cosigned_note(tx, &head)?;
            let olds = witnesses.iter().map(|w| meta_size(tx, w.name())).collect::<Result<Vec<_>, Error>>()?;
            state = Some((head, current, olds));
            Ok(())
        })?;
        let Some((head, current, olds)) = state else {
            return Err(Error::new(ErrorCode::Internal, "", "the head was not read"));
        };
        let agent =
            ureq::Agent::config_builder().timeout_global(Some(timeout)).http_status_as_error(false).build().new_agent();
        let held = Note::parse(&current).map_err(|e| Error::new(ErrorCode::Corrupt, "", e.to_string()))?;
        let mut lines = Vec::new();
        let mut answers = Vec::with_capacity(witnesses.len());
        let mut sizes = Vec::new();
        for (w, &old) in witnesses.iter().zip(&olds) {
            let already = held.signatures().iter().any(|s| s.name == w.name() && s.key_id == w.verifier.key_id());
            let answer = if already { Ok(Vec::new()) } else { self.ask(&agent, w, old, head.size, &head.note) };
            match answer {
                Ok(signed) => {
                    lines.extend(signed);
                    sizes.push((w.name().to_string(), head.size));
                    answers.push(WitnessAnswer { name: w.name().into(), status: "cosigned".into(), error: None });
                }
                Err(e) => {
                    answers.push(WitnessAnswer { name: w.name().into(), status: "failed".into(), error: Some(e) })
                }
            }
        }
        let mut note_text = current.clone();
        let size = head.size;
        self.storage().write(&mut |tx| {
            // Merge into what is stored now (another round may have added lines meanwhile).
            let stored = cosigned_note(tx, &head)?;
            let mut n = Note::parse(&stored).map_err(|e| Error::new(ErrorCode::Corrupt, "", e.to_string()))?;
            for line in &lines {
                if !n.signatures().iter().any(|s| s.name == line.name && s.key_id == line.key_id) {
                    n.add_signature(line.clone())
                        .map_err(|e| Error::new(ErrorCode::TooManyItems, "", e.to_string()))?;
                }
            }
            note_text = n.to_string();
            if note_text != stored {
                tx.set_meta(&cosigned_key(size), &note_text)?;
            }
            for (name, s) in &sizes {
                tx.set_meta(&format!("witness.{name}.size"), &s.to_string())?;
            }
            Ok(())
        })?;
        Ok(Cosigned { size, note: note_text, witnesses: answers })
    }

    /// One witness: `add-checkpoint` from `old`; on 409 (the witness holds another size) once more from the size it
    /// names. Returns its verified cosignature lines.
    fn ask(
        &self,
        agent: &ureq::Agent,
        w: &Witness,
        mut old: u64,
        size: u64,
        checkpoint: &str,
    ) -> Result<Vec<note::NoteSignature>, String> {
        for attempt in 0..2 {
            let mut body = String::new();
            self.storage()
                .read(&mut |tx| {
                    body = request_body(tx, old, size, checkpoint)?;
                    Ok(())
                })
                .map_err(|e| e.to_string())?;
            let url = format!("{}/add-checkpoint", w.url);
            let mut resp = agent.post(&url).send(body.as_bytes()).map_err(|e| format!("{url}: {e}"))?;
            let status = resp.status().as_u16();
            let text = resp
                .body_mut()
                .with_config()
                .limit(MAX_ANSWER)
                .read_to_string()
                .map_err(|e| format!("{url}: reading the answer: {e}"))?;
            match status {
                200 => return verify_answer(w, checkpoint, &text),
                409 if attempt == 0 => {
                    let theirs: u64 = text
                        .trim_end_matches('\n')
                        .parse()
                        .map_err(|_| format!("409 with a body that is not a size: {text:?}"))?;
                    if theirs > size {
                        return Err(format!(
                            "the witness has cosigned size {theirs}, past this head's {size}: it saw another view of \
                             this log"
                        ));
                    }
                    if theirs == old {
                        return Err(format!("409 at size {old}: the witness holds another root for it"));
                    }
                    old = theirs;
                }
                _ => return Err(format!("{status} from {url}: {}", text.trim_end())),
            }
        }
        Err("the witness answered 409 twice".into())
    }
}

/// The witness's lines, checked against its key over the checkpoint text; lines of other keys are dropped.
fn verify_answer(w: &Witness, checkpoint: &str, answer: &str) -> Result<Vec<note::NoteSignature>, String> {
    let head = Note::parse(checkpoint).map_err(|e| e.to_string())?;
    let joined = format!("{}\n{answer}", head.text());
    let n = Note::parse(&joined).map_err(|e| format!("the answer is not signature lines: {e}"))?;
    n.verify(std::slice::from_ref(&w.verifier)).map_err(|e| format!("the cosignature does not verify: {e}"))?;
    let mine: Vec<_> =
        n.signatures().iter().filter(|s| s.name == w.name() && s.key_id == w.verifier.key_id()).cloned().collect();
    if mine.is_empty() {
        return Err("the answer has no line from this witness's key".into());
    }
    Ok(mine)
}

/// What the recorder does with each head it signs: ask these witnesses to cosign it, then publish the log as tiles
/// into `publish` (docs/RECORDER.md §Publishing the log, §Witnesses).
#[derive(Debug, Clone)]
pub struct Sharing {
    pub witnesses: Vec<Witness>,
    /// How long one witness request may take.
    pub timeout: Duration,
    pub publish: Option<std::path::PathBuf>,
}

/// A signed head, with what the witnesses answered and what was published when the recorder shares its heads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SharedHead {
    pub size: u64,
    /// The head with every cosignature collected for it.
    pub note: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witnesses: Option<Vec<WitnessAnswer>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<crate::tiles::Published>,
}

impl Recorder {
    /// Signs the head ([`Recorder::checkpoint`]), then, as [`Sharing`] says, has it cosigned and publishes the log.
    /// A witness's failure is in its answer and never fails the call; a failed publish is an error after the head
    /// is signed and stored (calling again signs nothing new and publishes again).
    pub fn checkpoint_shared(&self, sharing: &Sharing) -> Result<SharedHead, Error> {
        let head = self.checkpoint()?;
        let mut shared = SharedHead { size: head.size, note: head.note, witnesses: None, published: None };
        if !sharing.witnesses.is_empty() {
            let c = self.cosign(&sharing.witnesses, sharing.timeout)?;
            if c.size == shared.size {
                shared.note = c.note;
            }
            shared.witnesses = Some(c.witnesses);
        }
        if let Some(dir) = &sharing.publish {
            shared.published = Some(self.publish(dir)?);
        }
        Ok(shared)
    }
}
