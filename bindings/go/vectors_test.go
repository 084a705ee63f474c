package curbi

// The shared vectors (vectors/check/*.json), run twice: through the one-shot Check API (whole documents, UTF-16
// spans) and, for every single-reply case, through CompilePolicy + Policy.Check (byte spans).

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestVectorsCheckAPI runs every case through Check and compares the whole response document, or the error's
// code and path.
func TestVectorsCheckAPI(t *testing.T) {
	cases := loadVectors(t)
	ran, failed := 0, 0
	for _, c := range cases {
		ran++
		if !t.Run(c.name(), func(t *testing.T) { runCheckAPIVector(t, c) }) {
			failed++
		}
	}
	fmt.Printf("go vectors: %d ran, %d failed\n", ran, failed)
	if ran == 0 {
		t.Fatal("no vectors ran")
	}
}

func runCheckAPIVector(t *testing.T, c vectorCase) {
	// The document exactly as the library wrote it.
	raw, rawErr := checkRequestWithReceipts(c.Request, c.Receipts)
	// The public API: the same document parsed into Go structs.
	resp, err := CheckWithReceipts(c.Request, c.Receipts)
	if c.Receipts == nil { // without receipt keys, Check is the same call
		resp, err = Check(c.Request)
	}
	if code, path, isErr := expectedError(t, c.Expected); isErr {
		if resp != nil || raw != nil {
			t.Fatalf("%s\nwant error %s at %s, got a response", c.Description, code, path)
		}
		requireError(t, err, code, path)
		requireError(t, rawErr, code, path)
		return
	}
	if err != nil || rawErr != nil {
		t.Fatalf("%s\nunexpected error: %v / %v", c.Description, err, rawErr)
	}
	sameJSON(t, "library document", raw, c.Expected)
	typed, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "Response marshalled back", typed, c.Expected)
}

// policyAPIMembers are the request members Policy.Check can express: the policy, the reply and the options.
var policyAPIMembers = map[string]bool{"policy": true, "reply": true, "record": true, "version": true, "verify": true}

// TestVectorsPolicyAPI runs every single-reply case through CompilePolicy and Policy.Check. Expected spans
// (UTF-16) are converted to byte offsets here, by walking the reply, and compared with the library's; every
// span must slice its text out of the Go string.
func TestVectorsPolicyAPI(t *testing.T) {
	cases := loadVectors(t)
	ran, failed, skipped := 0, 0, 0
	for _, c := range cases {
		var req map[string]json.RawMessage
		if err := json.Unmarshal(c.Request, &req); err != nil {
			t.Fatal(err)
		}
		if !fitsPolicyAPI(req) {
			skipped++
			continue
		}
		ran++
		if !t.Run(c.name(), func(t *testing.T) { runPolicyAPIVector(t, c, req) }) {
			failed++
		}
	}
	fmt.Printf("go vectors (CompilePolicy + Policy.Check, byte spans): %d ran, %d failed, %d skipped (batches or members with no Policy API equivalent)\n",
		ran, failed, skipped)
	if ran == 0 {
		t.Fatal("no vectors ran")
	}
}

// fitsPolicyAPI: one reply (a string), a policy, and nothing but record and a string version besides.
func fitsPolicyAPI(req map[string]json.RawMessage) bool {
	for k := range req {
		if !policyAPIMembers[k] {
			return false
		}
	}
	var s string
	if _, ok := req["policy"]; !ok || json.Unmarshal(req["reply"], &s) != nil {
		return false
	}
	for _, k := range []string{"version", "verify"} {
		if v, ok := req[k]; ok && json.Unmarshal(v, &s) != nil {
			return false
		}
	}
	return true
}

func runPolicyAPIVector(t *testing.T, c vectorCase, req map[string]json.RawMessage) {
	var reply string
	if err := json.Unmarshal(req["reply"], &reply); err != nil {
		t.Fatal(err)
	}
	opts := &CheckOptions{}
	if rec, ok := req["record"]; ok {
		opts.Record = rec
	}
	if v, ok := req["version"]; ok {
		if err := json.Unmarshal(v, &opts.Version); err != nil {
			t.Fatal(err)
		}
	}
	if v, ok := req["verify"]; ok {
		if err := json.Unmarshal(v, &opts.Verify); err != nil {
			t.Fatal(err)
		}
	}
	code, path, wantErr := expectedError(t, c.Expected)

	p, err := CompilePolicyWithReceipts(req["policy"], c.Receipts)
	if err != nil {
		// CompilePolicy's paths are relative to the policy; the Check API's to the request.
		if !wantErr || !strings.HasPrefix(path, "/policy") {
			t.Fatalf("%s\nCompilePolicy: unexpected %v", c.Description, err)
		}
		requireError(t, err, code, strings.TrimPrefix(path, "/policy"))
		return
	}
	defer p.Close()
	res, err := p.Check(reply, opts)
	if wantErr {
		requireError(t, err, code, path)
		return
	}
	if err != nil {
		t.Fatalf("%s\nCheck: unexpected %v", c.Description, err)
	}

	// The expected document with its spans converted to bytes of reply.
	var want map[string]any
	if err := json.Unmarshal(c.Expected, &want); err != nil {
		t.Fatal(err)
	}
	findings, _ := want["findings"].([]any)
	for i, f := range findings {
		m := f.(map[string]any)
		span := m["span"].([]any)
		var bs [2]int
		for j := range span {
			b, ok := byteOffset(reply, int(span[j].(float64)))
			if !ok {
				t.Fatalf("expected finding %d: UTF-16 offset %v is not on a character boundary", i, span[j])
			}
			bs[j] = b
		}
		if got := reply[bs[0]:bs[1]]; got != m["text"] {
			t.Errorf("expected finding %d: converted span %v slices %q, not its text %q", i, bs, got, m["text"])
		}
		m["span"] = []int{bs[0], bs[1]}
	}
	wantDoc, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	gotDoc, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "Policy.Check result (byte spans)", gotDoc, wantDoc)
	for _, f := range res.Findings {
		if got := reply[f.Span[0]:f.Span[1]]; got != f.Text {
			t.Errorf("reply[%d:%d] = %q, finding text %q", f.Span[0], f.Span[1], got, f.Text)
		}
	}
}
