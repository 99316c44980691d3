//! Embeds a fingerprint of the compiler's own sources (`FERROCL_COMPILER_SOURCE_HASH`)
//! so that the on-disk compile cache never serves output of an older
//! compiler: any change under `src/` changes the key.

use std::path::Path;

fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *hash ^= u64::from(*b);
        *hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
}

fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, files);
        } else {
            files.push(p);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=build.rs");
    let mut files = Vec::new();
    walk(Path::new("src"), &mut files);
    files.sort();
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for f in &files {
        fnv1a(&mut hash, f.to_string_lossy().as_bytes());
        if let Ok(bytes) = std::fs::read(f) {
            fnv1a(&mut hash, &bytes);
        }
    }
    println!("cargo:rustc-env=FERROCL_COMPILER_SOURCE_HASH={hash:016x}");
}
