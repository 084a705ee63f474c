package curbi

// Policy: a compiled policy held by the library (curbi_policy), checked from any number of goroutines.

import (
	"encoding/json"
	"fmt"
)

// Policy is a compiled policy. It is immutable and safe for concurrent use: many goroutines may call Check on
// one Policy at once.
//
// A Policy holds memory outside the Go heap. Call Close when done with it; a finalizer frees a Policy that
// becomes unreachable without Close, but only as a safety net (build with -tags debug to report those).
//
// Callers must not Close a Policy while checks on it are still running. If they do, Close waits for the running
// checks to return, and checks that start after Close return ErrClosed: misuse is an error, never a crash.
type Policy struct {
	owned[*cPolicy]
}

// CompilePolicy compiles a policy document: the JSON of the Check API's "policy" member. A schema error is an
// *Error whose Path is relative to the policy document, e.g. "/prices/0/item" (the Check API says
// "/policy/prices/0/item" for the same value).
func CompilePolicy(policyJSON []byte) (*Policy, error) {
	return ownPolicy(compilePolicy(policyJSON))
}

// ownPolicy wraps a handle the library made: the Policy holds it, and a finalizer frees it if Close is forgotten.
func ownPolicy(handle *cPolicy, err error) (*Policy, error) {
	return own[Policy](handle, err, freePolicy, "Policy")
}

// CompilePolicyWithReceipts compiles a policy that checks claimed actions against the signed receipts a record
// offers (docs/CHECKER.md, Receipts). receipts is the receipt keys you trust: {"keys": JWKS, "allowTest"?: bool,
// "now"?: RFC 3339} (the system clock when "now" is absent); its errors carry paths inside it, e.g. "/keys/0/x".
// Empty receipts compiles as CompilePolicy does.
func CompilePolicyWithReceipts(policyJSON, receipts []byte) (*Policy, error) {
	return ownPolicy(compilePolicyWithReceipts(policyJSON, receipts))
}

// CompilePolicyValue marshals v with encoding/json and compiles the result. Pass a []byte to CompilePolicy
// instead: encoding/json would turn it into a base64 string.
func CompilePolicyValue(v any) (*Policy, error) {
	doc, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("curbi: encoding the policy: %w", err)
	}
	return CompilePolicy(doc)
}

// CheckOptions are the request members that go with a reply. The zero value checks with no record on the
// current checker.
type CheckOptions struct {
	// Record is the caller's record (the Check API's "record"): JSON text as a json.RawMessage or []byte, any
	// other value encoding/json can marshal (a map, a struct with json tags), or nil for none.
	Record any
	// Version pins a checker version ("2026-12-04", "2026-12-03", "2026-12-01", "2026-11-01", "2026-10-27");
	// "" is the current one (2026-12-04).
	Version string
	// Verify is "optional" (the default when "") or "required": only signed receipts back claimed actions. Receipts
	// and "required" need a policy compiled with CompilePolicyWithReceipts.
	Verify string
}

// encode writes the options document of curbi_policy_check; nil when there is nothing to send.
func (o *CheckOptions) encode() ([]byte, error) {
	if o == nil {
		return nil, nil
	}
	doc := map[string]any{}
	switch r := o.Record.(type) {
	case nil:
	case json.RawMessage:
		if len(r) > 0 { // an empty RawMessage is "no record", not a syntax error
			doc["record"] = r
		}
	case []byte: // JSON text, like CompilePolicy's argument (encoding/json would make it a base64 string)
		if len(r) > 0 {
			doc["record"] = json.RawMessage(r)
		}
	default:
		doc["record"] = r
	}
	if o.Version != "" {
		doc["version"] = o.Version
	}
	if o.Verify != "" {
		doc["verify"] = o.Verify
	}
	if len(doc) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("curbi: encoding the check options: %w", err)
	}
	return b, nil
}

// Check checks one reply. Spans in the result are byte offsets into reply:
// reply[f.Span[0]:f.Span[1]] == f.Text. A reply that is not valid UTF-8 is an *Error with code "invalid_value"
// at "/reply"; errors in opts have paths "/record/..." and "/version", as in the Check API.
//
// Unlike the Check API, Check does not limit the reply's length.
func (p *Policy) Check(reply string, opts *CheckOptions) (*Result, error) {
	options, err := opts.encode()
	if err != nil {
		return nil, err
	}
	doc, err := call(p, func(handle *cPolicy) ([]byte, error) { return policyCheck(handle, reply, options) })
	if err != nil {
		return nil, err
	}
	return parseResult(doc, reply)
}

// Close frees the compiled policy. It is idempotent and always returns nil; afterwards Check returns ErrClosed.
// It waits for checks that are running on p to finish.
func (p *Policy) Close() error {
	release(p)
	return nil
}

// YAMLToJSON converts a YAML document (a policy as most teams write it; docs/YAML.md) to the compact JSON text it
// stands for, to pass wherever this package takes JSON: CompilePolicy(YAMLToJSON(policyYAML)). Numbers keep their
// digits; what the strict reader refuses is an *Error with its code and path (a repeated key is duplicate_member,
// an alias, a tag, .inf or a second document invalid_json).
func YAMLToJSON(yaml []byte) (json.RawMessage, error) {
	return jsonCall(yamlToJSONFn, yaml)
}
