//! ferrocl's program binary format (CL_PROGRAM_BINARIES /
//! clCreateProgramWithBinary).
//!
//! Little-endian throughout:
//!
//! ```text
//! "FERROCL\0"                      magic, 8 bytes
//! u32 format version               FORMAT_VERSION
//! str fingerprint                  compiler version + external tools
//! caps                             the DeviceCaps it was compiled for
//!                                  (with its DescriptorOptions)
//! u32 kind                         1 compiled object, 2 library, 3 executable
//! str options                      the build / compile / link options
//! kind 1, 2: bytes                 LLVM bitcode
//! kind 3:    str log, u32 n, n × kernel (SPIR-V words + reflection),
//!            global variables (u64 size, u64 constant size, bytes init,
//!            u32 n, n × u32 relocation)
//! u64 checksum                     FNV-1a 64 of every byte before it
//! ```
//!
//! `str` and `bytes` are a u32 length then the bytes; `Option<T>` a u8 (0/1)
//! then `T`. A binary is accepted only when magic, version, fingerprint and
//! caps match exactly and the checksum holds, so a stale or corrupted
//! binary is refused (CL_INVALID_BINARY) rather than handed to the driver.
//! A binary edited with its checksum recomputed is caught by `check`: the
//! kernels' reflection must be consistent, and clCreateProgramWithBinary
//! validates their SPIR-V.

mod check;
mod read;
#[cfg(test)]
mod tests;
mod write;

use crate::abi::GlobalVariables;
use crate::caps::DeviceCaps;
use crate::program::Program;
pub use check::validate_executable;
use read::Reader;
use write::Writer;

const MAGIC: &[u8; 8] = b"FERROCL\0";
/// Bumped whenever the layout or the kernel ABI changes.
pub const FORMAT_VERSION: u32 = 28;

/// The compiler and tools a binary was made with.
fn fingerprint() -> String {
    format!(
        "ferrocl-compiler {}; clang-15; llvm-spirv-15",
        env!("CARGO_PKG_VERSION")
    )
}

/// What a binary holds.
#[derive(Clone, Debug)]
pub enum BinaryContent {
    /// clCompileProgram's output: bitcode.
    CompiledObject(Vec<u8>),
    /// clLinkProgram -create-library's output: bitcode.
    Library(Vec<u8>),
    Executable(Program),
}

/// A decoded binary.
#[derive(Clone, Debug)]
pub struct Binary {
    /// The options the program was built / compiled / linked with.
    pub options: String,
    pub content: BinaryContent,
}

/// Why a binary was refused.
#[derive(Clone, Debug, thiserror::Error)]
#[error("invalid ferrocl binary: {0}")]
pub struct BinaryError(pub String);

/// Serializes `binary` for a device with `caps`.
pub fn encode_binary(binary: &Binary, caps: &DeviceCaps) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    w.0.extend_from_slice(MAGIC);
    w.u32(FORMAT_VERSION);
    w.str(&fingerprint());
    w.caps(caps);
    match &binary.content {
        BinaryContent::CompiledObject(bc) => {
            w.u32(1);
            w.str(&binary.options);
            w.bytes(bc);
        }
        BinaryContent::Library(bc) => {
            w.u32(2);
            w.str(&binary.options);
            w.bytes(bc);
        }
        BinaryContent::Executable(p) => {
            w.u32(3);
            w.str(&binary.options);
            w.str(&p.log);
            w.u32(p.kernels.len() as u32);
            for k in &p.kernels {
                w.kernel(k);
            }
            let g = &p.global_variables;
            w.u64(g.size);
            w.u64(g.constant_size);
            w.bytes(&g.init);
            w.u32(g.relocations.len() as u32);
            for &r in &g.relocations {
                w.u32(r);
            }
        }
    }
    let sum = fnv1a(&w.0);
    w.u64(sum);
    w.0
}

/// Parses a binary made by `encode_binary` for a device with `caps`.
/// Never panics, whatever `bytes` holds.
pub fn decode_binary(bytes: &[u8], caps: &DeviceCaps) -> Result<Binary, BinaryError> {
    let err = |m: &str| BinaryError(m.to_string());
    if bytes.len() < MAGIC.len() + 4 + 8 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(err("not a ferrocl binary"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if fnv1a(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return Err(err("checksum mismatch (corrupted)"));
    }
    let mut r = Reader {
        data: body,
        pos: MAGIC.len(),
    };
    let version = r.u32()?;
    if version != FORMAT_VERSION {
        return Err(BinaryError(format!(
            "format version {version}, expected {FORMAT_VERSION}"
        )));
    }
    if r.str()? != fingerprint() {
        return Err(err("made by another compiler version"));
    }
    if r.caps()? != *caps {
        return Err(err("compiled for another device"));
    }
    let kind = r.u32()?;
    let options = r.str()?;
    let content = match kind {
        1 => BinaryContent::CompiledObject(r.bytes()?.to_vec()),
        2 => BinaryContent::Library(r.bytes()?.to_vec()),
        3 => {
            let log = r.str()?;
            let n = r.u32()?;
            let mut kernels = Vec::new();
            for _ in 0..n {
                let k = r.kernel()?;
                check::check_kernel_layout(&k, caps)?;
                kernels.push(k);
            }
            let size = r.u64()?;
            let constant_size = r.u64()?;
            let init = r.bytes()?.to_vec();
            if init.len() as u64 != size || constant_size > size {
                return Err(err("global variable data"));
            }
            let n = r.count(4)?;
            let mut relocations = Vec::with_capacity(n);
            for _ in 0..n {
                let at = r.u32()?;
                if at as u64 + 8 > size {
                    return Err(err("global variable relocation"));
                }
                relocations.push(at);
            }
            BinaryContent::Executable(Program {
                log,
                kernels,
                global_variables: GlobalVariables {
                    size,
                    constant_size,
                    init,
                    relocations,
                },
            })
        }
        _ => return Err(BinaryError(format!("unknown binary kind {kind}"))),
    };
    if r.pos != body.len() {
        return Err(err("trailing bytes"));
    }
    Ok(Binary { options, content })
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
