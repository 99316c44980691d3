//! The external tools the compiler drives (vendor.json's `runtime` section)
//! and the per-build scratch directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::BuildError;

/// One external tool: its default path (vendor.json) and the environment
/// variable that overrides it.
#[derive(Clone, Copy, Debug)]
pub struct Tool {
    pub default: &'static str,
    pub env: &'static str,
}

pub const CLANG: Tool = Tool {
    default: "/usr/bin/clang-15",
    env: "FERROCL_CLANG",
};
pub const LLVM_SPIRV: Tool = Tool {
    default: "/usr/bin/llvm-spirv-15",
    env: "FERROCL_LLVM_SPIRV",
};
pub const LLVM_LINK: Tool = Tool {
    default: "/usr/bin/llvm-link-15",
    env: "FERROCL_LLVM_LINK",
};
pub const LLVM_EXTRACT: Tool = Tool {
    default: "/usr/bin/llvm-extract-15",
    env: "FERROCL_LLVM_EXTRACT",
};
/// libclc's SPIR-V library: a file, not a program (`frontend::libclc`).
pub const LIBCLC: Tool = Tool {
    default: "/usr/lib/clc/spirv64-mesa3d-.spv",
    env: "FERROCL_LIBCLC",
};
pub const OPT: Tool = Tool {
    default: "/usr/bin/opt-15",
    env: "FERROCL_OPT",
};
pub const SPIRV_VAL: Tool = Tool {
    default: "/usr/bin/spirv-val",
    env: "FERROCL_SPIRV_VAL",
};

impl Tool {
    pub fn path(&self) -> PathBuf {
        match std::env::var_os(self.env) {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => PathBuf::from(self.default),
        }
    }
}

/// What a finished tool run printed.
pub struct ToolOutput {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `tool` with `args` in `cwd`; failing to start it at all is an error
/// naming the tool and its environment variable.
pub fn run_tool(
    tool: Tool,
    args: &[&std::ffi::OsStr],
    cwd: &Path,
) -> Result<ToolOutput, BuildError> {
    let path = tool.path();
    let start = std::time::Instant::now();
    let out = Command::new(&path)
        .args(args)
        .current_dir(cwd)
        .output()
        .map_err(|e| {
            BuildError::failure(format!(
                "cannot run {} ({e}); install it or set {}",
                path.display(),
                tool.env
            ))
        })?;
    if crate::timing::enabled() {
        let name = path
            .file_name()
            .unwrap_or(path.as_os_str())
            .to_string_lossy();
        let mut line: String = args
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ");
        if line.len() > 120 {
            let cut = (0..=120)
                .rev()
                .find(|&i| line.is_char_boundary(i))
                .unwrap_or(0);
            line.truncate(cut);
            line.push_str(" ...");
        }
        crate::timing::report(start, format_args!("tool {name} {line}"));
    }
    Ok(ToolOutput {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// A scratch directory unique to one build (pid + counter), removed on drop.
pub struct ScratchDir {
    pub path: PathBuf,
}

impl ScratchDir {
    pub fn new() -> Result<Self, BuildError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("ferrocl-{}-{n}", std::process::id()));
        // A stale directory of an earlier process with our pid: start clean.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .map_err(|e| BuildError::failure(format!("cannot create {}: {e}", path.display())))?;
        Ok(ScratchDir { path })
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The instructions of a SPIR-V module after its 5-word header: `Ok((word
/// index, words))` each; a malformed word count (0, or past the end) ends
/// the walk with `Err(rest)`, the remaining words unparsed.
pub fn instructions(words: &[u32]) -> impl Iterator<Item = Result<(usize, &[u32]), &[u32]>> {
    let mut i = words.len().min(5);
    std::iter::from_fn(move || {
        let start = i;
        let count = (*words.get(i)? >> 16) as usize;
        if count == 0 || i + count > words.len() {
            i = words.len();
            return Some(Err(&words[start..]));
        }
        i += count;
        Some(Ok((start, &words[start..i])))
    })
}

/// A module rebuilt instruction by instruction: its header, then what `f`
/// pushes for each instruction (a malformed rest is kept as it is).
pub fn rewrite_instructions(words: &[u32], mut f: impl FnMut(&[u32], &mut Vec<u32>)) -> Vec<u32> {
    let mut out = words[..words.len().min(5)].to_vec();
    for inst in instructions(words) {
        match inst {
            Ok((_, inst)) => f(inst, &mut out),
            Err(rest) => out.extend_from_slice(rest),
        }
    }
    out
}

/// Little-endian bytes to words (SPIR-V files may also be big-endian: the
/// magic number tells).
pub fn bytes_to_words(bytes: &[u8]) -> Option<Vec<u32>> {
    if bytes.len() & 3 != 0 || bytes.len() < 20 {
        return None;
    }
    let le: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if le[0] == 0x0723_0203 {
        return Some(le);
    }
    let be: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (be[0] == 0x0723_0203).then_some(be)
}

/// The literal string starting at `words[0]` (NUL-terminated, packed).
pub fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `$FERROCL_CACHE_DIR`, else `$XDG_CACHE_HOME/ferrocl`, else
/// `~/.cache/ferrocl` (shared with the runtime's VkPipelineCache files).
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("FERROCL_CACHE_DIR") {
        return (!d.is_empty()).then(|| PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("ferrocl"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("ferrocl"))
}

/// `text` assembled by spirv-as for `env` (e.g. `spv1.2`), as words: the
/// small modules of unit tests (spirv-as does not validate them).
#[cfg(test)]
pub fn spirv_as(text: &str, env: &str) -> Vec<u32> {
    let dir = std::env::temp_dir().join(format!(
        "ferrocl-spirv-as-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("m.spvasm"), text).unwrap();
    let ok = std::process::Command::new("spirv-as")
        .args(["--target-env", env, "m.spvasm", "-o", "m.spv"])
        .current_dir(&dir)
        .status()
        .expect("spirv-as")
        .success();
    assert!(ok, "spirv-as failed");
    let bytes = std::fs::read(dir.join("m.spv")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    bytes_to_words(&bytes).unwrap()
}

/// Asserts that spirv-val (of `vendor.json`) with `args` (e.g.
/// `--target-env vulkan1.1`) takes `words`: the small modules of unit
/// tests.
#[cfg(test)]
pub fn assert_spirv_val(words: &[u32], args: &[&str]) {
    let path = std::env::temp_dir().join(format!(
        "ferrocl-spirv-val-{}-{:?}.spv",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&path, words_to_bytes(words)).unwrap();
    let out = std::process::Command::new(SPIRV_VAL.path())
        .args(args)
        .arg(&path)
        .output()
        .expect("spirv-val");
    let _ = std::fs::remove_file(&path);
    assert!(
        out.status.success(),
        "spirv-val: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
