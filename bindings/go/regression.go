package curbi

import "encoding/json"

// Issue is one lint error or warning: a stable Code, a Message for people and the JSON pointer Path into the
// policy document.
type Issue struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path"`
}

// LintReport is the result of ValidatePolicy (docs/LINT.md). Valid is false when there are errors; warnings
// never make a policy invalid. A valid policy is not a complete one and grants no authority.
type LintReport struct {
	Valid    bool    `json:"valid"`
	Errors   []Issue `json:"errors"`
	Warnings []Issue `json:"warnings"`
	// Document is the result exactly as the core wrote it (the bytes every binding gives), to log or forward.
	Document json.RawMessage `json:"-"`
}

// ValidatePolicy lints a policy document: every schema error, and warnings for rules that can never fire,
// overlapping items, duplicate phrases and more. Only unreadable JSON is an error; an invalid policy is a report
// with Valid false.
func ValidatePolicy(policyJSON []byte) (*LintReport, error) {
	doc, err := jsonCall(validatePolicyFn, policyJSON)
	return decodeDocument[LintReport]("reading the lint report", doc, err)
}

// Export is what ExportRegression returns: the curbi.regression document and the text of the two replay test
// files (docs/REGRESSION.md).
type Export struct {
	// Regression is the curbi.regression document, to be written as regression.json.
	Regression json.RawMessage `json:"regression"`
	// NodeTest is regression.test.mjs: replays regression.json against a Check API under node --test.
	NodeTest string `json:"nodeTest"`
	// Pytest is test_regression.py: replays regression.json through the Python package.
	Pytest string `json:"pytest"`
	// Document is the result exactly as the core wrote it (the bytes every binding gives), to log or forward.
	Document json.RawMessage `json:"-"`
}

// ExportRegression runs a check request (the export_regression arguments: a check request with an optional
// title) and returns it as a CI regression whose expectations come from the checker, never from the caller.
func ExportRegression(request []byte) (*Export, error) {
	doc, err := jsonCall(exportRegressionFn, request)
	return decodeDocument[Export]("reading the export", doc, err)
}

// ReplayReport is the result of ReplayRegression. Pass is true when every case's expectation held; Document is
// the whole curbi.replay report, with a per-case diff for each failed case.
type ReplayReport struct {
	Pass     bool
	Total    int
	Failed   int
	Document json.RawMessage
}

// ReplayRegression re-runs a curbi.regression document with the checker version it pins.
func ReplayRegression(regression []byte) (*ReplayReport, error) {
	doc, err := jsonCall(replayRegressionFn, regression)
	head, err := decode[struct {
		Pass   bool `json:"pass"`
		Total  int  `json:"total"`
		Failed int  `json:"failed"`
	}]("reading the replay report", doc, err)
	if err != nil {
		return nil, err
	}
	return &ReplayReport{Pass: head.Pass, Total: head.Total, Failed: head.Failed, Document: doc}, nil
}
