//! The on-disk compile cache (compiler/src/cache.rs) seen through the API:
//! a build stores its program under `$FERROCL_CACHE_DIR/programs`, the
//! same build again is served from it (the file is not rewritten) and runs
//! correctly, other options make another entry, and a damaged entry is a
//! miss that rebuilds rather than an error.
//!
//! One test in its own binary: it sets `FERROCL_CACHE_DIR` for the whole
//! process before the first OpenCL call.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use ferrocl_tests::{assert_same, Cl};

const SOURCE: &str = "kernel void scale(global int* a) {
    size_t i = get_global_id(0);
    a[i] = a[i] * FACTOR + (int)i;
}";

fn entries(dir: &Path) -> Vec<(PathBuf, SystemTime)> {
    let mut v: Vec<_> = std::fs::read_dir(dir.join("programs"))
        .map(|rd| {
            rd.flatten()
                .map(|e| (e.path(), e.metadata().unwrap().modified().unwrap()))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn run(cl: &Cl, factor: i32) {
    let program = cl
        .context
        .try_build(SOURCE, &format!("-DFACTOR={factor}"))
        .unwrap_or_else(|e| panic!("build: {e:?}"));
    let kernel = program.kernel("scale");
    let data: Vec<i32> = (0..1000).collect();
    let buffer = cl.buffer_from(&data);
    kernel.arg(0, &buffer);
    cl.queue.run(&kernel, &[data.len()], None);
    let want: Vec<i32> = data.iter().map(|&x| x * factor + x).collect();
    assert_same("scaled", &cl.queue.read(&buffer), &want);
}

#[test]
fn builds_are_stored_reused_and_damage_is_a_miss() {
    let dir = std::env::temp_dir().join(format!("ferrocl-compile-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("FERROCL_CACHE_DIR", &dir);
    std::env::remove_var("FERROCL_NO_COMPILE_CACHE");
    let cl = Cl::new();

    run(&cl, 3);
    let first = entries(&dir);
    assert_eq!(first.len(), 1, "one program stored: {first:?}");

    // Same source and options: served from the cache, file untouched.
    std::thread::sleep(std::time::Duration::from_millis(20));
    run(&cl, 3);
    assert_eq!(entries(&dir), first, "a hit does not rewrite the entry");

    // Other options: another entry.
    run(&cl, 5);
    assert_eq!(entries(&dir).len(), 2);

    // A damaged entry: rebuilt (rewritten), still correct.
    let path = &first[0].0;
    let mut bytes = std::fs::read(path).unwrap();
    let n = bytes.len();
    bytes[n - 30] ^= 0x55;
    std::fs::write(path, &bytes).unwrap();
    let damaged = std::fs::metadata(path).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    run(&cl, 3);
    let after = std::fs::metadata(path).unwrap().modified().unwrap();
    assert!(
        after > damaged,
        "the damaged entry was rebuilt and stored again"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
