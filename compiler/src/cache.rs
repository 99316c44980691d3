//! The on-disk cache of built programs (DESIGN §3: "the compiler's output
//! [is] cached on disk").
//!
//! One file per build under `<cache dir>/programs/`, named by a 128-bit
//! hash of the key material and holding that material in full, then the
//! executable in ferrocl's binary format (`backend::binary`). A hit must
//! match the key byte for byte, so a hash collision can only cost a
//! rebuild.
//!
//! The key: the compiler's own source fingerprint (build.rs; any change
//! to the compiler invalidates every entry), the identity (path, size,
//! modification time) of each external tool and of libclc's library, the device's `DeviceCaps`,
//! the options, and the input (source text or IL). Not cached: builds that
//! may read files the key does not cover (`#include`, `-I`), failed
//! builds, and builds while `FERROCL_DUMP` asks for pass dumps.
//!
//! `FERROCL_CACHE_DIR` (default `$XDG_CACHE_HOME/ferrocl`, else
//! `~/.cache/ferrocl`) moves the cache; `FERROCL_NO_COMPILE_CACHE=1` turns
//! it off. The directory is trimmed to [`TRIM_TO`] bytes (oldest first)
//! when a process first writes to it and finds more than [`LIMIT`].

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Once;

use crate::backend::binary::{decode_binary, encode_binary, Binary, BinaryContent};
use crate::caps::DeviceCaps;
use crate::program::Program;
use crate::tools::{CLANG, LIBCLC, LLVM_EXTRACT, LLVM_LINK, LLVM_SPIRV, SPIRV_VAL};

/// Above this many bytes of cached programs, trim to [`TRIM_TO`].
pub const LIMIT: u64 = 512 << 20;
pub const TRIM_TO: u64 = 256 << 20;

const MAGIC: &[u8; 8] = b"FCLCACHE";

pub use crate::tools::cache_dir;

/// What a build is compiled from.
pub enum Input<'a> {
    Source(&'a str),
    Il(&'a [u8]),
}

/// The cache entry of one build, or `None` when this build is not cached.
pub struct Entry {
    path: PathBuf,
    key: Vec<u8>,
}

fn tool_identity(out: &mut Vec<u8>) {
    for tool in [
        CLANG,
        LLVM_SPIRV,
        LLVM_LINK,
        LLVM_EXTRACT,
        LIBCLC,
        SPIRV_VAL,
    ] {
        let path = tool.path();
        out.extend_from_slice(path.to_string_lossy().as_bytes());
        if let Ok(m) = std::fs::metadata(&path) {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            out.extend_from_slice(format!(" {} {mtime};", m.len()).as_bytes());
        }
    }
}

/// Two independent FNV-1a 64 hashes (different offset bases): a 128-bit
/// file name. Collisions are harmless (the key is compared in full).
fn name(key: &[u8]) -> String {
    let h = |basis: u64| {
        key.iter().fold(basis, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    format!(
        "{:016x}{:016x}",
        h(0xcbf2_9ce4_8422_2325),
        h(0x6c62_272e_07bb_0142)
    )
}

impl Entry {
    /// The entry for building `input` with `options` for `caps`.
    pub fn new(input: &Input, options: &str, caps: &DeviceCaps) -> Option<Entry> {
        if std::env::var_os("FERROCL_NO_COMPILE_CACHE").is_some() || crate::dump::enabled() {
            return None;
        }
        if options.contains("-I") {
            return None;
        }
        let mut key = Vec::new();
        key.extend_from_slice(crate::COMPILER_ID.as_bytes());
        key.push(0);
        tool_identity(&mut key);
        key.push(0);
        key.extend_from_slice(format!("{caps:?}").as_bytes());
        key.push(0);
        key.extend_from_slice(format!("{:?}", crate::passes::lower::wide_access()).as_bytes());
        key.push(0);
        key.extend_from_slice(options.as_bytes());
        key.push(0);
        match input {
            Input::Source(s) => {
                if s.contains("#include") {
                    return None;
                }
                key.push(b's');
                key.extend_from_slice(s.as_bytes());
            }
            Input::Il(il) => {
                key.push(b'i');
                key.extend_from_slice(il);
            }
        }
        let dir = cache_dir()?.join("programs");
        Some(Entry {
            path: dir.join(name(&key)),
            key,
        })
    }

    /// The same entry in another directory (tests).
    #[cfg(test)]
    fn in_dir(mut self, dir: &Path) -> Entry {
        self.path = dir.join(self.path.file_name().expect("a file name"));
        self
    }

    /// The cached program, if this exact build was stored (and still
    /// decodes: a stale or damaged file is a miss).
    pub fn load(&self, caps: &DeviceCaps) -> Option<Program> {
        let bytes = std::fs::read(&self.path).ok()?;
        let rest = bytes.strip_prefix(MAGIC.as_slice())?;
        let len = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?) as usize;
        let rest = &rest[8..];
        if rest.get(..len)? != self.key.as_slice() {
            return None;
        }
        match decode_binary(&rest[len..], caps).ok()?.content {
            BinaryContent::Executable(p) => Some(p),
            _ => None,
        }
    }

    /// Stores a successful build (best effort: a read-only or full disk
    /// only costs the next build its speed).
    pub fn store(&self, program: &Program, options: &str, caps: &DeviceCaps) {
        let Some(dir) = self.path.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        static TRIM: Once = Once::new();
        TRIM.call_once(|| trim(dir));
        let binary = encode_binary(
            &Binary {
                options: options.to_string(),
                content: BinaryContent::Executable(program.clone()),
            },
            caps,
        );
        // Write then rename: concurrent processes never see a torn file.
        let tmp = self.path.with_extension(format!(
            "tmp{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let written = std::fs::File::create(&tmp).and_then(|mut f| {
            f.write_all(MAGIC)?;
            f.write_all(&(self.key.len() as u64).to_le_bytes())?;
            f.write_all(&self.key)?;
            f.write_all(&binary)
        });
        if written.is_err() || std::fs::rename(&tmp, &self.path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// Deletes the oldest entries while the directory holds more than [`LIMIT`].
fn trim(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, u64, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            Some((m.modified().ok()?, m.len(), e.path()))
        })
        .collect();
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    if total <= LIMIT {
        return;
    }
    files.sort();
    for (_, len, path) in files {
        if total <= TRIM_TO {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total -= len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps() -> DeviceCaps {
        DeviceCaps {
            addressing: crate::abi::Addressing::Physical,
            max_push_constant_size: 128,
            fp64: true,
            fp16: false,
            int64_atomics: true,
            subgroup_size: 8,
            spirv_version: (1, 5),
            images: false,
            read_write_images: false,
            depth_images: false,
            mipmap_image: false,
            mipmap_image_write_args: 0,
            image2d_from_buffer_args: 0,
            fused_fma64: true,
            fused_fma32: true,
            denorms32: false,
            preserve_denorms: Default::default(),
            preserve_inf_nan: Default::default(),
            rmw_ordering: false,
            vulkan_memory_model: false,
            loop_limiter: false,
            soft_int64_division: false,
            wide_narrow_arithmetic: false,
            soft_long_sign_extension: false,
            branch_loop_exits: false,
            split_bitcasts_to_16bit: false,
            inline_functions: false,
            spill_loop_live_outs: false,
            integer_bool_phis: false,
            branch_buffer_selects: false,
            integer_dot_product: false,
            device_clock: false,
            subgroup_clock: false,
            max_num_sub_groups: 0,
            float_atomics: 0,
            khr_subgroups: true,
            subgroup_ops: 0x7f,
            descriptor: Default::default(),
        }
    }

    #[test]
    fn keys_separate_inputs_options_and_devices() {
        let c = caps();
        let a = Entry::new(&Input::Source("kernel void f() {}"), "", &c).unwrap();
        let b = Entry::new(&Input::Source("kernel void g() {}"), "", &c).unwrap();
        let o = Entry::new(&Input::Source("kernel void f() {}"), "-DX", &c).unwrap();
        let mut c2 = caps();
        c2.fp64 = false;
        let d = Entry::new(&Input::Source("kernel void f() {}"), "", &c2).unwrap();
        let names = [&a.path, &b.path, &o.path, &d.path];
        for i in 0..names.len() {
            for j in i + 1..names.len() {
                assert_ne!(names[i], names[j]);
            }
        }
        assert!(Entry::new(&Input::Source("#include \"x.h\""), "", &c).is_none());
        assert!(Entry::new(&Input::Source("kernel void f() {}"), "-I /tmp", &c).is_none());
    }

    #[test]
    fn stored_programs_load_back_and_damage_is_a_miss() {
        let dir = std::env::temp_dir().join(format!("ferrocl-cache-test-{}", std::process::id()));
        let c = caps();
        let src = "kernel void f(global int* a) { a[0] = 1; }";
        let e = Entry::new(&Input::Source(src), "-DN=1", &c)
            .unwrap()
            .in_dir(&dir);
        assert!(e.load(&c).is_none(), "empty cache");
        let p = crate::build_source(src, "-DN=1", &c).expect("builds");
        e.store(&p, "-DN=1", &c);
        let back = e.load(&c).expect("hit");
        assert_eq!(back.kernels.len(), 1);
        assert_eq!(back.kernels[0].name, "f");
        assert_eq!(back.kernels[0].spirv, p.kernels[0].spirv);
        // Other caps: the binary inside refuses them.
        let mut c2 = caps();
        c2.subgroup_size = 32;
        assert!(e.load(&c2).is_none());
        // A damaged file is a miss, not an error.
        let mut bytes = std::fs::read(&e.path).unwrap();
        let last = bytes.len() - 20;
        bytes[last] ^= 0xff;
        std::fs::write(&e.path, &bytes).unwrap();
        assert!(e.load(&c).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
