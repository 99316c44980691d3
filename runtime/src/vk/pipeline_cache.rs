//! VkPipelineCache contents kept on disk, one file per (device, driver).
//!
//! Layer: Vulkan execution (`crate::vk`), used by `super::device`.

use std::path::PathBuf;

use super::instance::PhysicalDevice;

use ferrocl_compiler::cache::cache_dir;

fn file(phys: &PhysicalDevice) -> Option<PathBuf> {
    let hex: String = phys
        .device_uuid
        .iter()
        .chain(phys.driver_uuid.iter())
        .map(|b| format!("{b:02x}"))
        .collect();
    cache_dir().map(|d| d.join(format!("pipelines-{hex}.bin")))
}

/// A cache file above this size is not loaded: the process starts with an
/// empty cache, and its save replaces the file with what it compiled. A
/// VkPipelineCache only grows (every process writes back all it loaded
/// plus its own pipelines, more of them since pipelines are made ahead of
/// launches), so this bounds the file.
pub const LIMIT: u64 = 256 << 20;

pub fn load(phys: &PhysicalDevice) -> Vec<u8> {
    file(phys)
        .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() <= LIMIT))
        .and_then(|f| std::fs::read(f).ok())
        .unwrap_or_default()
}

pub fn store(phys: &PhysicalDevice, data: &[u8]) {
    if let Some(f) = file(phys) {
        if let Some(dir) = f.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        // Write then rename so concurrent writers (processes, and threads
        // of one process: every released kernel saves) never leave a torn
        // file: each writes its own temporary file.
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = f.with_extension(format!("tmp{}-{n}", std::process::id()));
        if std::fs::write(&tmp, data).is_ok() {
            let _ = std::fs::rename(&tmp, &f);
        }
    }
}
