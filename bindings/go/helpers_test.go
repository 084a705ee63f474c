package curbi

// Test helpers: the shared vectors, JSON comparison, UTF-16 offsets, and the stable error codes.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
)

const vectorsDir = "../../vectors"

// vectorCase is one case of vectors/check/*.json, its request and expectation kept as raw bytes so numbers
// reach the library exactly as written.
type vectorCase struct {
	File        string
	Index       int
	Description string
	Request     json.RawMessage
	Expected    json.RawMessage
	// Receipts is the receipt keys the policy is compiled with (vectors/README.md); nil for none.
	Receipts json.RawMessage
}

func (c vectorCase) name() string {
	return fmt.Sprintf("%s#%d", strings.TrimSuffix(c.File, ".json"), c.Index)
}

// loadVectors reads every check/*.json file, checking each file's shape first (vectors/README.md).
// readJSON reads the JSON file at path into v, failing the test when it cannot.
func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func loadVectors(t *testing.T) []vectorCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(vectorsDir, "check", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var out []vectorCase
	for _, f := range files {
		var file map[string]json.RawMessage
		readJSON(t, f, &file)
		var desc string
		if err := json.Unmarshal(file["description"], &desc); err != nil || desc == "" {
			t.Fatalf("%s: needs a non-empty description", f)
		}
		var cases []map[string]json.RawMessage
		if err := json.Unmarshal(file["cases"], &cases); err != nil || len(cases) == 0 {
			t.Fatalf("%s: needs a non-empty cases array (%v)", f, err)
		}
		for i, c := range cases {
			_, hasReceipts := c["receipts"]
			if len(c) != 3 && !(len(c) == 4 && hasReceipts) {
				t.Fatalf("%s case %d: needs exactly description, request, expected (and receipts); has %d members", f, i, len(c))
			}
			if hasReceipts && !isObject(c["receipts"]) {
				t.Fatalf("%s case %d: receipts must be an object", f, i)
			}
			var cdesc string
			if err := json.Unmarshal(c["description"], &cdesc); err != nil || cdesc == "" {
				t.Fatalf("%s case %d: needs a non-empty description", f, i)
			}
			for _, k := range []string{"request", "expected"} {
				if !isObject(c[k]) {
					t.Fatalf("%s case %d: %s must be an object", f, i, k)
				}
			}
			out = append(out, vectorCase{filepath.Base(f), i, cdesc, c["request"], c["expected"], c["receipts"]})
		}
	}
	return out
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return len(raw) > 0 && json.Unmarshal(raw, &m) == nil && m != nil
}

// expectedError is an `expected` of the form {"error": {"code", "path"}}; ok is false for a response.
func expectedError(t *testing.T, expected json.RawMessage) (code, path string, ok bool) {
	t.Helper()
	var e struct {
		Error *struct {
			Code string `json:"code"`
			Path string `json:"path"`
		} `json:"error"`
	}
	if err := json.Unmarshal(expected, &e); err != nil {
		t.Fatal(err)
	}
	if e.Error == nil {
		return "", "", false
	}
	return e.Error.Code, e.Error.Path, true
}

// toAny decodes JSON keeping numbers as written (json.Number), so 14 and 14.0 differ.
func toAny(t *testing.T, doc []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, doc)
	}
	return v
}

// sameJSON reports (as a test error) whether two documents differ after decoding.
func sameJSON(t *testing.T, what string, got, want []byte) bool {
	t.Helper()
	if reflect.DeepEqual(toAny(t, got), toAny(t, want)) {
		return true
	}
	t.Errorf("%s differs\n got: %s\nwant: %s", what, got, want)
	return false
}

// byteOffset converts a UTF-16 offset into s to a byte offset, independently of the library: it walks the
// runes, counting each one's UTF-16 length. ok is false past the end or inside a surrogate pair.
func byteOffset(s string, units int) (int, bool) {
	n := 0
	for i, r := range s {
		if n == units {
			return i, true
		}
		n += len(utf16.Encode([]rune{r}))
		if n > units {
			return 0, false
		}
	}
	if n == units {
		return len(s), true
	}
	return 0, false
}

// asError asserts err is an *Error.
func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *curbi.Error, got %T: %v", err, err)
	}
	return e
}

var (
	codesOnce sync.Once
	codes     map[string]bool
)

// stableCodes is the set of codes in vectors/errors.json.
func stableCodes(t *testing.T) map[string]bool {
	t.Helper()
	codesOnce.Do(func() {
		raw, err := os.ReadFile(filepath.Join(vectorsDir, "errors.json"))
		if err != nil {
			panic(err)
		}
		var doc struct {
			Codes []struct {
				Code string `json:"code"`
			} `json:"codes"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			panic(err)
		}
		codes = map[string]bool{}
		for _, c := range doc.Codes {
			codes[c.Code] = true
		}
	})
	if len(codes) == 0 {
		t.Fatal("vectors/errors.json lists no codes")
	}
	return codes
}

// requireError asserts err is an *Error with a stable code, this code and this path.
func requireError(t *testing.T, err error, code, path string) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %s at %q, got none", code, path)
	}
	e := asError(t, err)
	if !stableCodes(t)[e.Code] {
		t.Errorf("code %q is not in vectors/errors.json", e.Code)
	}
	if e.Code != code || e.Path != path {
		t.Errorf("want %s at %q, got %s at %q (%s)", code, path, e.Code, e.Path, e.Message)
	}
	if e.Message == "" {
		t.Errorf("%s at %q has no message", e.Code, e.Path)
	}
	return e
}

// mustCompile compiles a policy the test knows to be valid and closes it when the test ends.
func mustCompile(t testing.TB, policy string) *Policy {
	t.Helper()
	p, err := CompilePolicy([]byte(policy))
	if err != nil {
		t.Fatalf("CompilePolicy(%s): %v", policy, err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}
