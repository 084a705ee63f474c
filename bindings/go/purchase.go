package curbi

import (
	"encoding/json"
	"fmt"
)

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

func decode(doc []byte, err error) (*Decision, error) {
	if err != nil {
		return nil, err
	}
	var d Decision
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, &Error{Code: CodeInternal, Message: fmt.Sprintf("reading the decision: %v", err)}
	}
	d.Document = doc
	return &d, nil
}

// VerifyCheckout decides a purchase: {"mandate", "checkout", "ledger"?, "now"} in (pass the document's own bytes:
// an amount written 100.0 must stay a float so it is refused). Only unreadable JSON is an error.
func VerifyCheckout(request []byte) (*Decision, error) {
	return decode(verifyCheckout(request))
}

// VerifyAction decides an action against a grant: {"grant", "action", "now"} in.
func VerifyAction(request []byte) (*Decision, error) {
	return decode(verifyAction(request))
}
