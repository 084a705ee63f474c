package curbi

// Verifier: Proof of Action options held by the library (curbi_verifier), used from any number of goroutines.

// Verifier verifies Proof of Action bundles with one set of options (the trust anchor "keys", and "allowTest",
// "mode", "now", "known", "trustBundleKeys", "witnesses"), read once. It is immutable and safe for concurrent use:
// many goroutines may call Verify on one Verifier at once.
//
// A Verifier holds memory outside the Go heap. Call Close when done with it; a finalizer frees a Verifier that
// becomes unreachable without Close, but only as a safety net (build with -tags debug to report those).
//
// Callers must not Close a Verifier while verifications on it are still running. If they do, Close waits for
// them to return, and verifications that start after Close return ErrClosed: misuse is an error, never a crash.
type Verifier struct {
	owned[*cVerifier]
}

// NewVerifier reads the options of VerifyBundle once: its request without "bundle", {"keys", "allowTest"?,
// "mode"?, "now"?, "known"?, "trustBundleKeys"?, "witnesses"?}. Options that cannot be used are an *Error with the
// Code and Path (e.g. "/keys/keys/0/x") that VerifyBundle reports, under reason "malformed", for a whole request
// with these options.
func NewVerifier(options []byte) (*Verifier, error) {
	handle, err := newVerifier(options)
	return own[Verifier](handle, err, freeVerifier, "Verifier")
}

// Verify verifies one bundle document (the "bundle" member of a VerifyBundle request). The result is exactly
// VerifyBundle's for the verifier's options with this bundle, Document byte for byte. A rejected bundle is a
// Verification with OK false (an unreadable one has reason "malformed" and a path under "/bundle"); only text
// that is not JSON is an error (*Error with code "invalid_json"), and ErrClosed after Close. Large bundles use
// every core.
func (v *Verifier) Verify(bundle []byte) (*Verification, error) {
	return parseVerification(call(v, func(handle *cVerifier) ([]byte, error) { return verifierVerify(handle, bundle) }))
}

// Close frees the verifier. It is idempotent and always returns nil; afterwards Verify returns ErrClosed. It
// waits for verifications that are running on v to finish.
func (v *Verifier) Close() error {
	release(v)
	return nil
}
