package curbi

// The only file that talks to C: one small Go function per C function, each turning Go memory into the
// ABI's (pointer, length) inputs and the ABI's owned documents back into Go memory. Conventions of the ABI
// (include/curbi.h): out-parameters are written only on success, the error document only on failure, every
// document is freed with curbi_bytes_free, (NULL, 0) is the empty input.

// Where the header and libcurbi.a come from is decided in link_repo.go (this repository's target/release, or
// CGO_CFLAGS/CGO_LDFLAGS for any other folder) or link_pkgconfig.go (-tags curbi_pkgconfig: pkg-config's
// curbi-static, after `make install`); without cgo, cgo_required.go says what is missing.

/*
#include <stdlib.h>
#include "curbi.h"

// curbi_document_fn is the shape of the ABI's document-in, document-out functions (curbi_validate_policy, ...);
// cgo cannot call a C function pointer, so curbi_go_document_call does.
typedef curbi_status (*curbi_document_fn)(const uint8_t *, size_t, curbi_bytes **, curbi_bytes **);
static curbi_status curbi_go_document_call(curbi_document_fn fn, const uint8_t *input, size_t len,
		curbi_bytes **result, curbi_bytes **error) {
	return fn(input, len, result, error);
}
*/
import "C"

import (
	"math"
	"strconv"
	"unsafe"
)

// status is a curbi_status: stable numbers, never reused.
type status uint32

const (
	statusOK             status = C.CURBI_STATUS_OK
	statusInvalidInput   status = C.CURBI_STATUS_INVALID_INPUT
	statusNullArgument   status = C.CURBI_STATUS_NULL_ARGUMENT
	statusInvalidLength  status = C.CURBI_STATUS_INVALID_LENGTH
	statusInvalidUTF8    status = C.CURBI_STATUS_INVALID_UTF8
	statusPanic          status = C.CURBI_STATUS_PANIC
	statusBufferTooSmall status = C.CURBI_STATUS_BUFFER_TOO_SMALL
)

// cPolicy, cVerifier and cRecorder let the rest of the package name the handle types without importing "C".
type (
	cPolicy   = C.curbi_policy
	cVerifier = C.curbi_verifier
	cRecorder = C.curbi_recorder
)

// headerVersion is CURBI_VERSION from the header this package was compiled against; the tests compare it with
// the linked library's curbi_version() so a stale header or library is caught.
const headerVersion = C.CURBI_VERSION

// cBytes gives C a borrowed view of b for the length of one call. cgo allows passing Go memory that holds no
// Go pointers (bytes hold none), and the ABI promises C keeps no pointer after the call returns. An empty slice
// is passed as (NULL, 0), which the ABI defines as the empty input: a zero-length slice's data pointer may be
// nil or point past its allocation.
func cBytes(b []byte) (*C.uint8_t, C.size_t) {
	if len(b) == 0 {
		return nil, 0
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b))), C.size_t(len(b))
}

// cString is cBytes for a string, without copying it. C only reads the bytes.
func cString(s string) (*C.uint8_t, C.size_t) {
	if len(s) == 0 {
		return nil, 0
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))
}

// takeDocument copies an owned document into Go memory and frees it. A NULL document is nil.
func takeDocument(b *C.curbi_bytes) ([]byte, error) {
	if b == nil {
		return nil, nil
	}
	defer C.curbi_bytes_free(b)
	n := C.curbi_bytes_len(b)
	if n > math.MaxInt32 {
		// C.GoBytes takes a C int; no document of the Check API comes near 2 GiB.
		return nil, &Error{Code: CodeInternal, Message: "a result document is larger than 2 GiB"}
	}
	return C.GoBytes(unsafe.Pointer(C.curbi_bytes_data(b)), C.int(n)), nil
}

// outcome turns a call's status and documents into Go values, freeing both documents whatever happened.
func outcome(st C.curbi_status, result, errDoc *C.curbi_bytes) ([]byte, error) {
	doc, docErr := takeDocument(result)
	errJSON, errErr := takeDocument(errDoc)
	if status(st) != statusOK {
		if errErr != nil {
			return nil, errErr
		}
		return nil, statusError(status(st), errJSON)
	}
	if docErr != nil {
		return nil, docErr
	}
	if doc == nil {
		return nil, &Error{Code: CodeInternal, Message: "the library reported success but wrote no document"}
	}
	return doc, nil
}

// newHandle runs one of the ABI's constructors (curbi_policy_compile, curbi_verifier_new) on a document and
// returns the new handle, which the caller owns; free releases a handle the ABI should not have written. what
// names the handle in errors.
func newHandle[P comparable](input []byte, what string, create func(*C.uint8_t, C.size_t, *P, **C.curbi_bytes) C.curbi_status,
	free func(P)) (P, error) {
	p, n := cBytes(input)
	var handle, none P
	var errDoc *C.curbi_bytes
	st := create(p, n, &handle, &errDoc)
	errJSON, errErr := takeDocument(errDoc)
	if status(st) != statusOK {
		if handle != none { // never written on failure by the ABI; free it rather than leak if it were
			free(handle)
		}
		if errErr != nil {
			return none, errErr
		}
		return none, statusError(status(st), errJSON)
	}
	if handle == none {
		return none, &Error{Code: CodeInternal, Message: "the library reported success but wrote no " + what}
	}
	return handle, nil
}

// The ABI's destructors (curbi_policy_free, ...); NULL is a no-op for each.
var (
	freePolicy   = func(handle *C.curbi_policy) { C.curbi_policy_free(handle) }
	freeVerifier = func(handle *C.curbi_verifier) { C.curbi_verifier_free(handle) }
	freeRecorder = func(handle *C.curbi_recorder) { C.curbi_recorder_free(handle) }
)

// compilePolicy calls curbi_policy_compile. The caller owns the returned handle.
func compilePolicy(policyJSON []byte) (*C.curbi_policy, error) {
	return newHandle(policyJSON, "policy", func(p *C.uint8_t, n C.size_t, h **C.curbi_policy, e **C.curbi_bytes) C.curbi_status {
		return C.curbi_policy_compile(p, n, h, e)
	}, freePolicy)
}

// compilePolicyWithReceipts calls curbi_policy_compile_with_receipts. The caller owns the returned handle.
func compilePolicyWithReceipts(policyJSON, receipts []byte) (*C.curbi_policy, error) {
	r, rn := cBytes(receipts)
	return newHandle(policyJSON, "policy", func(p *C.uint8_t, n C.size_t, h **C.curbi_policy, e **C.curbi_bytes) C.curbi_status {
		return C.curbi_policy_compile_with_receipts(p, n, r, rn, h, e)
	}, freePolicy)
}

// policyCheck calls curbi_policy_check: the response document with spans in UTF-8 bytes of reply.
// The caller keeps handle alive and unfreed for the call (Policy.Check holds its read lock).
func policyCheck(handle *C.curbi_policy, reply string, options []byte) ([]byte, error) {
	r, rn := cString(reply)
	o, on := cBytes(options)
	return documentCall(func(result, errDoc **C.curbi_bytes) C.curbi_status {
		return C.curbi_policy_check(handle, r, rn, o, on, result, errDoc)
	})
}

// newVerifier calls curbi_verifier_new. The caller owns the returned handle.
func newVerifier(options []byte) (*C.curbi_verifier, error) {
	return newHandle(options, "verifier", func(p *C.uint8_t, n C.size_t, h **C.curbi_verifier, e **C.curbi_bytes) C.curbi_status {
		return C.curbi_verifier_new(p, n, h, e)
	}, freeVerifier)
}

// verifierVerify calls curbi_verifier_verify: the verification document of one bundle.
// The caller keeps handle alive and unfreed for the call (Verifier.Verify holds its read lock).
func verifierVerify(handle *C.curbi_verifier, bundle []byte) ([]byte, error) {
	b, bn := cBytes(bundle)
	return documentCall(func(result, errDoc **C.curbi_bytes) C.curbi_status {
		return C.curbi_verifier_verify(handle, b, bn, result, errDoc)
	})
}

// openRecorder calls curbi_recorder_open. The caller owns the returned handle.
func openRecorder(config []byte) (*C.curbi_recorder, error) {
	return newHandle(config, "recorder", func(p *C.uint8_t, n C.size_t, h **C.curbi_recorder, e **C.curbi_bytes) C.curbi_status {
		return C.curbi_recorder_open(p, n, h, e)
	}, freeRecorder)
}

// recorderCall calls curbi_recorder_call: the answer document of one recorder method. It blocks until the work is
// on disk. The caller keeps handle alive and unfreed for the call (Recorder.Call holds its read lock).
func recorderCall(handle *C.curbi_recorder, method string, request []byte) ([]byte, error) {
	m := C.CString(method)
	defer C.free(unsafe.Pointer(m))
	p, n := cBytes(request)
	return documentCall(func(result, errDoc **C.curbi_bytes) C.curbi_status {
		return C.curbi_recorder_call(handle, m, p, n, result, errDoc)
	})
}

// checkRequestWithReceipts calls curbi_check_with_receipts.
func checkRequestWithReceipts(request, receipts []byte) ([]byte, error) {
	p, n := cBytes(request)
	r, rn := cBytes(receipts)
	return documentCall(func(result, errDoc **C.curbi_bytes) C.curbi_status {
		return C.curbi_check_with_receipts(p, n, r, rn, result, errDoc)
	})
}

// documentCall runs one call of the ABI that writes a result document on success or an error document on
// failure, and returns the result.
func documentCall(fn func(result, errDoc **C.curbi_bytes) C.curbi_status) ([]byte, error) {
	var result, errDoc *C.curbi_bytes
	st := fn(&result, &errDoc)
	return outcome(st, result, errDoc)
}

// documentFn is one of the ABI's document-in, document-out functions.
type documentFn = C.curbi_document_fn

// The ABI's document-in, document-out functions, for jsonCall.
var (
	checkFn            = documentFn(C.curbi_check)             // the Check API response, spans in UTF-16 code units
	validatePolicyFn   = documentFn(C.curbi_validate_policy)   // the lint report
	exportRegressionFn = documentFn(C.curbi_export_regression) // {"regression", "nodeTest", "pytest"}
	replayRegressionFn = documentFn(C.curbi_replay_regression) // the curbi.replay report
	verifyCheckoutFn   = documentFn(C.curbi_verify_checkout)   // the purchase decision
	checkoutDigestFn   = documentFn(C.curbi_checkout_digest)   // the digest as a JSON string
	yamlToJSONFn       = documentFn(C.curbi_yaml_to_json)      // the JSON text a YAML document stands for
	verifyActionFn     = documentFn(C.curbi_verify_action)     // the action decision
	verifyBundleFn     = documentFn(C.curbi_verify_bundle)     // the verification
)

// jsonCall runs one of the ABI's document-in, document-out functions on input.
func jsonCall(fn documentFn, input []byte) ([]byte, error) {
	p, n := cBytes(input)
	return documentCall(func(result, errDoc **C.curbi_bytes) C.curbi_status {
		return C.curbi_go_document_call(fn, p, n, result, errDoc)
	})
}

// libraryVersion reads curbi_version(): a static string, never freed.
func libraryVersion() string {
	return C.GoString(C.curbi_version())
}

// statusMessage asks the library to describe a status that came without an error document. The buffer is Go
// memory that C writes during the call only; a too-small buffer is retried once at the size C reports.
func statusMessage(st status) string {
	buf := make([]byte, 128)
	for range 2 {
		var needed C.size_t
		got := C.curbi_error_message(C.uint32_t(st), nil, (*C.char)(unsafe.Pointer(unsafe.SliceData(buf))),
			C.size_t(len(buf)), &needed)
		if status(got) == statusOK {
			return string(buf[:int(needed)])
		}
		if status(got) != statusBufferTooSmall {
			break
		}
		buf = make([]byte, int(needed)+1)
	}
	return "status " + strconv.FormatUint(uint64(st), 10)
}
