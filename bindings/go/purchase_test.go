package curbi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

func reasonSet(rs []Reason) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Code+" "+r.Effect+" "+r.Path)
	}
	sort.Strings(out)
	return out
}

func TestPurchaseVectors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(vectorsDir, "purchase", "reasons.json"))
	if err != nil {
		t.Fatal(err)
	}
	var listed struct {
		Codes []struct{ Code, Effect string } `json:"codes"`
	}
	if err := json.Unmarshal(raw, &listed); err != nil {
		t.Fatal(err)
	}
	effects := map[string]string{}
	for _, c := range listed.Codes {
		effects[c.Code] = c.Effect
	}
	files, _ := filepath.Glob(filepath.Join(vectorsDir, "purchase", "*.json"))
	ran, failed := 0, 0
	for _, f := range files {
		if filepath.Base(f) == "reasons.json" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var group struct {
			Check string `json:"check"`
			Cases []struct {
				Input    json.RawMessage `json:"input"`
				Expected struct {
					Decision string   `json:"decision"`
					Reasons  []Reason `json:"reasons"`
					Summary  *string  `json:"summary"`
				} `json:"expected"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(data, &group); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i, c := range group.Cases {
			ran++
			decide, object := VerifyCheckout, "purchase_check"
			if group.Check == "action" {
				decide, object = VerifyAction, "action_check"
			}
			// The raw input bytes: 100.0 and 1e3 must reach the checker as written.
			d, err := decide(c.Input)
			name := fmt.Sprintf("%s#%d", filepath.Base(f), i)
			ok := err == nil && d.Decision == c.Expected.Decision && d.Object == object && !d.AuthorizationGranted &&
				fmt.Sprint(reasonSet(d.Reasons)) == fmt.Sprint(reasonSet(c.Expected.Reasons)) &&
				(len(d.Reasons) == 0) == (d.Decision == "ALLOW") && (d.StepUp != nil) == (d.Decision == "STEP_UP")
			if ok && c.Expected.Summary != nil {
				ok = d.StepUp != nil && d.StepUp.Summary == *c.Expected.Summary
			}
			for _, r := range d.Reasons {
				ok = ok && effects[r.Code] == r.Effect
			}
			if !ok {
				failed++
				t.Errorf("%s: got %+v, %v; want %+v", name, d, err, c.Expected)
			}
		}
	}
	fmt.Printf("go purchase vectors: %d ran, %d failed\n", ran, failed)
	if ran == 0 {
		t.Fatal("no purchase vectors ran")
	}
}

func TestVerifyCheckoutRefusesUnreadableJSON(t *testing.T) {
	_, err := VerifyCheckout([]byte(`{`))
	requireError(t, err, "invalid_json", "")
}
