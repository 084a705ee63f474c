package curbi

// Errors: the library's error document as *Error, and sentinels for the statuses that carry no document.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// CodeInternal is the code of a bug caught at the boundary: a panic inside the library, or a document this
// package could not read. It is one of the stable codes of vectors/errors.json.
const CodeInternal = "internal"

// Error is an error document of the library: a stable Code (listed in vectors/errors.json), a Message for
// people, and the JSON pointer (RFC 6901) of the offending value in Path ("" is the whole document).
//
// Paths point into the document that was passed: for Check, the request (e.g. "/policy/prices/0/item"); for
// CompilePolicy, the policy itself ("/prices/0/item"); for Policy.Check, "/reply" for the reply and
// "/record/..." or "/version" for the options.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path"`
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("curbi: %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("curbi: %s at %s: %s", e.Code, e.Path, e.Message)
}

var (
	// ErrClosed is returned by the methods of a Policy, a Verifier or a Recorder after Close.
	ErrClosed = errors.New("curbi: the policy, verifier or recorder is closed")
	// ErrNullArgument is the library's CURBI_STATUS_NULL_ARGUMENT. This package never passes NULL where the ABI
	// requires a pointer, so seeing it is a bug in this package.
	ErrNullArgument = errors.New("curbi: a required pointer argument was NULL (a bug in the Go package)")
	// ErrInvalidLength is the library's CURBI_STATUS_INVALID_LENGTH: an input longer than PTRDIFF_MAX.
	ErrInvalidLength = errors.New("curbi: an input is longer than PTRDIFF_MAX")
)

// statusError maps a failed call to a Go error. An error document wins whenever the library wrote one
// (CURBI_STATUS_INVALID_INPUT, and CURBI_STATUS_INVALID_UTF8 with the field it names); a panic is an *Error with
// code "internal", like the CLI's and the HTTP server's.
func statusError(st status, errJSON []byte) error {
	if len(errJSON) > 0 {
		e, err := parseErrorDocument(errJSON)
		if err != nil {
			return &Error{Code: CodeInternal, Message: fmt.Sprintf("unreadable error document (status %d): %v", st, err)}
		}
		return e
	}
	switch st {
	case statusNullArgument:
		return ErrNullArgument
	case statusInvalidLength:
		return ErrInvalidLength
	case statusPanic:
		return &Error{Code: CodeInternal, Message: statusMessage(st)}
	default:
		// Invalid input without its document, or a status newer than this package: never expected.
		return &Error{Code: CodeInternal, Message: fmt.Sprintf("status %d without an error document: %s", st, statusMessage(st))}
	}
}

// parseErrorDocument reads {"error": {"code", "message", "path"}}, rejecting anything else.
func parseErrorDocument(doc []byte) (*Error, error) {
	var wrapper struct {
		Error *Error `json:"error"`
	}
	if err := decodeStrict(doc, &wrapper); err != nil {
		return nil, err
	}
	if wrapper.Error == nil || wrapper.Error.Code == "" {
		return nil, errors.New("no error.code")
	}
	return wrapper.Error, nil
}

// decodeStrict decodes one JSON value, refusing unknown members and trailing data: the library and this package
// are built from one repository, so a member this package does not know is a drift the tests must catch.
func decodeStrict(doc []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the document")
	}
	return nil
}
