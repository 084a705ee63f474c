package curbi

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type groupCase struct {
	name string
	raw  map[string]json.RawMessage
}

func loadGroup(t *testing.T, group string) []groupCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(vectorsDir, group, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s vector files (%v)", group, err)
	}
	var out []groupCase
	for _, f := range files {
		var doc struct {
			Cases []map[string]json.RawMessage `json:"cases"`
		}
		readJSON(t, f, &doc)
		for i, c := range doc.Cases {
			out = append(out, groupCase{name: fmt.Sprintf("%s#%d", filepath.Base(f), i), raw: c})
		}
	}
	return out
}

func codesAndPaths(issues []Issue) []string {
	out := []string{}
	for _, i := range issues {
		out = append(out, i.Code+" "+i.Path)
	}
	return out
}

func TestLintVectors(t *testing.T) {
	cases := loadGroup(t, "lint")
	failed := 0
	for _, c := range cases {
		var want struct {
			Valid    bool    `json:"valid"`
			Errors   []Issue `json:"errors"`
			Warnings []Issue `json:"warnings"`
		}
		if err := json.Unmarshal(c.raw["expected"], &want); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := ValidatePolicy(c.raw["policy"])
		if err != nil || got.Valid != want.Valid ||
			!reflect.DeepEqual(codesAndPaths(got.Errors), codesAndPaths(want.Errors)) ||
			!reflect.DeepEqual(codesAndPaths(got.Warnings), codesAndPaths(want.Warnings)) {
			failed++
			t.Errorf("%s: got %+v, %v; want %+v", c.name, got, err, want)
		}
	}
	fmt.Printf("go lint vectors: %d ran, %d failed\n", len(cases), failed)
}

func TestRegressionVectors(t *testing.T) {
	cases := loadGroup(t, "regression")
	failed := 0
	for _, c := range cases {
		var want map[string]any
		if err := json.Unmarshal(c.raw["expected"], &want); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ok := true
		if input, isExport := c.raw["export"]; isExport {
			e, err := ExportRegression(input)
			ok = matches(t, c.name, want, err, func() any { return e.Regression })
			if ok && err == nil && (!strings.Contains(e.NodeTest, "node:test") || !strings.Contains(e.Pytest, "pytest")) {
				ok = false
				t.Errorf("%s: test file texts missing", c.name)
			}
		} else {
			r, err := ReplayRegression(c.raw["replay"])
			ok = matches(t, c.name, want, err, func() any { return r.Document })
		}
		if !ok {
			failed++
		}
	}
	fmt.Printf("go regression vectors: %d ran, %d failed\n", len(cases), failed)
}

// matches compares a result document with an expected whole document, or an error on code and path.
func matches(t *testing.T, name string, want map[string]any, err error, doc func() any) bool {
	t.Helper()
	if wantErr, isErr := want["error"].(map[string]any); isErr {
		e, ok := err.(*Error)
		if !ok || e.Code != wantErr["code"] || e.Path != wantErr["path"] {
			t.Errorf("%s: want error %v, got %v", name, wantErr, err)
			return false
		}
		return true
	}
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return false
	}
	raw, _ := json.Marshal(doc())
	var got any
	if err := json.Unmarshal(raw, &got); err != nil || !reflect.DeepEqual(got, any(want)) {
		t.Errorf("%s: document differs:\n got %s", name, raw)
		return false
	}
	return true
}

func TestValidatePolicyReportsEveryError(t *testing.T) {
	r, err := ValidatePolicy([]byte(`{"prices":[{"item":""},{"item":"Pro","amount":-1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"too_short /prices/0/item", "out_of_range /prices/1/amount"}
	if r.Valid || !reflect.DeepEqual(codesAndPaths(r.Errors), want) {
		t.Errorf("got %+v, want invalid with %v", r, want)
	}
	r, err = ValidatePolicy([]byte(`{"prices":[{"item":"Starter","amount":49}]}`))
	if err != nil || !r.Valid || len(r.Errors) != 0 || len(r.Warnings) != 0 {
		t.Errorf("seed policy: got %+v, %v", r, err)
	}
	if _, err := ValidatePolicy([]byte(`{`)); err == nil {
		t.Error("unreadable JSON must be an error")
	} else {
		requireError(t, err, "invalid_json", "")
	}
}
