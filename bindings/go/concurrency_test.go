package curbi

// One compiled Policy, many goroutines; Close racing with checks; finalizers and KeepAlive under collection.

import (
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

	const goroutines, rounds = 64, 20
	var wg sync.WaitGroup
	var mismatches atomic.Int64
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range rounds {
				// Each goroutine walks the replies from a different start, so different replies run at once.
				for k := range sharedReplies {
					i := (g + round + k) % len(sharedReplies)
					got, err := p.Check(sharedReplies[i], nil)
					if err != nil {
						errs <- err
						return
					}
					if !reflect.DeepEqual(got, want[i]) {
						if mismatches.Add(1) == 1 {
							errs <- fmt.Errorf("%q: concurrent %+v, sequential %+v", sharedReplies[i], got, want[i])
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := mismatches.Load(); n != 0 {
		t.Errorf("%d of %d concurrent checks disagreed with the sequential results", n, goroutines*rounds*len(sharedReplies))
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
		var wg sync.WaitGroup
		start := make(chan struct{})
		var ok, closed atomic.Int64
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for {
					got, err := p.Check(sharedReplies[8], nil)
					switch {
					case errors.Is(err, ErrClosed):
						closed.Add(1)
						return
					case err != nil:
						t.Error(err)
						return
					case !reflect.DeepEqual(got, want):
						t.Errorf("got %+v", got)
						return
					}
					ok.Add(1)
				}
			}()
		}
		close(start)
		runtime.Gosched()
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Check(sharedReplies[8], nil); !errors.Is(err, ErrClosed) {
			t.Fatalf("after Close: want ErrClosed, got %v", err)
		}
		wg.Wait()
		if closed.Load() != 16 {
			t.Fatalf("%d of 16 goroutines saw ErrClosed", closed.Load())
		}
	}
}

// TestFinalizersUnderGC drops Policies right after one Check, without Close, while the collector runs at
// GOGC=1 and from a second goroutine: the finalizer may free a Policy only once no check uses it (KeepAlive).
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
	expectLeak(p)
	return p.Check(reply, nil)
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
