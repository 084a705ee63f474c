package curbi

import (
	"errors"
	"path/filepath"
	"testing"
)

// vectors/yaml/conversions.json: the exact JSON text, or the error's code and path.
func TestYAMLVectors(t *testing.T) {
	var doc struct {
		Cases []struct {
			Description string `json:"description"`
			YAML        string `json:"yaml"`
			JSON        *string
			Error       *struct{ Code, Path string }
		} `json:"cases"`
	}
	readJSON(t, filepath.Join(vectorsDir, "yaml", "conversions.json"), &doc)
	if len(doc.Cases) < 10 {
		t.Fatalf("%d cases", len(doc.Cases))
	}
	for _, c := range doc.Cases {
		got, err := YAMLToJSON([]byte(c.YAML))
		switch {
		case c.JSON != nil:
			if err != nil || string(got) != *c.JSON {
				t.Errorf("%s: got %s, %v", c.Description, got, err)
			}
		default:
			var e *Error
			if !errors.As(err, &e) || e.Code != c.Error.Code || e.Path != c.Error.Path {
				t.Errorf("%s: got %v, want %s at %q", c.Description, err, c.Error.Code, c.Error.Path)
			}
		}
	}
	// The text compiles as a policy.
	text, err := YAMLToJSON([]byte("prices:\n  - item: Pro\n    amount: 49\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := CompilePolicy(text)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
}
