//go:build !debug

package curbi

// afterTests has nothing to check outside debug builds (leak_debug_test.go).
func afterTests() int { return 0 }
