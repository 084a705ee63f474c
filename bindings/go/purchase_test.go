package curbi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
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
	var listed struct {
		Codes []struct{ Code, Effect string } `json:"codes"`
	}
	readJSON(t, filepath.Join(vectorsDir, "purchase", "reasons.json"), &listed)
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
		readJSON(t, f, &group)
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

// vectors/checkout_digest/: each digest is first held to SHA-256 over the vector's hand-written RFC 8785 text,
// taken here with crypto/sha256, then CheckoutDigest must give it for the checkout as written.
func TestCheckoutDigestVectors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(vectorsDir, "checkout_digest", "*.json"))
	ran := 0
	for _, f := range files {
		var group struct {
			Cases []struct {
				Description string `json:"description"`
				Checkout    string `json:"checkout"`
				Expected    struct {
					Canonical string `json:"canonical"`
					Digest    string `json:"digest"`
					Error     *struct{ Code, Path string }
				} `json:"expected"`
			} `json:"cases"`
		}
		readJSON(t, f, &group)
		if len(group.Cases) == 0 {
			t.Fatalf("%s: needs cases", f)
		}
		for i, c := range group.Cases {
			ran++
			name := fmt.Sprintf("%s#%d %s", filepath.Base(f), i, c.Description)
			got, err := CheckoutDigest([]byte(c.Checkout))
			if e := c.Expected.Error; e != nil {
				requireError(t, err, e.Code, e.Path)
				continue
			}
			sum := sha256.Sum256([]byte(c.Expected.Canonical))
			if want := base64.RawURLEncoding.EncodeToString(sum[:]); want != c.Expected.Digest {
				t.Errorf("%s: the vector's digest is not SHA-256 of its canonical text (%s)", name, want)
			}
			if err != nil || got != c.Expected.Digest {
				t.Errorf("%s: got %q, %v; want %q", name, got, err, c.Expected.Digest)
			}
		}
	}
	fmt.Printf("go checkout_digest vectors: %d ran\n", ran)
	if ran == 0 {
		t.Fatal("no checkout_digest vectors ran")
	}
}

// The digest a host pins is the one the check computes: the checkout it was taken over ALLOWs, another does not.
func TestCheckoutDigestPinsTheCart(t *testing.T) {
	checkout := `{"id":"cs_1","status":"ready_for_payment","currency":"usd","merchant":{"id":"m_1"},
		"line_items":[{"id":"li_1","item":{"id":"sku_1"},"quantity":1,"unit_amount":4000,
			"totals":[{"type":"subtotal","amount":4000},{"type":"total","amount":4000}]}],
		"totals":[{"type":"subtotal","amount":4000},{"type":"total","amount":4000}]}`
	digest, err := CheckoutDigest([]byte(checkout))
	if err != nil {
		t.Fatal(err)
	}
	request := func(c string) []byte {
		return []byte(`{"mandate":{"currency":"USD","amount_range":{"max":5000},"user_cart_confirmation_required":false,
			"expires_at":"2026-12-31T00:00:00Z","checkout_digest":"` + digest + `"},"checkout":` + c +
			`,"now":"2026-11-20T12:00:00Z"}`)
	}
	if d, err := VerifyCheckout(request(checkout)); err != nil || d.Decision != "ALLOW" {
		t.Fatalf("the pinned cart: %+v, %v", d, err)
	}
	other := strings.Replace(checkout, `"sku_1"`, `"sku_2"`, 1)
	if d, err := VerifyCheckout(request(other)); err != nil || fmt.Sprint(reasonSet(d.Reasons)) != "[mandate_scope_mismatch DENY /mandate/checkout_digest]" {
		t.Fatalf("another cart: %+v, %v", d, err)
	}
}
