package curbi

import "encoding/json"

// VerificationItem is one receipt's result in a bundle verification.
type VerificationItem struct {
	OK     bool   `json:"ok"`
	Reason string `json:"reason"`
}

// Verification is the result of VerifyBundle and Verifier.Verify (docs/PROOF.md): OK with reason "verifies", or
// the first reason the bundle fails (bad_signature, not_in_log, fork_detected, ...), per-receipt Items, and the
// whole result Document (head, evidence). A verified bundle shows what a trusted key signed and logged, not that
// the provider action happened, and grants no authority.
type Verification struct {
	OK       bool               `json:"ok"`
	Reason   string             `json:"reason"`
	Items    []VerificationItem `json:"items"`
	Document json.RawMessage    `json:"-"`
}

// VerifyBundle verifies a Proof of Action bundle offline: {"bundle", "keys", "allowTest"?, "mode"?, "now"?,
// "known"?, ...}. The caller's keys are the trust anchor; keys inside the bundle are ignored unless
// "trustBundleKeys". A rejected bundle is a Verification with OK false; only unreadable JSON is an error. Large
// bundles use every core.
func VerifyBundle(request []byte) (*Verification, error) {
	return parseVerification(jsonCall(verifyBundleFn, request))
}

// parseVerification reads a result document of VerifyBundle or Verifier.Verify, keeping it whole in Document.
func parseVerification(doc []byte, err error) (*Verification, error) {
	return decodeDocument[Verification]("reading the verification", doc, err)
}
