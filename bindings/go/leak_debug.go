//go:build debug

package curbi

// Debug builds (-tags debug): a Policy that is garbage-collected without Close is counted and logged with the
// stack that compiled it, so tests (run with GOGC=1) find every missing Close and exercise the finalizers.

import (
	"log"
	"runtime/debug"
	"sync/atomic"
)

// leakInfo is where a Policy was compiled.
type leakInfo struct {
	stack []byte
	// expected marks a Policy a test leaks on purpose (expectLeak).
	expected bool
}

var (
	// leakedPolicies counts Policies finalized without Close that nobody expected; the tests fail on any.
	leakedPolicies atomic.Int64
	// expectedLeaks counts Policies finalized without Close after expectLeak.
	expectedLeaks atomic.Int64
)

const debugBuild = true

func (l *leakInfo) record() {
	l.stack = debug.Stack()
}

func (l *leakInfo) report() {
	if l.expected {
		expectedLeaks.Add(1)
		return
	}
	log.Printf("curbi: a Policy was garbage-collected without Close; compiled at:\n%s", l.stack)
	leakedPolicies.Add(1) // after the log line, so whoever sees the count can read the line
}

// expectLeak marks p as leaked on purpose (finalizer tests), so it is counted apart.
func expectLeak(p *Policy) {
	p.leak.expected = true
}
