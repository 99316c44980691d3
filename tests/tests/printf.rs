//! printf: output of kernels reaches the process's stdout, formatted like
//! the C library's printf, by the time the launch's event completes;
//! printf returns 0, or -1 once the launch's printf buffer is full.
//!
//! The checks redirect file descriptor 1 while kernels run, so they live
//! in their own test binary, in one test (the harness writes to stdout when
//! a test ends).

use std::ffi::c_int;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;

use ferrocl_tests::{assert_same, Cl};

extern "C" {
    fn dup(fd: c_int) -> c_int;
    fn dup2(from: c_int, to: c_int) -> c_int;
    fn close(fd: c_int) -> c_int;
}

/// What `f` writes to file descriptor 1.
fn capture_stdout(f: impl FnOnce()) -> String {
    let path = std::env::temp_dir().join(format!("ferrocl-printf-{}.txt", std::process::id()));
    let mut file = std::fs::File::options()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&path)
        .expect("temporary file");
    std::io::stdout().flush().ok();
    // SAFETY: plain descriptor juggling; fd 1 is restored below.
    let saved = unsafe { dup(1) };
    assert!(saved >= 0);
    // SAFETY: as above.
    assert!(unsafe { dup2(file.as_raw_fd(), 1) } >= 0);
    f();
    // SAFETY: as above.
    unsafe {
        dup2(saved, 1);
        close(saved);
    }
    let mut text = String::new();
    file.rewind().unwrap();
    file.read_to_string(&mut text).unwrap();
    std::fs::remove_file(&path).ok();
    text
}

const FORMATS: &str = r#"
kernel void show(global const float4 *v, global int *ret) {
    int i = get_global_id(0);
    ret[i] = printf("item %d: %v4hlf|%5.1f|%s|%c|%#x|%ld|%hhd\n",
                    i, v[i], v[i].x * 2.0f, "text", 'a' + i, 255 + i,
                    (long)i - 5000000000L, (char)(i + 126));
}
"#;

/// OpenCL C 3.1's `z` (size_t) and `t` (ptrdiff_t) length modifiers, with
/// values that need all 64 bits and negative differences.
const SIZE_MODIFIERS: &str = r#"
kernel void sizes(global int *ret) {
    size_t i = get_global_id(0);
    size_t big = (size_t)0x123456789UL * (i + 1);
    ptrdiff_t d = (ptrdiff_t)i - (ptrdiff_t)5000000000L;
    ret[i] = printf("z %zu %zd %zx %#zX %zo %6zu|%-5zu| t %td %ti %tx %tu %+td\n",
                    big, big, big, big, i, i, i, d, (ptrdiff_t)i - 2, d, d, d);
}
"#;

#[test]
fn printf() {
    printf_output_matches_the_c_library();
    printf_returns_minus_one_when_the_buffer_is_full();
    printf_size_modifiers(false);
    printf_size_modifiers(true);
}

fn printf_output_matches_the_c_library() {
    let cl = Cl::new();
    let n = 4;
    let v: Vec<f32> = (0..4 * n).map(|k| k as f32 * 0.25 - 1.0).collect();
    let dv = cl.buffer_from(&v);
    let ret = cl.buffer_from(&vec![7i32; n]);
    let kernel = cl.kernel(FORMATS, "show");
    kernel.arg(0, &dv).arg(1, &ret);
    let out = capture_stdout(|| {
        cl.queue.run(&kernel, &[n], None);
        cl.queue.finish();
    });
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    let want: Vec<String> = (0..n)
        .map(|i| {
            let c = &v[4 * i..4 * i + 4];
            format!(
                "item {i}: {:.6},{:.6},{:.6},{:.6}|{:5.1}|text|{}|{:#x}|{}|{}",
                c[0],
                c[1],
                c[2],
                c[3],
                c[0] * 2.0,
                (b'a' + i as u8) as char,
                255 + i,
                i as i64 - 5_000_000_000,
                (i as i32 + 126) as u8 as i8,
            )
        })
        .collect();
    assert_eq!(lines, want.iter().map(String::as_str).collect::<Vec<_>>());
    assert_same("printf results", &cl.queue.read(&ret), &vec![0; n]);
}

fn printf_returns_minus_one_when_the_buffer_is_full() {
    let cl = Cl::new();
    // Each record is 5 words (call index + 4 ints): 52428 fit in 1 MiB.
    let src = "kernel void many(global int *ret) {\n\
               int i = get_global_id(0);\n\
               ret[i] = printf(\"%d %d %d %d\\n\", i, i, i, i);\n}";
    let n = 60000;
    let ret = cl.buffer_from(&vec![7i32; n]);
    let kernel = cl.kernel(src, "many");
    kernel.arg(0, &ret);
    let out = capture_stdout(|| {
        cl.queue.run(&kernel, &[n], None);
        cl.queue.finish();
    });
    let r = cl.queue.read(&ret);
    let printed: Vec<usize> = (0..n).filter(|&i| r[i] == 0).collect();
    assert_eq!(printed.len(), 1024 * 1024 / 20);
    assert!(r.iter().all(|&x| x == 0 || x == -1));
    // Exactly the calls that returned 0 were printed.
    let mut seen: Vec<usize> = out
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert!(f.len() == 4 && f.iter().all(|x| *x == f[0]), "{l}");
            f[0].parse().unwrap()
        })
        .collect();
    seen.sort();
    assert_eq!(seen, printed);
}

/// `SIZE_MODIFIERS` built from source with -cl-std=CL3.0 or, with `il`,
/// from SPIR-V made by clang-15 and llvm-spirv-15.
fn printf_size_modifiers(il: bool) {
    let cl = Cl::new();
    let n = 3;
    let program = if il {
        cl.context.try_build_spirv(
            &ferrocl_tests::spirv_of_with(SIZE_MODIFIERS, None, &["-cl-std=CL3.0"]),
            "",
        )
    } else {
        cl.context.try_build(SIZE_MODIFIERS, "-cl-std=CL3.0")
    }
    .unwrap_or_else(|e| panic!("{e}"));
    let kernel = program.kernel("sizes");
    let ret = cl.buffer_from(&vec![7i32; n]);
    kernel.arg(0, &ret);
    let out = capture_stdout(|| {
        cl.queue.run(&kernel, &[n], None);
        cl.queue.finish();
    });
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    let mut want: Vec<String> = (0..n)
        .map(|i| {
            let big = 0x1_2345_6789u64 * (i as u64 + 1);
            let d = i as i64 - 5_000_000_000;
            format!(
                "z {big} {} {big:x} 0X{big:X} {i:o} {i:6}|{i:<5}| t {d} {} {:x} {} {d:+}",
                big as i64,
                i as i64 - 2,
                d as u64,
                d as u64,
            )
        })
        .collect();
    want.sort();
    assert_eq!(
        lines,
        want.iter().map(String::as_str).collect::<Vec<_>>(),
        "il: {il}"
    );
    assert_same("printf results", &cl.queue.read(&ret), &vec![0; n]);
}
