//go:build cgo && !curbi_pkgconfig

package curbi

// Links this repository's build: the header from include/ and libcurbi.a from target/release (run
// `cargo build --release -p curbi-ffi` at the repository root first). -l:libcurbi.a names the static library
// itself: -lcurbi would find libcurbi.so first and make every Go program depend on it at run time. -lm -ldl
// -lpthread are the system libraries the Rust standard library in libcurbi.a needs.
//
// Any other folder (CARGO_TARGET_DIR, a download): go searches CGO_CFLAGS and CGO_LDFLAGS before these, so
//
//	CGO_CFLAGS="-I$DIR/include" CGO_LDFLAGS="-L$CARGO_TARGET_DIR/release" go build
//
// links that library instead. After `make install PREFIX=…`, build with -tags curbi_pkgconfig (link_pkgconfig.go).

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -l:libcurbi.a -lm -ldl -lpthread
*/
import "C"
