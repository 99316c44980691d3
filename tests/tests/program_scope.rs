//! Program-scope variables (OpenCL C 2.0+): `__global` variables shared by
//! the kernels of a program and kept between launches, their initializers
//! (including pointers to other variables), `static` variables in kernels,
//! and CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE.

use ferrocl_tests::info::{program_build_info, query_value};
use ferrocl_tests::{assert_same, Cl, ClError};
use opencl_sys::*;

const STATE: &str = r#"
int counter;
global int g_var = 7;
int a_var[2] = {1, 2};
global int *p_var = &a_var[1];
struct S { int a; global int *p; } s = {3, &g_var};
global float4 scale = (float4)(0.5f, 2.0f, 4.0f, 8.0f);

__attribute__((noinline)) void bump(int by) { counter += by; }

kernel void writer(global const int *src, uint idx) {
    g_var = src[0];
    a_var[0] = src[1];
    a_var[1] = src[2];
    p_var = a_var + idx;
    bump(src[3]);
    scale *= 2.0f;
}

kernel void reader(global int *dst, global float4 *f) {
    static global int calls = 100;
    dst[0] = counter;
    dst[1] = g_var;
    dst[2] = a_var[0];
    dst[3] = a_var[1];
    dst[4] = *p_var;
    dst[5] = *s.p + s.a;
    dst[6] = calls++;
    *f = scale;
}

kernel void count(void) {
    atomic_inc(&counter);
}
"#;

#[test]
fn global_variables_keep_their_values_between_kernels() {
    let cl = Cl::new();
    let program = cl
        .try_build(STATE, "-cl-std=CL2.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let (writer, reader, count) = (
        program.kernel("writer"),
        program.kernel("reader"),
        program.kernel("count"),
    );
    let dst = cl.buffer::<i32>(7);
    let f = cl.buffer::<f32>(4);
    reader.arg(0, &dst).arg(1, &f);

    // Initial values.
    cl.queue.run(&reader, &[1], None);
    assert_same("initial", &cl.queue.read(&dst), &[0, 7, 1, 2, 2, 10, 100]);
    assert_same(
        "initial scale",
        &cl.queue.read(&f),
        &[0.5f32, 2.0, 4.0, 8.0],
    );

    // The writer changes every variable; p_var now points at a_var[0].
    let src = cl.buffer_from(&[40i32, 50, 60, 5]);
    writer.arg(0, &src).arg(1, &0u32);
    cl.queue.run(&writer, &[1], None);
    cl.queue.run(&reader, &[1], None);
    assert_same(
        "written",
        &cl.queue.read(&dst),
        &[5, 40, 50, 60, 50, 43, 101],
    );
    assert_same("scaled", &cl.queue.read(&f), &[1.0f32, 4.0, 8.0, 16.0]);

    // Every work-item of a launch sees the same variable.
    cl.queue.run(&count, &[1000], None);
    cl.queue.run(&reader, &[1], None);
    assert_same("counted", &cl.queue.read(&dst)[..1], &[1005]);

    // A second build of the same source has its own variables.
    let other = cl
        .try_build(STATE, "-cl-std=CL2.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let reader2 = other.kernel("reader");
    reader2.arg(0, &dst).arg(1, &f);
    cl.queue.run(&reader2, &[1], None);
    assert_same(
        "fresh program",
        &cl.queue.read(&dst),
        &[0, 7, 1, 2, 2, 10, 100],
    );
}

#[test]
fn total_size_of_global_variables_is_reported() {
    let cl = Cl::new();
    let size = |src: &str| -> usize {
        let p = cl
            .try_build(src, "-cl-std=CL2.0")
            .unwrap_or_else(|e| panic!("{e}"));
        query_value(program_build_info(
            p.raw(),
            cl.device(),
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
        ))
        .expect("clGetProgramBuildInfo")
    };
    // int, int[2] (8), a pointer (8, aligned to 8), float4 (16, aligned to 16).
    let src = "int a; int b[2] = {1, 2}; global int *p = &a; float4 v;\n\
               kernel void k(global int *o) { o[0] = a + b[1] + *p + (int)v.x; }";
    assert_eq!(size(src), 48);
    assert_eq!(size("kernel void k(global int *o) { o[0] = 1; }"), 0);
}

#[test]
fn global_variable_size_limit_is_reported() {
    use ferrocl_tests::info::device_value;
    let cl = Cl::new();
    let max: usize = device_value(cl.device(), CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE);
    assert!(max >= 64 * 1024, "{max}");
    // A variable of the advertised maximum size works. (Each work-item
    // sums one 256-byte row: lavapipe stops a shader invocation after
    // 65535 loop iterations.)
    let src = format!(
        "global uchar big[{max}];\n\
         kernel void fill(void) {{ size_t i = get_global_id(0); big[i] = (uchar)(i * 7); }}\n\
         kernel void sum(global uint *o) {{ size_t r = get_global_id(0); uint s = 0;\n\
           for (uint i = 0; i < 256; i++) s += big[r * 256 + i]; o[r] = s; }}"
    );
    let p = cl
        .try_build(&src, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"));
    cl.queue.run(&p.kernel("fill"), &[max], None);
    let rows = max / 256;
    let o = cl.buffer::<u32>(rows);
    let sum = p.kernel("sum");
    sum.arg(0, &o);
    cl.queue.run(&sum, &[rows], None);
    let want: Vec<u32> = (0..rows)
        .map(|r| (0..256).map(|i| ((r * 256 + i) * 7) as u8 as u32).sum())
        .collect();
    assert_same("row sums", &cl.queue.read(&o), &want);
}

#[test]
fn address_of_constant_data_in_an_initializer_is_a_build_error() {
    let cl = Cl::new();
    let src = "constant int c[2] = {1, 2};\n\
               constant int *global p = &c[1];\n\
               kernel void k(global int *o) { o[0] = *p; }";
    let e = match cl.try_build(src, "-cl-std=CL2.0") {
        Ok(_) => panic!("built"),
        Err(e) => e,
    };
    assert_eq!(e.status, ClError(CL_BUILD_PROGRAM_FAILURE));
    assert!(
        e.log.contains("'p'") && e.log.contains("__constant"),
        "{}",
        e.log
    );
}

/// Large program-scope `__constant` tables live in the program's buffer
/// (not copied into each work-item's private memory): read with dynamic
/// indices, directly and through a function that also reads a `__constant`
/// kernel argument, next to a small table and a `__global` variable; they
/// do not count as global variables.
#[test]
fn large_constant_tables_are_read_from_the_program_buffer() {
    let cl = Cl::new();
    let table: Vec<f64> = (0..64).map(|i| i as f64 * 1.5 - 7.0).collect();
    let init = table
        .iter()
        .map(|v| format!("{v:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    let src = format!(
        "constant double table[64] = {{{init}}};\n\
         constant float small[4] = {{0.5f, 1.5f, 2.5f, 3.5f}};\n\
         int counter;\n\
         double pick(constant double *t, int i) {{ return t[i]; }}\n\
         kernel void k(global const int *idx, constant double *arg, global double *o) {{\n\
             size_t i = get_global_id(0);\n\
             int j = idx[i];\n\
             o[3 * i] = table[j];\n\
             o[3 * i + 1] = pick(table, j) + pick(arg, j);\n\
             o[3 * i + 2] = small[j & 3];\n\
             counter = j;\n\
         }}\n"
    );
    let program = cl
        .try_build(&src, "-cl-std=CL2.0")
        .unwrap_or_else(|e| panic!("{e}"));
    let total: usize = query_value(program_build_info(
        program.raw(),
        cl.device(),
        CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
    ))
    .expect("clGetProgramBuildInfo");
    assert_eq!(total, 4, "only `counter` is a global variable");
    let idx: Vec<i32> = (0..64).map(|i| (i * 37 + 5) % 64).collect();
    let arg: Vec<f64> = (0..64).map(|i| i as f64 * 1000.0).collect();
    let (di, da) = (cl.buffer_from(&idx), cl.buffer_from(&arg));
    let o = cl.buffer::<f64>(3 * 64);
    let k = program.kernel("k");
    k.arg(0, &di).arg(1, &da).arg(2, &o);
    cl.queue.run(&k, &[64], None);
    let want: Vec<f64> = idx
        .iter()
        .flat_map(|&j| {
            let j = j as usize;
            [table[j], table[j] + arg[j], 0.5 + (j & 3) as f64]
        })
        .collect();
    assert_same("o", &cl.queue.read(&o), &want);
}
