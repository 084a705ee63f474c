package curbi

// Errors: codes and paths as the CLI and the Check API give them, statuses without documents, stable codes.

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestCompileErrorsMatchTheCheckAPI: CompilePolicy reports the same code as the Check API (which the CLI runs)
// for the same policy, at the same path without the "/policy" prefix. Codes and paths are from
// docs/CHECK_API.md and the schema's limits.
func TestCompileErrorsMatchTheCheckAPI(t *testing.T) {
	tests := []struct{ policy, code, path string }{
		{`{"prices":[{"item":""}]}`, "too_short", "/prices/0/item"},
		{`{"prices":[{"item":"Pro","amount":49,"amounts":[49]}]}`, "conflicting_fields", "/prices/0/amounts"},
		{`{"prices":[{"item":"Pro","amount":0.1234567}]}`, "invalid_value", "/prices/0/amount"},
		{`{"forbid":[{"id":"Not An Id","phrases":["x"]}]}`, "pattern_mismatch", "/forbid/0/id"},
		{`{"unknownAmounts":"sometimes"}`, "invalid_enum", "/unknownAmounts"},
		{`{"bogus":true}`, "unknown_field", "/bogus"},
		{`{"prices":{}}`, "invalid_type", "/prices"},
		{`[]`, "invalid_type", ""},
	}
	for _, tc := range tests {
		p, err := CompilePolicy([]byte(tc.policy))
		if p != nil {
			t.Errorf("%s: got a Policy with error %v", tc.policy, err)
			_ = p.Close()
		}
		requireError(t, err, tc.code, tc.path)

		req := []byte(`{"policy":` + tc.policy + `,"reply":"Pro is $49."}`)
		_, err = Check(req)
		requireError(t, err, tc.code, "/policy"+tc.path)
	}
}

func TestNotJSON(t *testing.T) {
	for _, doc := range []string{"", "   ", "{", `{"prices":[}`, "{}{}", "\xff"} {
		_, err := CompilePolicy([]byte(doc))
		requireError(t, err, "invalid_json", "")
		_, err = Check([]byte(doc))
		requireError(t, err, "invalid_json", "")
	}
	_, err := Check(nil)
	requireError(t, err, "invalid_json", "")
}

func TestInvalidUTF8Reply(t *testing.T) {
	p := mustCompile(t, `{"prices":[{"item":"Pro","amount":49}]}`)
	for _, reply := range []string{"\xff", "Pro is $\xc359.", "Pro is $59 \xed\xa0\x80"} { // lone byte, cut sequence, surrogate
		res, err := p.Check(reply, nil)
		if res != nil {
			t.Errorf("%q: got a result", reply)
		}
		requireError(t, err, "invalid_value", "/reply")
	}
}

func TestBatchThroughCheck(t *testing.T) {
	// 80-cases-batch: a case's id is kept as given, "" included, and absent when not given.
	req := `{"policy":{"prices":[{"item":"Pro","amount":49}]},"cases":[{"id":"a","reply":"Pro is $49."},` +
		`{"reply":"Pro is $59."},{"id":"","reply":"🙂 Pro is $59."}]}`
	resp, err := Check([]byte(req))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Object != "check_batch" || resp.Pass || resp.Findings != nil || len(resp.Results) != 3 {
		t.Fatalf("want a failing batch of 3, got %+v", resp)
	}
	r := resp.Results
	if r[0].ID == nil || *r[0].ID != "a" || !r[0].Pass || r[1].ID != nil || r[2].ID == nil || *r[2].ID != "" {
		t.Errorf("ids or passes wrong: %+v", r)
	}
	// UTF-16 units on the wire: 🙂 (2) + " Pro is " (8) = 10.
	want := Finding{"price:mismatch", [2]int{10, 13}, "$59", "Pro is $49, not $59."}
	if len(r[2].Findings) != 1 || r[2].Findings[0] != want || r[2].Index != 2 {
		t.Errorf("case 2: want %+v, got %+v", want, r[2])
	}
	// Marshalling the Response gives the library's document back.
	back, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jsonCall(checkFn, []byte(req))
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "marshalled batch", back, raw)
}

// TestStatusesWithoutDocuments covers the statuses the library returns without an error document.
func TestStatusesWithoutDocuments(t *testing.T) {
	// A NULL policy handle reaches the C check of every exported function.
	if _, err := policyCheck(nil, "x", nil); !errors.Is(err, ErrNullArgument) {
		t.Errorf("NULL handle: want ErrNullArgument, got %v", err)
	}
	if err := statusError(statusInvalidLength, nil); !errors.Is(err, ErrInvalidLength) {
		t.Errorf("invalid length: got %v", err)
	}
	e := asError(t, statusError(statusPanic, nil))
	if e.Code != CodeInternal || !strings.Contains(e.Message, "panic") {
		t.Errorf("panic: want internal with the library's message, got %+v", e)
	}
	e = asError(t, statusError(status(99), nil))
	if e.Code != CodeInternal || !strings.Contains(e.Message, "status 99") {
		t.Errorf("unknown status: got %+v", e)
	}
	e = asError(t, statusError(statusInvalidInput, nil))
	if e.Code != CodeInternal {
		t.Errorf("invalid input without a document: got %+v", e)
	}
	// The document wins over the status whenever there is one.
	e = asError(t, statusError(statusInvalidUTF8, []byte(`{"error":{"code":"invalid_value","message":"m","path":"/reply"}}`)))
	if *e != (Error{"invalid_value", "m", "/reply"}) {
		t.Errorf("document: got %+v", e)
	}
	for _, bad := range []string{`{}`, `{"error":{"code":""}}`, `{"error":{"code":"x","extra":1}}`, `nope`} {
		if e := asError(t, statusError(statusInvalidInput, []byte(bad))); e.Code != CodeInternal {
			t.Errorf("unreadable document %s: got %+v", bad, e)
		}
	}
}

func TestStatusMessages(t *testing.T) {
	// Descriptions from include/curbi.h; curbi_error_message needs more than one round for none of them, but
	// each must come back whole.
	for st, want := range map[status]string{
		statusNullArgument:  "NULL",
		statusInvalidLength: "PTRDIFF_MAX",
		statusPanic:         "panic",
	} {
		if got := statusMessage(st); !strings.Contains(got, want) {
			t.Errorf("status %d: message %q lacks %q", st, got, want)
		}
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Code: "too_short", Message: "must be at least 1 character(s), got 0", Path: "/prices/0/item"}
	if got := e.Error(); got != "curbi: too_short at /prices/0/item: must be at least 1 character(s), got 0" {
		t.Errorf("got %q", got)
	}
	if got := (&Error{Code: "invalid_json", Message: "m"}).Error(); got != "curbi: invalid_json: m" {
		t.Errorf("got %q", got)
	}
}

// TestCodesAreStable: the codes this package makes itself are in vectors/errors.json, and so are the codes of
// every error vector (requireError checks each code the library returns in the other tests).
func TestCodesAreStable(t *testing.T) {
	known := stableCodes(t)
	if !known[CodeInternal] {
		t.Errorf("%q is not in vectors/errors.json", CodeInternal)
	}
	for _, c := range loadVectors(t) {
		if code, _, ok := expectedError(t, c.Expected); ok && !known[code] {
			t.Errorf("%s expects %q, which vectors/errors.json does not list", c.name(), code)
		}
	}
}
