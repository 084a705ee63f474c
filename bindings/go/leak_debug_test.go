//go:build debug

package curbi

// Debug builds: finalizers report Policies that were never closed. Run with GOGC=1 (test.sh) to stress them.

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// collectUntil runs the collector until done() or the deadline; finalizers run on their own goroutine after
// a collection, so one runtime.GC is not enough.
func collectUntil(done func() bool, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		runtime.GC()
		if done() {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return done()
}

// afterTests fails the run when any Policy made by the tests was finalized without Close and not on purpose.
func afterTests() int {
	collectUntil(func() bool { return false }, 300*time.Millisecond)
	if n := leakedPolicies.Load(); n != 0 {
		fmt.Fprintf(os.Stderr, "curbi debug: %d Policies were garbage-collected without Close (stacks logged above)\n", n)
		return 1
	}
	return 0
}

// compileAndDrop compiles n policies and lets them go unreachable without Close.
func compileAndDrop(t *testing.T, n int, onPurpose bool) {
	t.Helper()
	for range n {
		p, err := CompilePolicy([]byte(`{"prices":[{"item":"Pro","amount":49}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if onPurpose {
			expectLeak(p)
		}
	}
}

func TestDebugFinalizerFreesLeakedPolicies(t *testing.T) {
	before := expectedLeaks.Load()
	compileAndDrop(t, 100, true)
	if !collectUntil(func() bool { return expectedLeaks.Load()-before >= 100 }, 10*time.Second) {
		t.Fatalf("finalizers ran for %d of 100 leaked Policies", expectedLeaks.Load()-before)
	}
}

func TestDebugClosedPoliciesAreNotReported(t *testing.T) {
	leakedBefore, expectedBefore := leakedPolicies.Load(), expectedLeaks.Load()
	for range 100 {
		p, err := CompilePolicy([]byte(`{"prices":[{"item":"Pro","amount":49}]}`))
		if err != nil {
			t.Fatal(err)
		}
		expectLeak(p) // would be counted if the finalizer still ran after Close
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	collectUntil(func() bool { return false }, 200*time.Millisecond)
	if d := expectedLeaks.Load() - expectedBefore; d != 0 {
		t.Errorf("%d closed Policies were reported by their finalizer", d)
	}
	if d := leakedPolicies.Load() - leakedBefore; d != 0 {
		t.Errorf("%d Policies leaked meanwhile", d)
	}
}

// syncBuffer is a log destination the finalizer goroutine and the test can share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestDebugUnclosedPolicyIsLoggedWithItsStack(t *testing.T) {
	var out syncBuffer
	log.SetOutput(&out)
	defer log.SetOutput(os.Stderr)
	before := leakedPolicies.Load()
	compileAndDrop(t, 1, false)
	if !collectUntil(func() bool { return leakedPolicies.Load() > before }, 10*time.Second) {
		t.Fatal("an unclosed Policy was never reported")
	}
	// This leak was the test's own: take it back so afterTests does not fail the run.
	leakedPolicies.Add(-1)
	msg := out.String()
	if !strings.Contains(msg, "without Close") || !strings.Contains(msg, "TestDebugUnclosedPolicyIsLoggedWithItsStack") {
		t.Errorf("the report should say what happened and where the Policy was compiled; got:\n%s", msg)
	}
}
