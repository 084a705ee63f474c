package curbi

// vectors/recorder/scenarios.json through Recorder (its description member says the step format; the Rust runner is
// recorder/tests/vectors.rs). The bundles the scenarios verify are written to target/recorder-bundles/go/ for
// `curbi verify` (scripts/test.sh).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recorderVectors is vectors/recorder/scenarios.json.
type recorderVectors struct {
	Origin string `json:"origin"`
	Keys   map[string]struct {
		JWK string `json:"jwk"`
	} `json:"keys"`
	Scenarios []struct {
		Name  string          `json:"name"`
		Open  json.RawMessage `json:"open"`
		Steps []recorderStep  `json:"steps"`
	} `json:"scenarios"`
}

// recorderStep is one step: a call, or a reopen of the scenario's file.
type recorderStep struct {
	Call        string          `json:"call"`
	Request     json.RawMessage `json:"request"`
	RequestText *string         `json:"request_text"`
	Reopen      json.RawMessage `json:"reopen"`
	Expect      json.RawMessage `json:"expect"`
	Present     []string        `json:"present"`
	Absent      []string        `json:"absent"`
	Error       json.RawMessage `json:"error"`
	SameAs      *int            `json:"same_as"`
	Verify      bool            `json:"verify"`
}

func loadRecorderVectors(t *testing.T) recorderVectors {
	t.Helper()
	var doc recorderVectors
	readJSON(t, filepath.Join(vectorsDir, "recorder", "scenarios.json"), &doc)
	if len(doc.Scenarios) == 0 {
		t.Fatal("no recorder scenarios")
	}
	return doc
}

// substitute replaces the string "$heads" (the request itself, or a member's value in an object at any depth) with
// the list of heads.
func substitute(v any, heads []any) any {
	switch x := v.(type) {
	case string:
		if x == "$heads" {
			return heads
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, m := range x {
			out[k] = substitute(m, heads)
		}
		return out
	}
	return v
}

// openScenario opens the scenario's database with spec's key ({key, now, rotate?}), passed in an environment
// variable (key_env).
func openScenario(t *testing.T, doc recorderVectors, db string, spec json.RawMessage) (*Recorder, error) {
	t.Helper()
	var s struct {
		Key    string          `json:"key"`
		Now    json.Number     `json:"now"`
		Rotate json.RawMessage `json:"rotate"`
	}
	if err := json.Unmarshal(spec, &s); err != nil {
		t.Fatal(err)
	}
	variable := "CURBI_RECORDER_TEST_" + strings.ToUpper(s.Key)
	t.Setenv(variable, doc.Keys[s.Key].JWK)
	config := map[string]any{"path": db, "origin": doc.Origin, "key_env": variable, "now": s.Now}
	if s.Rotate != nil {
		config["rotate"] = s.Rotate
	}
	text, err := json.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	return OpenRecorder(text)
}

// recorderMethods are the named methods, by the call they make. Checkpoint, Keys and Status send {}: the steps
// that call them must ask for nothing else.
func recorderMethods(t *testing.T, r *Recorder) map[string]func([]byte) (json.RawMessage, error) {
	noRequest := func(f func() (json.RawMessage, error)) func([]byte) (json.RawMessage, error) {
		return func(request []byte) (json.RawMessage, error) {
			if !bytes.Equal(request, []byte("{}")) {
				t.Fatalf("a step sends %s to a method that takes no request", request)
			}
			return f()
		}
	}
	return map[string]func([]byte) (json.RawMessage, error){
		"grant": r.Grant, "mandate": r.Mandate, "attest": r.Attest, "confirm": r.Confirm, "reconcile": r.Reconcile, "held": r.Held,
		"bundle": r.Bundle, "receipt": r.Receipt, "receipts": r.Receipts, "checkpoint": noRequest(r.Checkpoint), "keys": noRequest(r.Keys),
		"status": noRequest(r.Status),
		"set_clock": func(request []byte) (json.RawMessage, error) {
			var body struct {
				Now int64 `json:"now"`
			}
			if err := json.Unmarshal(request, &body); err != nil {
				t.Fatal(err)
			}
			return json.RawMessage("{}"), r.SetClock(body.Now)
		},
	}
}

// runScenarios runs every scenario on a new database in dir; byName makes each call through the named method,
// otherwise through Recorder.Call. It returns how many steps ran.
func runScenarios(t *testing.T, doc recorderVectors, dir, out string, byName bool) int {
	ran := 0
	for n, scenario := range doc.Scenarios {
		db := filepath.Join(dir, fmt.Sprintf("s%d.db", n))
		r, err := openScenario(t, doc, db, scenario.Open)
		if err != nil {
			t.Fatalf("%s: %v", scenario.Name, err)
		}
		answers := make([][]byte, len(scenario.Steps))
		heads := []any{}
		for i, step := range scenario.Steps {
			at := fmt.Sprintf("%s, step %d", scenario.Name, i)
			ran++
			if step.Reopen != nil {
				// A reopen that fails leaves the recorder that was open as it was.
				opened, err := openScenario(t, doc, db, step.Reopen)
				if step.Error != nil {
					checkRecorderError(t, at, err, step.Error)
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", at, err)
				}
				_ = r.Close()
				r = opened
				continue
			}
			body := []byte(nil)
			if step.RequestText != nil {
				body = []byte(*step.RequestText)
			} else {
				var err error
				if body, err = json.Marshal(substitute(toAny(t, step.Request), heads)); err != nil {
					t.Fatal(err)
				}
			}
			var text json.RawMessage
			if byName {
				text, err = recorderMethods(t, r)[step.Call](body)
			} else {
				text, err = r.Call(step.Call, body)
			}
			if step.Error != nil {
				checkRecorderError(t, at, err, step.Error)
				continue
			}
			if err != nil {
				t.Fatalf("%s: %s %s: %v", at, step.Call, body, err)
			}
			got := toAny(t, text)
			if step.Expect != nil && !contains(got, toAny(t, step.Expect)) {
				t.Errorf("%s: expected %s, got %s", at, step.Expect, text)
			}
			members, _ := got.(map[string]any)
			for _, m := range step.Present {
				if _, ok := members[m]; !ok {
					t.Errorf("%s: %s missing in %s", at, m, text)
				}
			}
			for _, m := range step.Absent {
				if _, ok := members[m]; ok {
					t.Errorf("%s: %s present in %s", at, m, text)
				}
			}
			if step.SameAs != nil && !bytes.Equal(text, answers[*step.SameAs]) {
				t.Errorf("%s: not byte-identical to step %d:\n%s\n%s", at, *step.SameAs, text, answers[*step.SameAs])
			}
			if step.Call == "checkpoint" {
				note := members["note"]
				seen := false
				for _, h := range heads {
					seen = seen || h == note
				}
				if !seen {
					heads = append(heads, note)
				}
			}
			if step.Verify {
				verifyRecorded(t, r, text, heads, filepath.Join(out, fmt.Sprintf("s%d-%d", n, i)), at)
			}
			answers[i] = text
		}
		_ = r.Close()
	}
	return ran
}

// checkRecorderError requires err to be the step's {code, path}.
func checkRecorderError(t *testing.T, at string, err error, want json.RawMessage) {
	t.Helper()
	var w struct{ Code, Path string }
	if e := json.Unmarshal(want, &w); e != nil {
		t.Fatal(e)
	}
	var ce *Error
	if !errors.As(err, &ce) || ce.Code != w.Code || ce.Path != w.Path {
		t.Errorf("%s: want %s at %q, got %v", at, w.Code, w.Path, err)
	}
}

// verifyRecorded requires a bundle to verify under the recorder's keys with every head so far as known, and writes
// it with the keys to base.bundle.json and base.keys.json.
func verifyRecorded(t *testing.T, r *Recorder, bundle json.RawMessage, heads []any, base, at string) {
	t.Helper()
	keys, err := r.Keys()
	if err != nil {
		t.Fatal(err)
	}
	request, err := json.Marshal(map[string]any{"bundle": bundle, "keys": keys, "known": heads})
	if err != nil {
		t.Fatal(err)
	}
	v, err := VerifyBundle(request)
	if err != nil || !v.OK {
		t.Errorf("%s: the bundle does not verify: %v %+v", at, err, v)
		return
	}
	for suffix, data := range map[string][]byte{".bundle.json": bundle, ".keys.json": keys} {
		if err := os.WriteFile(base+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecorderScenarios runs the scenarios twice: through the named methods and through Call.
func TestRecorderScenarios(t *testing.T) {
	doc := loadRecorderVectors(t)
	out := filepath.Join("..", "..", "target", "recorder-bundles", "go")
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, byName := range []bool{true, false} {
		ran := runScenarios(t, doc, t.TempDir(), out, byName)
		if ran < 70 {
			t.Fatalf("only %d recorder steps ran", ran)
		}
		fmt.Printf("go recorder vectors: %d steps ran (named methods: %v)\n", ran, byName)
	}
}

// openFirstScenario opens a recorder as the first scenario does and registers its grant.
func openFirstScenario(t *testing.T) (*Recorder, json.RawMessage) {
	t.Helper()
	doc := loadRecorderVectors(t)
	r, err := openScenario(t, doc, filepath.Join(t.TempDir(), "r.db"), doc.Scenarios[0].Open)
	if err != nil {
		t.Fatal(err)
	}
	grant := doc.Scenarios[0].Steps[0].Request
	if _, err := r.Grant(grant); err != nil {
		t.Fatal(err)
	}
	return r, grant
}

// TestRecorderConcurrentRefunds: 8 goroutines attest and confirm on one Recorder at once; every refund is allowed
// and receipted once (the grant's uses and the log's size count them).
func TestRecorderConcurrentRefunds(t *testing.T) {
	r, grant := openFirstScenario(t)
	defer r.Close()
	const goroutines, rounds = 8, 3
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*rounds)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range rounds {
				key := fmt.Sprintf("g%d-%d", g, k)
				attest := `{"tenant":"acme","idempotency_key":"` + key + `","grant":"g-refunds","action":{"agent":"agent:support",` +
					`"operation":"billing.refund","resource":"charge:ch_1","amount":100,"currency":"USD"}}`
				a, err := r.Attest([]byte(attest))
				if err == nil && !bytes.Contains(a, []byte(`"decision":"ALLOW"`)) {
					err = fmt.Errorf("attest %s: %s", key, a)
				}
				if err == nil {
					evidence := `{"id":"re_` + key + `","operation":"billing.refund","resource":"charge:ch_1","amount":100,"currency":"usd","status":"succeeded"}`
					body, _ := json.Marshal(map[string]string{"tenant": "acme", "idempotency_key": key, "outcome": "DONE", "evidence": evidence})
					_, err = r.Confirm(body)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	used, err := r.Grant(grant)
	if err != nil || !contains(toAny(t, used), map[string]any{"used": json.Number(fmt.Sprint(goroutines * rounds))}) {
		t.Errorf("the grant counts %s (%v), want %d uses", used, err, goroutines*rounds)
	}
	head, err := r.Checkpoint()
	if err != nil || !contains(toAny(t, head), map[string]any{"size": json.Number(fmt.Sprint(goroutines * rounds))}) {
		t.Errorf("head %s (%v), want size %d", head, err, goroutines*rounds)
	}
}

// TestRecorderErrorsAndClose: refusals are *Error with stable codes; after Close every method is ErrClosed.
func TestRecorderErrorsAndClose(t *testing.T) {
	_, err := OpenRecorder([]byte(`{}`))
	requireError(t, err, "missing_field", "/path")
	_, err = OpenRecorder(nil)
	requireError(t, err, "invalid_json", "")
	r, _ := openFirstScenario(t)
	_, err = r.Call("nope", []byte("{}"))
	requireError(t, err, "not_found", "")
	_, err = r.Call("status\x00", []byte("{}"))
	requireError(t, err, "not_found", "")
	_, err = r.Held([]byte(`{"limit":0}`))
	requireError(t, err, "out_of_range", "/limit")
	if err := r.SetClock(1793714460); err != nil {
		t.Fatal(err)
	}
	_ = r.Close()
	_ = r.Close()
	if _, err := r.Status(); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if err := r.SetClock(0); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	var none *Recorder
	if _, err := none.Keys(); !errors.Is(err, ErrClosed) {
		t.Fatalf("nil Recorder: %v", err)
	}
}

// TestRecorderPublishAndCosign: Publish writes the log as C2SP tiles (checkpoint, a partial level-0 tile, its entry
// bundle); Cosign without configured witnesses is refused with missing_field.
func TestRecorderPublishAndCosign(t *testing.T) {
	r, _ := openFirstScenario(t)
	defer r.Close()
	attest := `{"tenant":"acme","idempotency_key":"pub-1","grant":"g-refunds","action":{"agent":"agent:support",` +
		`"operation":"billing.refund","resource":"charge:ch_1","amount":100,"currency":"USD"}}`
	if _, err := r.Attest([]byte(attest)); err != nil {
		t.Fatal(err)
	}
	evidence := `{"id":"re_1","operation":"billing.refund","resource":"charge:ch_1","amount":100,"currency":"usd"}`
	body, _ := json.Marshal(map[string]string{"tenant": "acme", "idempotency_key": "pub-1", "outcome": "DONE", "evidence": evidence})
	if _, err := r.Confirm(body); err != nil {
		t.Fatal(err)
	}
	head, err := r.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ Note string }
	if err := json.Unmarshal(head, &h); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "public")
	req, _ := json.Marshal(map[string]string{"dir": dir})
	published, err := r.Publish(req)
	if err != nil || !contains(toAny(t, published), map[string]any{"size": json.Number("1"), "files": json.Number("2")}) {
		t.Fatalf("publish: %s (%v)", published, err)
	}
	if cp, err := os.ReadFile(filepath.Join(dir, "checkpoint")); err != nil || string(cp) != h.Note {
		t.Errorf("the published checkpoint is %q (%v), want the head", cp, err)
	}
	if tile, err := os.ReadFile(filepath.Join(dir, "tile", "0", "000.p", "1")); err != nil || len(tile) != 32 {
		t.Errorf("tile/0/000.p/1: %d bytes (%v), want one leaf hash", len(tile), err)
	}
	var e *Error
	if _, err := r.Cosign(); !errors.As(err, &e) || e.Code != "missing_field" {
		t.Errorf("cosign without witnesses: %v", err)
	}
}

// TestRecorderMaxClockAhead: "max_clock_ahead" in the open document reaches the recorder. A write dated further past
// the log's last time than it (default 7 days) is clock_ahead and signs nothing, a read at that clock answers, and a
// larger setting lets the write sign.
func TestRecorderMaxClockAhead(t *testing.T) {
	doc := loadRecorderVectors(t)
	db := filepath.Join(t.TempDir(), "clock.db")
	var spec struct {
		Key string `json:"key"`
		Now int64  `json:"now"`
	}
	if err := json.Unmarshal(doc.Scenarios[0].Open, &spec); err != nil {
		t.Fatal(err)
	}
	now := spec.Now
	reopen := func(at int64, extra map[string]any) (*Recorder, error) {
		s := map[string]any{"key": spec.Key, "now": at}
		text, _ := json.Marshal(s)
		if extra == nil {
			return openScenario(t, doc, db, text)
		}
		variable := "CURBI_RECORDER_TEST_CLOCK"
		t.Setenv(variable, doc.Keys[spec.Key].JWK)
		config := map[string]any{"path": db, "key_env": variable, "now": at}
		for k, v := range extra {
			config[k] = v
		}
		body, _ := json.Marshal(config)
		return OpenRecorder(body)
	}
	first, err := reopen(now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	_ = first.Close()
	far, err := reopen(now+10*365*86400, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := far.Status(); err != nil {
		t.Fatalf("a read at a clock years ahead: %v", err)
	}
	_, err = far.Call("checkpoint", []byte("{}"))
	requireError(t, err, "clock_ahead", "")
	_ = far.Close()
	idle := now + 30*86400
	_, err = reopen(idle, map[string]any{"max_clock_ahead": 0})
	requireError(t, err, "out_of_range", "/max_clock_ahead")
	late, err := reopen(idle, map[string]any{"max_clock_ahead": 40 * 86400})
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	grant := doc.Scenarios[0].Steps[0].Request
	if _, err := late.Grant(grant); err != nil {
		t.Fatalf("a write 30 days on with max_clock_ahead 40 days: %v", err)
	}
}
