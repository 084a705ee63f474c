//go:build debug

package curbi

// Debug builds: finalizers report Policies and Verifiers that were never closed. Run with GOGC=1 (test.sh) to
// stress them.

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

// afterTests fails the run when any Policy or Verifier made by the tests was finalized without Close and not on
// purpose.
func afterTests() int {
	collectUntil(func() bool { return false }, 300*time.Millisecond)
	if n := leakedHandles.Load(); n != 0 {
		fmt.Fprintf(os.Stderr, "curbi debug: %d Policies and Verifiers were garbage-collected without Close (stacks logged above)\n", n)
		return 1
	}
	return 0
}

// makeAndDrop makes n Policies and n Verifiers, closes them or not, and lets them go unreachable. onPurpose
// marks them with expectLeak.
func makeAndDrop(t *testing.T, n int, onPurpose, closeThem bool) {
	t.Helper()
	options, _ := validProof(t)
	for range n {
		p, err := CompilePolicy([]byte(`{"prices":[{"item":"Pro","amount":49}]}`))
		if err != nil {
			t.Fatal(err)
		}
		v, err := NewVerifier(options)
		if err != nil {
			t.Fatal(err)
		}
		if onPurpose {
			expectLeak(&p.owned)
			expectLeak(&v.owned)
		}
		if closeThem {
			_, _ = p.Close(), v.Close()
		}
	}
}

func TestDebugFinalizerFreesLeakedHandles(t *testing.T) {
	before := expectedLeaks.Load()
	makeAndDrop(t, 100, true, false)
	if !collectUntil(func() bool { return expectedLeaks.Load()-before >= 200 }, 10*time.Second) {
		t.Fatalf("finalizers ran for %d of 200 leaked Policies and Verifiers", expectedLeaks.Load()-before)
	}
}

func TestDebugClosedHandlesAreNotReported(t *testing.T) {
	leakedBefore, expectedBefore := leakedHandles.Load(), expectedLeaks.Load()
	// expectLeak on each: it would be counted if the finalizer still ran after Close.
	makeAndDrop(t, 100, true, true)
	collectUntil(func() bool { return false }, 200*time.Millisecond)
	if d := expectedLeaks.Load() - expectedBefore; d != 0 {
		t.Errorf("%d closed Policies and Verifiers were reported by their finalizer", d)
	}
	if d := leakedHandles.Load() - leakedBefore; d != 0 {
		t.Errorf("%d Policies and Verifiers leaked meanwhile", d)
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

func TestDebugUnclosedHandlesAreLoggedWithTheirStacks(t *testing.T) {
	var out syncBuffer
	log.SetOutput(&out)
	defer log.SetOutput(os.Stderr)
	before := leakedHandles.Load()
	makeAndDrop(t, 1, false, false)
	if !collectUntil(func() bool { return leakedHandles.Load()-before >= 2 }, 10*time.Second) {
		t.Fatal("an unclosed Policy and Verifier were never reported")
	}
	// These leaks were the test's own: take them back so afterTests does not fail the run.
	leakedHandles.Add(-2)
	msg := out.String()
	for _, kind := range []string{"a Policy", "a Verifier"} {
		if !strings.Contains(msg, kind+" was garbage-collected without Close") {
			t.Errorf("the report should say that %s was not closed; got:\n%s", kind, msg)
		}
	}
	if strings.Count(msg, "TestDebugUnclosedHandlesAreLoggedWithTheirStacks") < 2 {
		t.Errorf("the reports should say where each handle was made; got:\n%s", msg)
	}
}
