// Package curbi checks what an AI agent tells a customer against explicit rules, through Curbi's C ABI
// (libcurbi, include/curbi.h), linked statically.
//
// Build the library first, from the repository root:
//
//	cargo build --release -p curbi-ffi
//
// Two ways in:
//
//   - CompilePolicy once, then Policy.Check per reply, from any number of goroutines. Spans are byte offsets
//     into the Go string: reply[f.Span[0]:f.Span[1]] == f.Text.
//   - Check, the Check API in one call: a request document in (docs/CHECK_API.md), the parsed response out,
//     including batches ("cases"). Spans are UTF-16 code units, exactly as on the wire.
//
// Proof of Action bundles (docs/PROOF.md) likewise: VerifyBundle in one call, or NewVerifier once with the keys
// and options, then Verifier.Verify per bundle, from any number of goroutines.
//
// Invalid input is an *Error with a stable Code (vectors/errors.json), a Message and the JSON pointer Path of
// the offending value.
package curbi

// Version is the version of the linked library, e.g. "0.1.0".
func Version() string {
	return libraryVersion()
}

// Check runs the Check API on one request document (the body of POST /v1/check) and returns the parsed
// response: Object "check" with Findings, or "check_batch" with Results. Spans are UTF-16 code units of the
// reply, as on the wire, not Go byte offsets; use CompilePolicy and Policy.Check for byte spans. An invalid
// request is an *Error whose Path points into the request.
func Check(request []byte) (*Response, error) {
	return parseResponse(jsonCall(checkFn, request))
}

// CheckWithReceipts is Check with receipt keys from configuration (never from the request): receipts is
// {"keys": JWKS, "allowTest"?: bool, "now"?: RFC 3339}, as for CompilePolicyWithReceipts. Without keys, a request
// offering receipts or asking verify "required" is an *Error with code "unsupported".
func CheckWithReceipts(request, receipts []byte) (*Response, error) {
	return parseResponse(checkRequestWithReceipts(request, receipts))
}
