package curbi

// What every handle (Policy, Verifier) promises about Close.

import (
	"errors"
	"testing"
)

// TestCloseIsIdempotentAndUseAfterCloseIsAnError: a call works until Close; Close returns nil however often it
// runs; calls after it are ErrClosed with no result. A nil handle is a closed one.
func TestCloseIsIdempotentAndUseAfterCloseIsAnError(t *testing.T) {
	p, err := CompilePolicy([]byte(`{"prices":[{"item":"Starter","amount":49}]}`))
	if err != nil {
		t.Fatal(err)
	}
	options, bundle := validProof(t)
	v, err := NewVerifier(options)
	if err != nil {
		t.Fatal(err)
	}
	var nilPolicy *Policy
	var nilVerifier *Verifier
	check := func(p *Policy) func() (bool, error) {
		return func() (bool, error) { res, err := p.Check("Starter is $99.", nil); return res != nil, err }
	}
	verify := func(v *Verifier) func() (bool, error) {
		return func() (bool, error) { res, err := v.Verify(bundle); return res != nil, err }
	}
	handles := []struct {
		name  string
		call  func() (result bool, err error)
		close func() error
		open  bool
	}{
		{"Policy", check(p), p.Close, true},
		{"Verifier", verify(v), v.Close, true},
		{"nil Policy", check(nilPolicy), nilPolicy.Close, false},
		{"nil Verifier", verify(nilVerifier), nilVerifier.Close, false},
	}
	for _, h := range handles {
		if h.open {
			if _, err := h.call(); err != nil {
				t.Fatalf("%s before Close: %v", h.name, err)
			}
		}
		for i := range 3 {
			if err := h.close(); err != nil {
				t.Fatalf("%s: Close #%d: %v", h.name, i+1, err)
			}
		}
		if res, err := h.call(); !errors.Is(err, ErrClosed) || res {
			t.Errorf("%s after Close: want ErrClosed and no result, got a result %v, %v", h.name, res, err)
		}
	}
}
