//! Compiles `csrc/mathref.c` (long double reference values for
//! `tests/double_math.rs`) with the system C compiler (`$CC`, else `cc`;
//! gcc in vendor.json) into a static library linked into the tests.

use std::path::PathBuf;
use std::process::Command;

fn run(cmd: &mut Command) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(status.success(), "{cmd:?} failed");
}

fn main() {
    let src = "csrc/mathref.c";
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rerun-if-env-changed=CC");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let obj = out.join("mathref.o");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    // No -ffast-math or contraction: the reference must round as written.
    run(Command::new(&cc)
        .args(["-O2", "-fPIC", "-ffp-contract=off", "-c", src, "-o"])
        .arg(&obj));
    let ar = std::env::var("AR").unwrap_or_else(|_| "ar".into());
    run(Command::new(ar)
        .arg("crs")
        .arg(out.join("libferrocl_mathref.a"))
        .arg(&obj));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=ferrocl_mathref");
    println!("cargo:rustc-link-lib=m");
}
