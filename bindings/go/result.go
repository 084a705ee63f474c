package curbi

// Result types: the Check API response documents (docs/CHECK_API.md) as Go structs.

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Finding is one broken rule in a reply.
//
// Span is [start, end). Its unit depends on where the finding came from: from Policy.Check it is byte offsets
// into the Go string that was checked, so reply[f.Span[0]:f.Span[1]] == f.Text; from the one-shot Check it is
// UTF-16 code units, exactly as on the wire (POST /v1/check).
type Finding struct {
	Rule string `json:"rule"`
	Span [2]int `json:"span"`
	Text string `json:"text"`
	Why  string `json:"why"`
}

// Proof states what a check does and does not prove. Its values are constant in this version.
type Proof struct {
	Scope                string `json:"scope"`
	FactsAuthenticated   bool   `json:"factsAuthenticated"`
	ReplayProtection     string `json:"replayProtection"`
	AuthorizationGranted bool   `json:"authorizationGranted"`
}

// Result is the outcome of Policy.Check: the Check API's one-reply response with spans in bytes of the reply.
type Result struct {
	Object      string    `json:"object"` // always "check"
	Version     string    `json:"version"`
	RecordTrust string    `json:"recordTrust"`
	Pass        bool      `json:"pass"`
	Findings    []Finding `json:"findings"`
	Proof       Proof     `json:"proof"`
	// Document is the result exactly as the core wrote it (the bytes every binding gives), to log or forward.
	Document json.RawMessage `json:"-"`
}

// CaseResult is one case of a batch response, in request order.
type CaseResult struct {
	Index int `json:"index"`
	// ID is the case's id, nil when the case had none (an empty id is kept as "").
	ID       *string   `json:"id,omitempty"`
	Pass     bool      `json:"pass"`
	Findings []Finding `json:"findings"`
}

// Response is a Check API response: Object "check" (one reply; Findings set, Results nil) or "check_batch"
// (cases; Results set, Findings nil). Spans are UTF-16 code units of the reply, as on the wire.
// json.Marshal of a Response gives the wire document back.
type Response struct {
	Object      string
	Version     string
	RecordTrust string
	Pass        bool
	Findings    []Finding
	Results     []CaseResult
	Proof       Proof
	// Document is the result exactly as the core wrote it (the bytes every binding gives), to log or forward.
	Document json.RawMessage
}

// wireOne and wireBatch are the two response shapes as they are on the wire.
type wireOne struct {
	Object      string    `json:"object"`
	Version     string    `json:"version"`
	RecordTrust string    `json:"recordTrust"`
	Pass        bool      `json:"pass"`
	Findings    []Finding `json:"findings"`
	Proof       Proof     `json:"proof"`
}

type wireBatch struct {
	Object      string       `json:"object"`
	Version     string       `json:"version"`
	RecordTrust string       `json:"recordTrust"`
	Pass        bool         `json:"pass"`
	Results     []CaseResult `json:"results"`
	Proof       Proof        `json:"proof"`
}

// MarshalJSON writes the wire document: "findings" for a check, "results" for a batch, never both.
func (r Response) MarshalJSON() ([]byte, error) {
	if r.Object == "check_batch" {
		return json.Marshal(wireBatch{r.Object, r.Version, r.RecordTrust, r.Pass, nonNil(r.Results), r.Proof})
	}
	return json.Marshal(wireOne{r.Object, r.Version, r.RecordTrust, r.Pass, nonNil(r.Findings), r.Proof})
}

// UnmarshalJSON reads either wire shape strictly (unknown members are an error).
func (r *Response) UnmarshalJSON(doc []byte) error {
	var head struct {
		Object string `json:"object"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		return err
	}
	switch head.Object {
	case "check":
		w, err := decodeWire(doc, "check response without findings", func(w *wireOne) bool { return w.Findings != nil })
		if err != nil {
			return err
		}
		*r = Response{w.Object, w.Version, w.RecordTrust, w.Pass, w.Findings, nil, w.Proof, nil}
	case "check_batch":
		w, err := decodeWire(doc, "check_batch response without results", func(w *wireBatch) bool { return w.Results != nil })
		if err != nil {
			return err
		}
		for i := range w.Results {
			if w.Results[i].Findings == nil {
				return fmt.Errorf("results[%d] without findings", i)
			}
		}
		*r = Response{w.Object, w.Version, w.RecordTrust, w.Pass, nil, w.Results, w.Proof, nil}
	default:
		return fmt.Errorf("unknown response object %q", head.Object)
	}
	return nil
}

// decodeWire reads one wire shape strictly; complete reports whether it has its list (findings, results), and
// missing is the error when it has not.
func decodeWire[T any](doc []byte, missing string, complete func(*T) bool) (*T, error) {
	w := new(T)
	if err := decodeStrict(doc, w); err != nil {
		return nil, err
	}
	if !complete(w) {
		return nil, errors.New(missing)
	}
	return w, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// parseResult reads curbi_policy_check's document and checks the promise Policy.Check makes: every span lies
// inside reply, on character boundaries, and slices exactly the finding's text.
func parseResult(doc []byte, reply string) (*Result, error) {
	var r Result
	if err := decodeStrict(doc, &r); err != nil {
		return nil, &Error{Code: CodeInternal, Message: fmt.Sprintf("unreadable check result: %v", err)}
	}
	if r.Object != "check" || r.Findings == nil {
		return nil, &Error{Code: CodeInternal, Message: fmt.Sprintf("unexpected check result object %q", r.Object)}
	}
	for i, f := range r.Findings {
		s, e := f.Span[0], f.Span[1]
		if s < 0 || s > e || e > len(reply) || reply[s:e] != f.Text {
			return nil, &Error{Code: CodeInternal, Message: fmt.Sprintf(
				"finding %d: span [%d,%d) does not slice its text %q from a %d-byte reply", i, s, e, f.Text, len(reply))}
		}
	}
	r.Document = doc
	return &r, nil
}

// parseResponse reads curbi_check's document.
func parseResponse(doc []byte, err error) (*Response, error) {
	return decodeDocument[Response]("unreadable check response", doc, err)
}

// decode reads a document the library wrote (or passes on the error of the call that wrote none) into a new T;
// what says what was being read when the document is not a T.
func decode[T any](what string, doc []byte, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(doc, v); err != nil {
		return nil, &Error{Code: CodeInternal, Message: fmt.Sprintf("%s: %v", what, err)}
	}
	return v, nil
}

// kept is a result type that keeps the document it was read from, byte for byte, in its Document member.
type kept[T any] interface {
	*T
	keep(doc []byte)
}

// The result types that keep their document.
func (r *Response) keep(doc []byte)     { r.Document = doc }
func (r *LintReport) keep(doc []byte)   { r.Document = doc }
func (e *Export) keep(doc []byte)       { e.Document = doc }
func (d *Decision) keep(doc []byte)     { d.Document = doc }
func (v *Verification) keep(doc []byte) { v.Document = doc }

// decodeDocument is decode for a result type that keeps its document.
func decodeDocument[T any, K kept[T]](what string, doc []byte, err error) (K, error) {
	v, err := decode[T](what, doc, err)
	if err != nil {
		return nil, err
	}
	K(v).keep(doc)
	return v, nil
}
