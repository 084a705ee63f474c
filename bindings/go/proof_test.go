package curbi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestProofVectors(t *testing.T) {
	dir := filepath.Join(vectorsDir, "proof")
	raw, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index struct {
		Cases []struct {
			File string `json:"file"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &index); err != nil {
		t.Fatal(err)
	}
	ran, failed := 0, 0
	for _, c := range index.Cases {
		data, err := os.ReadFile(filepath.Join(dir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Input    json.RawMessage `json:"input"`
			Expected struct {
				OK     bool     `json:"ok"`
				Reason string   `json:"reason"`
				Items  []string `json:"items"`
			} `json:"expected"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", c.File, err)
		}
		ran++
		v, err := VerifyBundle(doc.Input)
		ok := err == nil && v.OK == doc.Expected.OK && v.Reason == doc.Expected.Reason
		if ok && doc.Expected.Items != nil {
			got := []string{}
			for _, it := range v.Items {
				got = append(got, it.Reason)
			}
			ok = reflect.DeepEqual(got, doc.Expected.Items)
		}
		if !ok {
			failed++
			t.Errorf("%s: got %+v, %v; want %+v", c.File, v, err, doc.Expected)
		}
	}
	fmt.Printf("go proof vectors: %d ran, %d failed\n", ran, failed)
	if ran == 0 {
		t.Fatal("no proof vectors ran")
	}
	_, err = VerifyBundle([]byte(`{`))
	requireError(t, err, "invalid_json", "")
}
