//! libcurbi.so's SONAME: `libcurbi.so.<major>` (0 while the version is 0.x; the ABI may change with each minor
//! release before 1.0, docs/ABI.md), so a program linked against it records which ABI it needs. `make install`
//! installs the library as libcurbi.so.<version> with the libcurbi.so.<major> and libcurbi.so links.
fn main() {
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_else(|_| "0".into());
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcurbi.so.{major}");
    }
}
