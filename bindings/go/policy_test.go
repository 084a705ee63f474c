package curbi

// CompilePolicy and Policy.Check: byte spans on non-ASCII replies, options (Close: handle_test.go).

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestByteSpansOnNonASCIIReplies: the rule, text and why come from the hand-written vectors (70-unicode-spans,
// 00-seed); the byte offsets are counted by hand in the comments (UTF-8: é, ë, à, İ, ü 2 bytes; CJK, ！, €
// and U+200D 3 bytes; emoji, skin tones and astral CJK 4 bytes).
func TestByteSpansOnNonASCIIReplies(t *testing.T) {
	const starter = `{"prices":[{"item":"Starter","amount":49}]}`
	const pro = `{"prices":[{"item":"Pro","amount":49}]}`
	tests := []struct {
		name, policy, reply string
		want                []Finding
	}{
		// 🙂(4) + " "(1) + "Starter is "(11) = 16.
		{"emoji", starter, "🙂 Starter is $99 a month.",
			[]Finding{{"price:mismatch", [2]int{16, 19}, "$99", "Starter is $49, not $99."}}},
		// "Hi Ren"(6) + é(2) + "e, Pro is "(10) = 18.
		{"e-acute", pro, "Hi Renée, Pro is $59 a month.",
			[]Finding{{"price:mismatch", [2]int{18, 21}, "$59", "Pro is $49, not $59."}}},
		// 您好！(9) + "Pro "(4) + 方案是(9) + " "(1) = 23.
		{"cjk", pro, "您好！Pro 方案是 $59 每月。",
			[]Finding{{"price:mismatch", [2]int{23, 26}, "$59", "Pro is $49, not $59."}}},
		// 𠮷(4) + 野家(6) + " fans love Pro at "(18) = 28.
		{"astral-cjk", pro, "𠮷野家 fans love Pro at $59.",
			[]Finding{{"price:mismatch", [2]int{28, 31}, "$59", "Pro is $49, not $59."}}},
		// 👩(4) + ZWJ(3) + 💻(4) + " Our team "(10) + 👍(4) + 🏽(4) + " confirms: Pro is "(18) = 47.
		{"zwj-and-skin-tone", pro, "👩‍💻 Our team 👍🏽 confirms: Pro is $59.",
			[]Finding{{"price:mismatch", [2]int{47, 50}, "$59", "Pro is $49, not $59."}}},
		// 28 characters before GARANTİLİDİR, five of them 2-byte (İ and four ü): 33. The match itself is 12
		// characters with three İ: 15 bytes, so it ends at 48.
		{"turkish-dotted-i", `{"forbid":[{"id":"garanti","phrases":["garanti"],"match":"prefix"}]}`,
			"İyi günler! Tüm ürünlerimiz GARANTİLİDİR.",
			[]Finding{{"forbid:garanti", [2]int{33, 48}, "GARANTİLİDİR", `"GARANTİLİDİR" is a forbidden phrase.`}}},
		// 🎁(4) + " "(1) = 5; İADE is İ(2) + ADE(3) = 5 bytes.
		{"turkish-word", `{"forbid":[{"id":"iade","phrases":["iade"]}]}`, "🎁 İADE yapılır.",
			[]Finding{{"forbid:iade", [2]int{5, 10}, "İADE", `"İADE" is a forbidden phrase.`}}},
		// "Merci Zo"(8) + ë(2) + "! "(2) + 😀(4) + "\n"(1) + "Pro est "(8) + à(2) + " "(1) = 28; €49 is 5 bytes.
		// Then " par mois."(10) + "\n"(1) + "On ne garantit rien. "(21) + "Starter is "(11) = 76.
		{"several-lines", `{"prices":[{"item":"Pro","amount":49},{"item":"Starter","amount":49}]}`,
			"Merci Zoë! 😀\nPro est à €49 par mois.\nOn ne garantit rien. Starter is $99.",
			[]Finding{
				{"price:currency", [2]int{28, 33}, "€49", "Pro is $49 in USD, not €49 (EUR)."},
				{"price:mismatch", [2]int{76, 79}, "$99", "Starter is $49, not $99."},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustCompile(t, tc.policy)
			res, err := p.Check(tc.reply, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Pass || len(res.Findings) != len(tc.want) {
				t.Fatalf("want %d findings, got pass=%v %+v", len(tc.want), res.Pass, res.Findings)
			}
			for i, f := range res.Findings {
				if f != tc.want[i] {
					t.Errorf("finding %d:\n got %+v\nwant %+v", i, f, tc.want[i])
				}
				if got := tc.reply[f.Span[0]:f.Span[1]]; got != f.Text {
					t.Errorf("reply[%d:%d] = %q, text %q", f.Span[0], f.Span[1], got, f.Text)
				}
			}
			// The one-shot Check API reports the same findings in UTF-16 units; converting them back to bytes
			// (independently, in byteOffset) must land on the same spans.
			req, _ := json.Marshal(map[string]any{"policy": json.RawMessage(tc.policy), "reply": tc.reply})
			resp, err := Check(req)
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range resp.Findings {
				s, ok1 := byteOffset(tc.reply, f.Span[0])
				e, ok2 := byteOffset(tc.reply, f.Span[1])
				if !ok1 || !ok2 || [2]int{s, e} != tc.want[i].Span {
					t.Errorf("Check API finding %d: UTF-16 span %v is bytes [%d,%d], want %v", i, f.Span, s, e, tc.want[i].Span)
				}
			}
		})
	}
}

func TestCheckResultShape(t *testing.T) {
	p := mustCompile(t, `{"prices":[{"item":"Starter","amount":49}]}`)
	// No options: the current checker, 2026-12-04, answers.
	res, err := p.Check("", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Object: "check", Version: "2026-12-04", RecordTrust: "caller_supplied_unverified", Pass: true,
		Findings: []Finding{}, Proof: Proof{"operation_and_subject_only", false, "within_request_only", false}}
	got, _ := json.Marshal(res)
	wantDoc, _ := json.Marshal(want)
	if string(got) != string(wantDoc) {
		t.Errorf("empty reply:\n got %s\nwant %s", got, wantDoc)
	}
}

// The fact vector of 70-unicode-spans: 📅(4) + " "(1) + "Your appointment is at "(23) = 28.
const (
	factPolicy = `{"forbid":[{"id":"guarantee","phrases":["guarantee"]}]}`
	factReply  = "📅 Your appointment is at 4:30 PM."
)

var factFinding = Finding{"fact:mismatch", [2]int{28, 35}, "4:30 PM", "appointment is 15:30, not 4:30 PM."}

type fact struct {
	Near  string `json:"near"`
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

func TestCheckOptionsRecord(t *testing.T) {
	p := mustCompile(t, factPolicy)
	records := map[string]any{
		"raw":   json.RawMessage(`{"facts":[{"near":"appointment","kind":"time","value":"15:30"}]}`),
		"bytes": []byte(`{"facts":[{"near":"appointment","kind":"time","value":"15:30"}]}`),
		"map":   map[string]any{"facts": []any{map[string]any{"near": "appointment", "kind": "time", "value": "15:30"}}},
		"struct": struct {
			Facts []fact `json:"facts"`
		}{[]fact{{"appointment", "time", "15:30"}}},
	}
	for name, rec := range records {
		res, err := p.Check(factReply, &CheckOptions{Record: rec})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Findings) != 1 || res.Findings[0] != factFinding {
			t.Errorf("%s: got %+v, want [%+v]", name, res.Findings, factFinding)
		}
	}
	// Without the record nothing is recorded, so nothing contradicts the reply.
	for _, opts := range []*CheckOptions{nil, {}, {Record: json.RawMessage(nil)}, {Record: []byte{}}} {
		res, err := p.Check(factReply, opts)
		if err != nil || !res.Pass {
			t.Errorf("no record (%+v): want pass, got %+v, %v", opts, res, err)
		}
	}
}

func TestCheckOptionsVersion(t *testing.T) {
	// 90-versions: 2026-10-27 has no negation after a phrase; 2026-11-01 has.
	p := mustCompile(t, `{"forbid":[{"id":"refund","phrases":["refund"]}]}`)
	const reply = "Refunds are not available on annual plans."
	cur, err := p.Check(reply, &CheckOptions{Version: "2026-11-01"})
	if err != nil || !cur.Pass || cur.Version != "2026-11-01" {
		t.Errorf("2026-11-01: want pass, got %+v, %v", cur, err)
	}
	old, err := p.Check(reply, &CheckOptions{Version: "2026-10-27"})
	if err != nil {
		t.Fatal(err)
	}
	want := Finding{"forbid:refund", [2]int{0, 7}, "Refunds", `"Refunds" is a forbidden phrase.`}
	if old.Pass || old.Version != "2026-10-27" || len(old.Findings) != 1 || old.Findings[0] != want {
		t.Errorf("2026-10-27: want one finding %+v, got %+v", want, old)
	}
}

func TestCheckOptionErrors(t *testing.T) {
	p := mustCompile(t, factPolicy)
	_, err := p.Check(factReply, &CheckOptions{Version: "2025-01-01"})
	requireError(t, err, "invalid_enum", "/version")
	bad := json.RawMessage(`{"facts":[{"near":"appointment","kind":"time","value":"teatime"}]}`)
	_, err = p.Check(factReply, &CheckOptions{Record: bad})
	requireError(t, err, "invalid_value", "/record/facts/0/value")
	_, err = p.Check(factReply, &CheckOptions{Record: 42})
	requireError(t, err, "invalid_type", "/record")

	// A record encoding/json cannot marshal is the caller's error, not the library's.
	_, err = p.Check(factReply, &CheckOptions{Record: make(chan int)})
	var e *Error
	if err == nil || errors.As(err, &e) || !strings.Contains(err.Error(), "options") {
		t.Errorf("unmarshalable record: want an encoding error, got %v", err)
	}
}

func TestCompilePolicyValue(t *testing.T) {
	type item struct {
		Item   string `json:"item"`
		Amount int    `json:"amount"`
	}
	values := []any{
		map[string]any{"prices": []any{map[string]any{"item": "Starter", "amount": 49}}},
		struct {
			Prices []item `json:"prices"`
		}{[]item{{"Starter", 49}}},
		json.RawMessage(`{"prices":[{"item":"Starter","amount":49}]}`),
	}
	for _, v := range values {
		p, err := CompilePolicyValue(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		res, err := p.Check("Starter is $99 a month.", nil)
		if err != nil || len(res.Findings) != 1 || res.Findings[0].Span != [2]int{11, 14} {
			t.Errorf("%T: want the seed's finding at [11,14], got %+v, %v", v, res, err)
		}
		_ = p.Close()
	}
	_, err := CompilePolicyValue(map[string]any{"prices": []any{map[string]any{"item": ""}}})
	requireError(t, err, "too_short", "/prices/0/item")
	if _, err := CompilePolicyValue(func() {}); err == nil || errors.As(err, new(*Error)) {
		t.Errorf("unmarshalable value: want an encoding error, got %v", err)
	}
}
