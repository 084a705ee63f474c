package curbi

// The Go half of the differential test (scripts/differential.sh, docs/DOCUMENTS.md): every call the core wrote
// to $CURBI_DIFFERENTIAL_DIR/calls.jsonl, made through the public Go API, its document written to go.txt, one
// line a call, for scripts/differential.py to hold byte for byte to the core's. Skipped when the variable is unset.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

type differentialCall struct {
	ID, Entry, Input, Policy, Reply, Bundle string
	Options, Record, Version, Verify        *string
	// Receipts is the receipt keys the policy is compiled with (JSON text), when the vector has them.
	Receipts *string
}

func (c differentialCall) receipts() []byte {
	if c.Receipts == nil {
		return nil
	}
	return []byte(*c.Receipts)
}

// errorLine writes an error as every binding does: {"error":{"code","message","path"}}.
func errorLine(t *testing.T, err error) []byte {
	e := asError(t, err)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	doc := struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Path    string `json:"path"`
		} `json:"error"`
	}{}
	doc.Error.Code, doc.Error.Message, doc.Error.Path = e.Code, e.Message, e.Path
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// documentOf is the Document member of a result (every result type has one), or the error that made none.
func documentOf[T any](r *T, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return reflect.ValueOf(r).Elem().FieldByName("Document").Bytes(), nil
}

func differentialOut(t *testing.T, c differentialCall) ([]byte, error) {
	in := []byte(c.Input)
	switch c.Entry {
	case "check":
		return documentOf(CheckWithReceipts(in, c.receipts()))
	case "policy_check":
		p, err := CompilePolicyWithReceipts([]byte(c.Policy), c.receipts())
		if err != nil {
			return nil, err
		}
		defer p.Close()
		// The record as JSON text, as written (json.RawMessage reaches the core unparsed), and the version apart.
		opts := &CheckOptions{}
		if c.Record != nil {
			opts.Record = json.RawMessage(*c.Record)
		}
		if c.Version != nil {
			opts.Version = *c.Version
		}
		if c.Verify != nil {
			opts.Verify = *c.Verify
		}
		return documentOf(p.Check(c.Reply, opts))
	case "validate_policy":
		return documentOf(ValidatePolicy(in))
	case "export_regression":
		return documentOf(ExportRegression(in))
	case "replay_regression":
		return documentOf(ReplayRegression(in))
	case "verify_checkout", "verify_action":
		f := VerifyCheckout
		if c.Entry == "verify_action" {
			f = VerifyAction
		}
		return documentOf(f(in))
	case "checkout_digest":
		d, err := CheckoutDigest(in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(d)
	case "verify_bundle":
		return documentOf(VerifyBundle(in))
	case "verifier":
		v, err := NewVerifier([]byte(*c.Options))
		if err != nil {
			return nil, err
		}
		defer v.Close()
		return documentOf(v.Verify([]byte(c.Bundle)))
	}
	t.Fatalf("%s: unknown entry %q", c.ID, c.Entry)
	return nil, nil
}

func TestDifferential(t *testing.T) {
	dir := os.Getenv("CURBI_DIFFERENTIAL_DIR")
	if dir == "" {
		t.Skip("CURBI_DIFFERENTIAL_DIR is unset: scripts/differential.sh runs this")
	}
	in, err := os.Open(filepath.Join(dir, "calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out bytes.Buffer
	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for lines.Scan() {
		var c differentialCall
		if err := json.Unmarshal(lines.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		doc, err := differentialOut(t, c)
		if err != nil {
			doc = errorLine(t, err)
		}
		out.Write(doc)
		out.WriteByte('\n')
		n++
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no calls")
	}
	if err := os.WriteFile(filepath.Join(dir, "go.txt"), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("go differential: %d calls", n)
}
