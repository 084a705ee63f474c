package curbi

// One Policy or Verifier, many goroutines; Close racing with calls; finalizers and KeepAlive under collection.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
)

// sharedPolicy exercises every kind of rule; sharedReplies hit each of them, most on non-ASCII text.
const sharedPolicy = `{
  "prices": [{"item":"Starter","amount":49},{"item":"Pro","amounts":[49,490]},{"item":"Team","amount":99}],
  "discounts": [{"percent":10}],
  "forbid": [{"id":"guarantee","phrases":["guarantee"]},{"id":"garanti","phrases":["garanti"],"match":"prefix"}],
  "actions": {"canceled":"orders.cancel","refunded":"billing.refund"}
}`

var sharedReplies = []string{
	"Starter is $99 a month.",
	"🙂 Starter is $99 a month.",
	"Hi Renée, Pro is $59 a month.",
	"您好！Pro 方案是 $59 每月。",
	"👩‍💻 Our team 👍🏽 confirms: Pro is $59.",
	"İyi günler! Tüm ürünlerimiz GARANTİLİDİR.",
	"☕ Your café order was canceled ✅",
	"🔥🔥 Team is 30% off this week!",
	"We guarantee it. Your order was refunded and Team is $89.10 with 10% off.",
	"Nothing to see here.",
	"",
}

func TestConcurrentChecksAgreeWithSequential(t *testing.T) {
	p := mustCompile(t, sharedPolicy)
	want := make([]*Result, len(sharedReplies))
	findings := 0
	for i, r := range sharedReplies {
		res, err := p.Check(r, nil)
		if err != nil {
			t.Fatalf("%q: %v", r, err)
		}
		want[i] = res
		findings += len(res.Findings)
	}
	if findings < len(sharedReplies)/2 {
		t.Fatalf("only %d findings in %d replies: the comparison below would prove little", findings, len(sharedReplies))
	}
	agreeConcurrently(t, 64, 20, len(sharedReplies), func(i int) error {
		got, err := p.Check(sharedReplies[i], nil)
		if err == nil && !reflect.DeepEqual(got, want[i]) {
			err = fmt.Errorf("%q: concurrent %+v, sequential %+v", sharedReplies[i], got, want[i])
		}
		return err
	})
}

func TestConcurrentVerificationsAgreeWithSequential(t *testing.T) {
	options, bundle := validProof(t)
	v := mustVerifier(t, options)
	bundles := [][]byte{bundle, []byte(`{"object":"curbi.proof/0.1","x":1}`), []byte(`{"head":"a","head":"b"}`)}
	want := make([]*Verification, len(bundles))
	for i, b := range bundles {
		res, err := v.Verify(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		want[i] = res
	}
	if !want[0].OK || want[1].OK {
		t.Fatalf("the first bundle should verify and the second not: %+v, %+v", want[0], want[1])
	}
	agreeConcurrently(t, 16, 10, len(bundles), func(i int) error {
		got, err := v.Verify(bundles[i])
		if err == nil && !bytes.Equal(got.Document, want[i].Document) {
			err = fmt.Errorf("%s: concurrent %s, sequential %s", bundles[i], got.Document, want[i].Document)
		}
		return err
	})
}

// agreeConcurrently runs call(i) for every i < n, rounds times, from each of goroutines goroutines at once, each
// walking from a different start so that different inputs run at once. call returns an error when its result
// disagrees with the sequential one; the first is reported, with how many there were.
func agreeConcurrently(t *testing.T, goroutines, rounds, n int, call func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	var mismatches atomic.Int64
	first := make(chan error, 1)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range rounds {
				for k := range n {
					if err := call((g + round + k) % n); err != nil && mismatches.Add(1) == 1 {
						first <- err
					}
				}
			}
		}()
	}
	wg.Wait()
	if bad := mismatches.Load(); bad != 0 {
		t.Errorf("%d of %d concurrent calls disagreed with the sequential results; the first: %v", bad,
			goroutines*rounds*n, <-first)
	}
}

// TestCloseWhileChecking is the documented misuse: Close during checks. Every check either gives the right
// result or ErrClosed, Close returns, and every check after it is ErrClosed. Nothing crashes.
func TestCloseWhileChecking(t *testing.T) {
	for range 20 {
		p, err := CompilePolicy([]byte(sharedPolicy))
		if err != nil {
			t.Fatal(err)
		}
		want, err := p.Check(sharedReplies[8], nil)
		if err != nil {
			t.Fatal(err)
		}
		closeWhileCalling(t, p.Close, func() error {
			got, err := p.Check(sharedReplies[8], nil)
			if err == nil && !reflect.DeepEqual(got, want) {
				err = fmt.Errorf("got %+v", got)
			}
			return err
		})
	}
}

// TestCloseWhileVerifying: the same misuse with a Verifier.
func TestCloseWhileVerifying(t *testing.T) {
	options, bundle := validProof(t)
	for range 20 {
		v, err := NewVerifier(options)
		if err != nil {
			t.Fatal(err)
		}
		want, err := v.Verify(bundle)
		if err != nil {
			t.Fatal(err)
		}
		closeWhileCalling(t, v.Close, func() error {
			got, err := v.Verify(bundle)
			if err == nil && !bytes.Equal(got.Document, want.Document) {
				err = fmt.Errorf("got %s", got.Document)
			}
			return err
		})
	}
}

// closeWhileCalling runs call in a loop on 16 goroutines and closes the handle meanwhile: call must give the right
// result (nil) until it gives ErrClosed, and ErrClosed from then on.
func closeWhileCalling(t *testing.T, closeHandle func() error, call func() error) {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	var closed atomic.Int64
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for {
				err := call()
				if errors.Is(err, ErrClosed) {
					closed.Add(1)
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	close(start)
	runtime.Gosched()
	if err := closeHandle(); err != nil {
		t.Fatal(err)
	}
	if err := call(); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: want ErrClosed, got %v", err)
	}
	wg.Wait()
	if closed.Load() != 16 {
		t.Fatalf("%d of 16 goroutines saw ErrClosed", closed.Load())
	}
}

// TestFinalizersUnderGC drops Policies and Verifiers right after one call, without Close, while the collector
// runs at GOGC=1 and from a second goroutine: the finalizer may free a handle only once no call uses it
// (KeepAlive).
func TestFinalizersUnderGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	stop := make(chan struct{})
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	want := Finding{"price:mismatch", [2]int{16, 19}, "$99", "Starter is $49, not $99."}
	options, bundle := validProof(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				res, err := checkOnce(`{"prices":[{"item":"Starter","amount":49}]}`, "🙂 Starter is $99 a month.")
				if err != nil {
					t.Error(err)
					return
				}
				if len(res.Findings) != 1 || res.Findings[0] != want {
					t.Errorf("got %+v", res.Findings)
					return
				}
				if v, err := verifyOnce(options, bundle); err != nil || !v.OK {
					t.Errorf("got %+v, %v", v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-gcDone
}

// checkOnce compiles, checks once and drops the Policy: nothing refers to it once Check has its handle.
func checkOnce(policy, reply string) (*Result, error) {
	p, err := CompilePolicy([]byte(policy))
	if err != nil {
		return nil, err
	}
	expectLeak(&p.owned)
	return p.Check(reply, nil)
}

// verifyOnce makes a Verifier, verifies once and drops it.
func verifyOnce(options, bundle []byte) (*Verification, error) {
	v, err := NewVerifier(options)
	if err != nil {
		return nil, err
	}
	expectLeak(&v.owned)
	return v.Verify(bundle)
}

// TestVersion: the linked library, the header it was compiled against and Cargo.toml agree.
func TestVersion(t *testing.T) {
	cargo, err := os.ReadFile(filepath.Join("..", "..", "Cargo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\[workspace\.package\].*?\nversion = "([^"]+)"`).FindSubmatch(cargo)
	if m == nil {
		t.Fatal("no [workspace.package] version in Cargo.toml")
	}
	if v := Version(); v != string(m[1]) || v != headerVersion {
		t.Errorf("Version() = %q, header %q, Cargo.toml %q", v, headerVersion, m[1])
	}
}
