//go:build !cgo

// This package calls libcurbi (Rust, through its C ABI) with cgo, so it cannot be built with CGO_ENABLED=0. This
// file's package name is that message: with cgo off, the go command stops at once with "found packages curbi and
// curbi_needs_cgo_set_CGO_ENABLED_1_and_install_a_C_compiler", before any confusing "undefined: cPolicy".
package curbi_needs_cgo_set_CGO_ENABLED_1_and_install_a_C_compiler
