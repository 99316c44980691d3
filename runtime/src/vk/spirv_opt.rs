//! `FERROCL_SPIRV_OPT`: an experiment switch, not a feature. When set (to
//! spirv-opt's arguments, e.g. `-O`), every kernel module goes through the
//! external `spirv-opt` before Vulkan sees it, so that the effect of an
//! optimization on a driver's pipeline-creation time and kernel speed can
//! be measured before ferrocl's compiler does the same itself
//! (docs/performance.md says what was measured). A failure of the tool
//! leaves the module as it was and says why on stderr.

use std::io::Write;
use std::process::{Command, Stdio};

/// The arguments to run spirv-opt with, if the switch is set (read once).
fn arguments() -> Option<&'static [String]> {
    static ARGS: std::sync::OnceLock<Option<Vec<String>>> = std::sync::OnceLock::new();
    ARGS.get_or_init(|| {
        let v = std::env::var("FERROCL_SPIRV_OPT").ok()?;
        Some(v.split_whitespace().map(str::to_string).collect())
    })
    .as_deref()
}

/// `spirv` run through `spirv-opt` when `FERROCL_SPIRV_OPT` is set, else
/// `None` (use the module as it is).
pub fn optimize(spirv: &[u32]) -> Option<Vec<u32>> {
    let args = arguments()?;
    match run(args, spirv) {
        Ok(words) => Some(words),
        Err(e) => {
            eprintln!("ferrocl: FERROCL_SPIRV_OPT: {e}; the module is used as it was");
            None
        }
    }
}

fn run(args: &[String], spirv: &[u32]) -> Result<Vec<u32>, String> {
    let mut child = Command::new("spirv-opt")
        .args(args)
        .args(["-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spirv-opt: {e}"))?;
    let bytes: Vec<u8> = spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut stdin = child.stdin.take().ok_or("spirv-opt: no stdin")?;
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("spirv-opt: {e}"))?;
    let _ = writer.join();
    if !out.status.success() || out.stdout.len() % 4 != 0 {
        return Err(format!(
            "spirv-opt failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out
        .stdout
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}
