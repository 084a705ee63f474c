package curbi

// vectors/documents/: every document kind as raw text through the core's one strict reader (a repeated member
// cannot survive a JSON parser, so each input is text). The outcome must hold the expectation: an error's code
// and path, or the members the expectation names.

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// documentOutcome runs one entry point on text: its answer as a decoded document, or {"error": {code, path}}.
func documentOutcome(t *testing.T, entry string, text []byte) any {
	t.Helper()
	var got any
	var err error
	// marshal is a result as encoding/json writes it, decoded, or the error that made none.
	marshal := func(v any, err error) (any, error) {
		if err != nil {
			return nil, err
		}
		raw, e := json.Marshal(v)
		if e != nil {
			t.Fatal(e)
		}
		return toAny(t, raw), nil
	}
	switch entry {
	case "check":
		got, err = marshal(Check(text))
	case "compile_policy":
		var p *Policy
		if p, err = CompilePolicy(text); err == nil {
			got = map[string]any{"ok": true}
			p.Close()
		}
	case "record":
		p := mustCompile(t, `{}`)
		defer p.Close()
		if _, err = p.Check("Hi", &CheckOptions{Record: json.RawMessage(text)}); err == nil {
			got = map[string]any{"ok": true}
		}
	case "validate_policy":
		got, err = marshal(ValidatePolicy(text))
	case "export_regression":
		got, err = marshal(ExportRegression(text))
	case "replay_regression":
		got, err = marshal(ReplayRegression(text))
	case "verify_checkout", "verify_action":
		f := VerifyCheckout
		if entry == "verify_action" {
			f = VerifyAction
		}
		got, err = marshal(f(text))
	case "checkout_digest":
		var d string
		if d, err = CheckoutDigest(text); err == nil {
			got = map[string]any{"digest": d}
		}
	case "verify_bundle":
		var v *Verification
		if v, err = VerifyBundle(text); err == nil {
			got = toAny(t, v.Document)
		}
	case "verifier_options":
		var v *Verifier
		if v, err = NewVerifier(text); err == nil {
			got = map[string]any{"ok": true}
			v.Close()
		}
	default:
		t.Fatalf("unknown entry %q", entry)
	}
	if err != nil {
		e := asError(t, err)
		return map[string]any{"error": map[string]any{"code": e.Code, "path": e.Path, "message": e.Message}}
	}
	return got
}

// contains reports whether got holds want: every member want names, recursively; arrays of equal length.
func contains(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if x, ok := g[k]; !ok || !contains(x, v) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !contains(g[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(got, want)
	}
}

func TestDocumentsVectors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(vectorsDir, "documents", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	ran := 0
	for _, f := range files {
		var group struct {
			Description string
			Cases       []struct {
				Description string
				Entry       string
				Text        string
				Expected    json.RawMessage
			}
		}
		readJSON(t, f, &group)
		if group.Description == "" || len(group.Cases) == 0 {
			t.Fatalf("%s: needs a description and cases", f)
		}
		for i, c := range group.Cases {
			got := documentOutcome(t, c.Entry, []byte(c.Text))
			if want := toAny(t, c.Expected); !contains(got, want) {
				t.Errorf("%s#%d %s: got %v, want %v", filepath.Base(f), i, c.Description, got, want)
			}
			ran++
		}
	}
	t.Logf("Go documents vectors: %d ran", ran)
	if ran == 0 {
		t.Fatal("no documents vectors ran")
	}
}
