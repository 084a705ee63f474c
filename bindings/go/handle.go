package curbi

// owned: a handle of the library (a compiled policy, a verifier) behind a Go value that goroutines share.

import (
	"runtime"
	"sync"
)

// owned holds one handle the library made, a C pointer P (*cPolicy, *cVerifier: cgo's incomplete struct types
// cannot be type arguments, pointers to them can). Calls use it under the read lock and Close frees it under the
// write lock, so the handle is never freed while C uses it, and calls that start after Close get ErrClosed.
type owned[P comparable] struct {
	// mu guards ptr: use holds it for reading during the C call, close for writing while it frees.
	mu   sync.RWMutex
	ptr  P // the zero value (nil) once closed
	free func(P)
	leak leakInfo // debug builds: where the handle was made (leak_debug.go)
}

// hold takes ownership of a handle the library just made; free releases it. kind names the Go type (Policy,
// Verifier) in debug builds' leak reports.
func (o *owned[P]) hold(ptr P, free func(P), kind string) {
	o.ptr, o.free = ptr, free
	o.leak.record(kind)
}

// use is the only way to the C handle: it calls f with it under the read lock, or returns ErrClosed after close.
// The caller keeps the value that holds o alive (runtime.KeepAlive) until use returns, so that its finalizer
// cannot free the handle under C's feet.
func (o *owned[P]) use(f func(P) ([]byte, error)) ([]byte, error) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	var closed P
	if o.ptr == closed {
		return nil, ErrClosed
	}
	return f(o.ptr)
}

// close frees the handle once the calls running on it have returned. It reports whether it freed it (false
// when it was already closed).
func (o *owned[P]) close() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	var closed P
	if o.ptr == closed {
		return false
	}
	o.free(o.ptr)
	o.ptr = closed
	return true
}

// handle is the owned value itself; Policy, Verifier and Recorder embed one, so it makes them holders.
func (o *owned[P]) handle() *owned[P] { return o }

// holder is what Policy, Verifier and Recorder share: a pointer to a Go value (H, e.g. *Policy) that embeds the
// owned handle of the library (P, e.g. *cPolicy).
type holder[T any, P comparable] interface {
	*T
	handle() *owned[P]
}

// own wraps a handle the library just made (or the error that made none) in a new T whose finalizer frees it if
// Close is forgotten. kind names T in debug builds' leak reports.
func own[T any, H holder[T, P], P comparable](ptr P, err error, free func(P), kind string) (H, error) {
	if err != nil {
		return nil, err
	}
	v := H(new(T))
	v.handle().hold(ptr, free, kind)
	runtime.SetFinalizer(v, finalize[T, H, P])
	return v, nil
}

// call runs f on v's handle under its read lock: ErrClosed for a nil or closed v. v stays reachable until the C
// call has returned (runtime.KeepAlive); without that, v could become unreachable during the call and its
// finalizer free the handle under C's feet.
func call[T any, H holder[T, P], P comparable](v H, f func(P) ([]byte, error)) ([]byte, error) {
	if v == nil {
		return nil, ErrClosed
	}
	doc, err := v.handle().use(f)
	runtime.KeepAlive(v)
	return doc, err
}

// release is every Close: it frees v's handle once the calls running on it have returned, and then needs no
// finalizer. A nil or closed v is a no-op.
func release[T any, H holder[T, P], P comparable](v H) {
	if v != nil && v.handle().close() {
		runtime.SetFinalizer(v, nil)
	}
}

// finalize is the safety net for a value that was never closed.
func finalize[T any, H holder[T, P], P comparable](v H) {
	v.handle().leak.report()
	release(v)
}
