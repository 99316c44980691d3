//! The measurement switch `FERROCL_TIME_PASSES=1`: every external tool run
//! (`tools::run_tool`), every pass of the pipeline (`dump::Pass`), the
//! per-kernel spirv-val and reflection, and each public entry point
//! (`build_source`, `build_il`, `compile_source`, `link_objects`) print
//! their wall time to stderr, one line each:
//!
//! ```text
//! ferrocl-time:   412.3 ms  tool clang-15 -cc1 ... input.cl
//! ferrocl-time:    31.0 ms  pass 16-structurize_cfgs
//! ferrocl-time:     8.2 ms  pass 20-k-lower_kernel
//! ferrocl-time:  1234.5 ms  build_source (3 kernels)
//! ```
//!
//! Nesting is not indented: a pass's time includes the tools it ran,
//! each printed before it. Read once per process.

use std::fmt::Display;
use std::sync::OnceLock;
use std::time::Instant;

use crate::dump::Pass;

/// Whether `FERROCL_TIME_PASSES` is set (to anything but `0` or empty).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var_os("FERROCL_TIME_PASSES").is_some_and(|v| !v.is_empty() && v != "0")
    })
}

/// Prints one line: the time since `start` and `what`.
pub fn report(start: Instant, what: impl Display) {
    if enabled() {
        let ms = start.elapsed().as_secs_f64() * 1e3;
        eprintln!("ferrocl-time: {ms:9.1} ms  {what}");
    }
}

/// Runs `f`, reporting its time as `what` (formatted only when enabled).
pub fn time<T>(what: impl FnOnce() -> String, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let start = Instant::now();
    let r = f();
    report(start, what());
    r
}

/// Runs pass `pass` (of `kernel` for a per-kernel pass), reporting its
/// time under the pass's dump file name.
pub fn pass<T>(pass: Pass, kernel: Option<&str>, f: impl FnOnce() -> T) -> T {
    time(
        || {
            let name = pass.file_name(kernel);
            let stem = name.rsplit_once('.').map_or(&name[..], |(s, _)| s);
            format!("pass {stem}")
        },
        f,
    )
}
