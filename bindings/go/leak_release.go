//go:build !debug

package curbi

// Release builds: the finalizer frees a Policy or Verifier that was never closed, silently. See leak_debug.go.

type leakInfo struct{}

const debugBuild = false

func (*leakInfo) record(string) {}
func (*leakInfo) report()       {}

// expectLeak is a no-op outside debug builds.
func expectLeak[P comparable](*owned[P]) {}
