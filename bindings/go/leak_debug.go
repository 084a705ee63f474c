//go:build debug

package curbi

// Debug builds (-tags debug): a Policy or Verifier that is garbage-collected without Close is counted and logged
// with the stack that made it, so tests (run with GOGC=1) find every missing Close and exercise the finalizers.

import (
	"log"
	"runtime/debug"
	"sync/atomic"
)

// leakInfo is what a handle is (Policy, Verifier) and where it was made.
type leakInfo struct {
	kind  string
	stack []byte
	// expected marks a handle a test leaks on purpose (expectLeak).
	expected bool
}

var (
	// leakedHandles counts Policies and Verifiers finalized without Close that nobody expected; the tests fail on
	// any.
	leakedHandles atomic.Int64
	// expectedLeaks counts Policies and Verifiers finalized without Close after expectLeak.
	expectedLeaks atomic.Int64
)

const debugBuild = true

func (l *leakInfo) record(kind string) {
	l.kind, l.stack = kind, debug.Stack()
}

func (l *leakInfo) report() {
	if l.expected {
		expectedLeaks.Add(1)
		return
	}
	log.Printf("curbi: a %s was garbage-collected without Close; made at:\n%s", l.kind, l.stack)
	leakedHandles.Add(1) // after the log line, so whoever sees the count can read the line
}

// expectLeak marks a Policy's or Verifier's handle as leaked on purpose (finalizer tests), so it is counted apart.
func expectLeak[P comparable](o *owned[P]) {
	o.leak.expected = true
}
