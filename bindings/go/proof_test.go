package curbi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
)

// proofCase is one case of vectors/proof/: its file, its request as written and what it must give.
type proofCase struct {
	File     string
	Input    json.RawMessage `json:"input"`
	Expected struct {
		OK     bool     `json:"ok"`
		Reason string   `json:"reason"`
		Items  []string `json:"items"`
	} `json:"expected"`
}

// loadProofCases reads every case that vectors/proof/cases.json lists.
func loadProofCases(t *testing.T) []proofCase {
	t.Helper()
	dir := filepath.Join(vectorsDir, "proof")
	var index struct {
		Cases []struct {
			File string `json:"file"`
		} `json:"cases"`
	}
	readJSON(t, filepath.Join(dir, "cases.json"), &index)
	cases := make([]proofCase, 0, len(index.Cases))
	for _, c := range index.Cases {
		pc := proofCase{File: c.File}
		readJSON(t, filepath.Join(dir, c.File), &pc)
		cases = append(cases, pc)
	}
	if len(cases) == 0 {
		t.Fatal("no proof vectors")
	}
	return cases
}

// splitRequest splits a VerifyBundle request into the options (the request without "bundle") and the bundle;
// ok is false when the request is not an object with a bundle.
func splitRequest(t *testing.T, request json.RawMessage) (options, bundle []byte, ok bool) {
	t.Helper()
	var members map[string]json.RawMessage
	if json.Unmarshal(request, &members) != nil || members["bundle"] == nil {
		return nil, nil, false
	}
	bundle = members["bundle"]
	delete(members, "bundle")
	options, err := json.Marshal(members)
	if err != nil {
		t.Fatal(err)
	}
	return options, bundle, true
}

// validProof is valid-four-domains' request, split: options and a bundle that verifies with them.
func validProof(t *testing.T) (options, bundle []byte) {
	t.Helper()
	for _, c := range loadProofCases(t) {
		if c.File == "valid-four-domains.json" {
			if options, bundle, ok := splitRequest(t, c.Input); ok {
				return options, bundle
			}
		}
	}
	t.Fatal("no valid-four-domains.json with a bundle in vectors/proof")
	return nil, nil
}

// mustVerifier makes a Verifier from options the test knows to be valid and closes it when the test ends.
func mustVerifier(t testing.TB, options []byte) *Verifier {
	t.Helper()
	v, err := NewVerifier(options)
	if err != nil {
		t.Fatalf("NewVerifier(%s): %v", options, err)
	}
	t.Cleanup(func() { _ = v.Close() })
	return v
}

func TestProofVectors(t *testing.T) {
	ran, failed := 0, 0
	for _, c := range loadProofCases(t) {
		ran++
		v, err := VerifyBundle(c.Input)
		ok := err == nil && v.OK == c.Expected.OK && v.Reason == c.Expected.Reason
		if ok && c.Expected.Items != nil {
			got := []string{}
			for _, it := range v.Items {
				got = append(got, it.Reason)
			}
			ok = reflect.DeepEqual(got, c.Expected.Items)
		}
		if !ok {
			failed++
			t.Errorf("%s: got %+v, %v; want %+v", c.File, v, err, c.Expected)
		}
	}
	fmt.Printf("go proof vectors: %d ran, %d failed\n", ran, failed)
	_, err := VerifyBundle([]byte(`{`))
	requireError(t, err, "invalid_json", "")
}

// TestProofVectorsThroughAVerifier splits every request into options and bundle: a Verifier made from the options
// gives VerifyBundle's document byte for byte, and options it refuses are those the whole request reports as
// "malformed", with the same code and path.
func TestProofVectorsThroughAVerifier(t *testing.T) {
	built, refused := 0, 0
	for _, c := range loadProofCases(t) {
		options, bundle, ok := splitRequest(t, c.Input)
		if !ok {
			continue
		}
		whole, err := VerifyBundle(c.Input)
		if err != nil {
			t.Fatalf("%s: %v", c.File, err)
		}
		v, err := NewVerifier(options)
		if err != nil {
			refused++
			e := asError(t, err)
			var doc struct {
				Reason string `json:"reason"`
				Error  *Error `json:"error"`
			}
			if json.Unmarshal(whole.Document, &doc) != nil || doc.Reason != "malformed" || doc.Error == nil ||
				doc.Error.Code != e.Code || doc.Error.Path != e.Path {
				t.Errorf("%s: the verifier refused its options with %v; the whole request gave %s", c.File, err, whole.Document)
			}
			continue
		}
		built++
		got, err := v.Verify(bundle)
		if err != nil || !bytes.Equal(got.Document, whole.Document) || !reflect.DeepEqual(got, whole) {
			t.Errorf("%s: the verifier gave %+v, %v\nthe whole request %s", c.File, got, err, whole.Document)
		}
		_ = v.Close()
	}
	fmt.Printf("go proof vectors through a Verifier: %d built, %d refused their options\n", built, refused)
	if built == 0 || refused == 0 {
		t.Errorf("the vectors should both build verifiers (%d) and be refused (%d)", built, refused)
	}
}

func TestVerifierRefusesOptions(t *testing.T) {
	tests := []struct{ options, code, path string }{
		{``, "invalid_json", ""},
		{"\xff", "invalid_json", ""},
		{`[]`, "invalid_type", ""},
		{`{}`, "missing_field", "/keys"},
		{`{"keys":{"keys":[]},"bundle":{}}`, "unknown_field", "/bundle"},
		{`{"keys":{"keys":[]},"keys":{"keys":[]}}`, "duplicate_member", "/keys"},
	}
	for _, tc := range tests {
		v, err := NewVerifier([]byte(tc.options))
		if v != nil {
			t.Errorf("%q: want no Verifier, got one", tc.options)
		}
		requireError(t, err, tc.code, tc.path)
	}
}

func TestVerifierVerify(t *testing.T) {
	options, bundle := validProof(t)
	v := mustVerifier(t, options)
	got, err := v.Verify(bundle)
	if err != nil || !got.OK || got.Reason != "verifies" || len(got.Items) != 4 {
		t.Errorf("valid-four-domains: got %+v, %v", got, err)
	}
	// Only text that is not JSON is an error; an unreadable bundle is a result under /bundle.
	for _, b := range []string{``, `{`, "\xff"} {
		got, err := v.Verify([]byte(b))
		if got != nil {
			t.Errorf("%q: want no Verification, got %+v", b, got)
		}
		requireError(t, err, "invalid_json", "")
	}
	got, err = v.Verify([]byte(`{"object":"curbi.proof/0.1","x":1}`))
	var doc struct {
		Error *Error `json:"error"`
	}
	if err != nil || got.OK || got.Reason != "malformed" || json.Unmarshal(got.Document, &doc) != nil ||
		doc.Error == nil || doc.Error.Code != "unknown_field" || doc.Error.Path != "/bundle/x" {
		t.Errorf("an unknown bundle member: got %+v, %v", got, err)
	}
}
