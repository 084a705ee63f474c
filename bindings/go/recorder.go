package curbi

// Recorder: the durable Proof of Action recorder held by the library (curbi_recorder), used from any number of
// goroutines. Every method is one JSON call of the recorder (docs/RECORDER.md §Calls); nothing is decided here.

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Recorder records what an agent does, durably, in one SQLite file (docs/RECORDER.md): grants, attestations
// before each mutation, the provider's outcomes, receipts in a Merkle log and its signed heads. Every call returns
// once its work is on disk, and a Recorder opened again on the file restores everything.
//
// A Recorder is safe for concurrent use: calls from many goroutines at once are grouped into one commit. Calls
// block on disk I/O (each blocks its goroutine's OS thread while in the library).
//
// Answers are the recorder's JSON documents as it wrote them, byte for byte (an attest replayed under the same
// idempotency key is the same bytes). A refused call is an *Error with the recorder's stable Code (vectors/
// errors.json: held, outcome_conflict, idempotency_conflict, ...) and the Path of the bad member of the request.
//
// A Recorder holds a database connection and memory outside the Go heap. Call Close when done with it; a
// finalizer closes a Recorder that becomes unreachable without Close, but only as a safety net. Calls that start
// after Close return ErrClosed, and Close waits for calls that are running.
type Recorder struct {
	owned[*cRecorder]
}

// OpenRecorder opens (or creates) a recorder: {"path", "origin", "key_file" | "key_env", "rotate"?, "now"?,
// "attestation_ttl"?, "receipt_ttl"?, "max_clock_ahead"?}. The key file holds a private Ed25519 JWK and must be
// readable by its owner only; "key_env" names an environment variable holding the same text (CURBI_RECORDER_KEY
// when neither is given). "now" (Unix seconds) fixes the clock, for tests. "max_clock_ahead" (seconds, default 7
// days) bounds how far past the log's last time a write may be dated: beyond it the write is an *Error with code
// "clock_ahead" and nothing is signed (docs/RECORDER.md §Time). A key that is not the log's is an *Error with code
// "key_mismatch" at "/key" unless "rotate" makes it the new active key.
func OpenRecorder(config []byte) (*Recorder, error) {
	handle, err := openRecorder(config)
	return own[Recorder](handle, err, freeRecorder, "Recorder")
}

// Call makes one call of the recorder: method is grant, attest, confirm, reconcile, held, checkpoint, bundle,
// receipt, keys, status or set_clock, request its JSON document. The methods below are Call with the method named.
func (r *Recorder) Call(method string, request []byte) (json.RawMessage, error) {
	if r == nil {
		return nil, ErrClosed
	}
	if strings.IndexByte(method, 0) >= 0 {
		// The C ABI takes the name NUL-terminated: this one would reach it cut short, as another name.
		return nil, &Error{Code: "not_found", Message: "a recorder method name has no NUL byte"}
	}
	return call(r, func(handle *cRecorder) ([]byte, error) { return recorderCall(handle, method, request) })
}

// Grant registers a grant ({"id", "agent", "operations", "resources", "limits", "expires_at"}): {"id", "used"}.
// The same grant again answers with its uses; a different grant under the same id is "grant_conflict".
func (r *Recorder) Grant(request []byte) (json.RawMessage, error) { return r.Call("grant", request) }

// Mandate registers a purchase mandate (docs/PURCHASE.md, with an "id"): {"id", "used"}. A checkout attested under
// it ({"tenant", "idempotency_key", "mandate", "agent", "checkout"}) is checked against the recorder's own ledger.
func (r *Recorder) Mandate(request []byte) (json.RawMessage, error) {
	return r.Call("mandate", request)
}

// Attest runs the action check for a mutation before it is made ({"tenant", "idempotency_key", "grant", "action",
// "step_up_confirmed"?}): {"decision", "attestation"?, "check"}. Only ALLOW (or a confirmed STEP_UP) carries an
// attestation. The same idempotency key and request replay the same answer byte for byte.
func (r *Recorder) Attest(request []byte) (json.RawMessage, error) { return r.Call("attest", request) }

// Confirm reports the provider's outcome ({"tenant", "idempotency_key", "outcome": "DONE" | "FAILED" | "UNKNOWN",
// "evidence"?}): {"status", "seq"?, "receipt"?}. DONE and FAILED sign the action's one receipt with the
// provider's answer as evidence; UNKNOWN holds the action for Reconcile.
func (r *Recorder) Confirm(request []byte) (json.RawMessage, error) {
	return r.Call("confirm", request)
}

// Reconcile settles an action from the provider's state read later ("outcome": "DONE", "FAILED" or
// "NOT_PERFORMED", which releases it without a receipt).
func (r *Recorder) Reconcile(request []byte) (json.RawMessage, error) {
	return r.Call("reconcile", request)
}

// Held lists the actions not yet settled ({"limit"?}): {"actions", "more"}, oldest first.
func (r *Recorder) Held(request []byte) (json.RawMessage, error) { return r.Call("held", request) }

// Checkpoint signs the head of the log: {"size", "note"}. A size already signed answers with the head signed for it.
func (r *Recorder) Checkpoint() (json.RawMessage, error) { return r.Call("checkpoint", []byte("{}")) }

// Cosign asks the witnesses the recorder was opened with to cosign the latest head (C2SP tlog-witness):
// {"size", "note", "witnesses"}, the note with every cosignature collected.
func (r *Recorder) Cosign() (json.RawMessage, error) { return r.Call("cosign", []byte("{}")) }

// Publish writes the log as C2SP tlog-tiles ({"dir"?}, the configured "publish" when absent):
// {"size", "previous", "files", "checkpoint"}.
func (r *Recorder) Publish(request []byte) (json.RawMessage, error) {
	return r.Call("publish", request)
}

// Bundle makes a curbi.proof/0.1 bundle ({"receipts" | "actions", "head"?, "known"?, "attestations"?}), which
// VerifyBundle checks offline under the recorder's Keys.
func (r *Recorder) Bundle(request []byte) (json.RawMessage, error) { return r.Call("bundle", request) }

// Receipt is a stored receipt, by {"seq"} or by {"tenant", "idempotency_key"}.
func (r *Recorder) Receipt(request []byte) (json.RawMessage, error) {
	return r.Call("receipt", request)
}

// Receipts are the newest receipts (up to "limit", at most 50) of {"subject"} (a resource) or {"conversation"}, in
// log order: {"receipts": [...]}, ready for a record's "receipts" to check the agent's reply against.
func (r *Recorder) Receipts(request []byte) (json.RawMessage, error) {
	return r.Call("receipts", request)
}

// Keys is the log's keys as a JWKS, each with its validity window: the trust anchor to give verifiers.
func (r *Recorder) Keys() (json.RawMessage, error) { return r.Call("keys", []byte("{}")) }

// Status is the log's origin, kid, size and latest head.
func (r *Recorder) Status() (json.RawMessage, error) { return r.Call("status", []byte("{}")) }

// SetClock moves a fixed clock (a recorder opened with "now") to Unix time now; on the system clock it is an
// *Error with code "unsupported".
func (r *Recorder) SetClock(now int64) error {
	_, err := r.Call("set_clock", []byte(`{"now":`+strconv.FormatInt(now, 10)+`}`))
	return err
}

// Close closes the recorder's database and frees it. It is idempotent and always returns nil; afterwards every
// method returns ErrClosed. It waits for calls that are running on r to finish.
func (r *Recorder) Close() error {
	release(r)
	return nil
}
