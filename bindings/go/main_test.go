package curbi

import (
	"os"
	"testing"
)

// TestMain runs the tests, then (in debug builds) fails if any Policy was garbage-collected without Close.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		code = afterTests()
	}
	os.Exit(code)
}
