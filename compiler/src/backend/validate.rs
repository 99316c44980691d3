//! `validate_module`: spirv-val with the Vulkan 1.2 environment.

use std::ffi::OsStr;

use crate::error::BuildError;
use crate::tools::{self, run_tool, ScratchDir};

/// Runs `spirv-val --target-env vulkan1.2` on `words`, the module of
/// kernel `name` (written to the build's scratch directory as
/// `kernel-<index>.vk.spv`: kernel names may be longer than file names).
/// A module the validator rejects is our bug: an "internal compiler error"
/// with its message.
pub fn validate_module(
    words: &[u32],
    name: &str,
    index: usize,
    scratch: &ScratchDir,
) -> Result<(), BuildError> {
    let file = scratch.file(&format!("kernel-{index}.vk.spv"));
    std::fs::write(&file, tools::words_to_bytes(words))
        .map_err(|e| BuildError::failure(format!("cannot write a temporary file: {e}")))?;
    let args = [
        OsStr::new("--target-env"),
        OsStr::new("vulkan1.2"),
        file.as_os_str(),
    ];
    let out = run_tool(tools::SPIRV_VAL, &args, &scratch.path)?;
    if out.success {
        Ok(())
    } else {
        let msg = format!("{}{}", out.stdout, out.stderr);
        Err(BuildError::internal(format!(
            "kernel '{name}': invalid Vulkan SPIR-V: {}",
            msg.trim()
        )))
    }
}
