//go:build cgo && curbi_pkgconfig

package curbi

// -tags curbi_pkgconfig: the header and libcurbi.a from pkg-config's curbi-static (`make install PREFIX=…`
// writes it to PREFIX/lib/pkgconfig; set PKG_CONFIG_PATH to that folder when PREFIX is not a system one).
// curbi-static names libcurbi.a by its full path, so programs do not need libcurbi.so at run time.

/*
#cgo pkg-config: curbi-static
*/
import "C"
