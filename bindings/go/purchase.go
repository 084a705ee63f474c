package curbi

import "encoding/json"

// Reason is one rule's finding in a purchase or action decision: a stable Code (vectors/purchase/reasons.json),
// its Effect ("DENY" or "STEP_UP"), the JSON pointer Path of the value it is about, and expected vs actual.
type Reason struct {
	Code     string `json:"code"`
	Effect   string `json:"effect"`
	Path     string `json:"path"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	Message  string `json:"message"`
}

// StepUp is what the host shows the user before it may continue.
type StepUp struct {
	Kind    string `json:"kind"`
	Summary string `json:"summary"`
}

// Decision is ALLOW, DENY or STEP_UP with every reason (docs/PURCHASE.md). DENY beats STEP_UP beats ALLOW, and
// nothing malformed ever ALLOWs. A decision grants no authority by itself: the host enforces it.
type Decision struct {
	Object               string   `json:"object"`
	Decision             string   `json:"decision"`
	Reasons              []Reason `json:"reasons"`
	StepUp               *StepUp  `json:"stepUp,omitempty"`
	AuthorizationGranted bool     `json:"authorizationGranted"`
	// Document is the result exactly as the core wrote it (the bytes every binding gives), to log or forward.
	Document json.RawMessage `json:"-"`
}

// decision reads a decision document, keeping it whole in Document.
func decision(doc []byte, err error) (*Decision, error) {
	return decodeDocument[Decision]("reading the decision", doc, err)
}

// VerifyCheckout decides a purchase: {"mandate", "checkout", "ledger"?, "now"} in (pass the document's own bytes:
// an amount written 100.0 must stay a float so it is refused). Only unreadable JSON is an error.
func VerifyCheckout(request []byte) (*Decision, error) {
	return decision(jsonCall(verifyCheckoutFn, request))
}

// VerifyAction decides an action against a grant: {"grant", "action", "now"} in.
func VerifyAction(request []byte) (*Decision, error) {
	return decision(jsonCall(verifyActionFn, request))
}

// CheckoutDigest is the checkout_digest a mandate pins for checkout, so that only that cart verifies
// (docs/PURCHASE.md §Binding): unpadded base64url of SHA-256 over its RFC 8785 form without ap2, computed by the
// core exactly as the check computes it. Pass the checkout's own bytes. A checkout the strict reader refuses (a
// repeated member), one that is not an object, or one with a number beyond the doubles is an *Error with its path.
func CheckoutDigest(checkout []byte) (string, error) {
	doc, err := jsonCall(checkoutDigestFn, checkout)
	digest, err := decode[string]("reading the digest", doc, err)
	if err != nil {
		return "", err
	}
	return *digest, nil
}
