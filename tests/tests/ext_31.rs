//! OpenCL 3.1's core extensions of batch A, through the ICD loader against
//! CPU references computed here: cl_khr_extended_bit_ops (every integer
//! width, scalars and vectors, edge offsets and counts),
//! cl_khr_integer_dot_product (every signedness, vector and packed forms,
//! saturation at the accumulator's ends; Vulkan's instructions and the
//! compiler's emulation), cl_khr_expect_assume, cl_khr_kernel_clock,
//! cl_khr_suggested_local_work_size (values and error codes),
//! cl_khr_spirv_queries (and that the IL intake agrees), the device queries
//! and CL_DEVICE_MAX_CLOCK_FREQUENCY. Where a test needs an extension the
//! device does not report, it checks that it is not reported consistently
//! and returns.

use std::ffi::{c_char, CStr};

use ferrocl_tests::info::{device_info, query, query_value};
use ferrocl_tests::sys::*;
use ferrocl_tests::{device, device_string, device_value, expect_error, platform, Cl};

fn extensions() -> Vec<String> {
    device_string(device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn has_extension(name: &str) -> bool {
    extensions().iter().any(|e| e == name)
}

fn opencl_c_features() -> Vec<String> {
    let v: Vec<cl_name_version> =
        query(device_info(device(), CL_DEVICE_OPENCL_C_FEATURES)).expect("features");
    v.iter()
        .map(|nv| {
            // SAFETY: a NUL-terminated name within the fixed array.
            unsafe { CStr::from_ptr(nv.name.as_ptr().cast()) }
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

/// OpenCL C source compiled to SPIR-V by clang-15 and llvm-spirv-15 with
/// the SPIR-V extensions `exts` allowed (`+SPV_...` list).
fn spirv_with(source: &str, exts: &str) -> Vec<u8> {
    let ext = format!("--spirv-ext={exts}");
    ferrocl_tests::spirv_of_tools(source, &["-cl-std=CL3.0"], &[&ext])
}

// ---------------------------------------------------------------------
// cl_khr_extended_bit_ops

const BIT_OPS: &str = r#"
#define KERNELS(UT, ST)                                                        \
kernel void s_##UT(global const UT *base, global const UT *ins,                \
                   global const uint *off, global const uint *cnt,             \
                   global UT *out) {                                           \
    size_t i = get_global_id(0);                                               \
    out[4 * i] = bitfield_insert(base[i], ins[i], off[i], cnt[i]);             \
    out[4 * i + 1] = (UT)bitfield_extract_signed(base[i], off[i], cnt[i]);     \
    out[4 * i + 2] = bitfield_extract_unsigned(base[i], off[i], cnt[i]);       \
    out[4 * i + 3] = bit_reverse(base[i]);                                     \
}                                                                              \
kernel void v4_##UT(global const UT *base, global const UT *ins,               \
                    uint off, uint cnt, global UT *out) {                      \
    size_t i = get_global_id(0);                                               \
    vstore4(bitfield_insert(vload4(i, base), vload4(i, ins), off, cnt),        \
            4 * i, out);                                                       \
    vstore4(as_##UT##4(bitfield_extract_signed(vload4(i, base), off, cnt)),   \
            4 * i + 1, out);                                                   \
    vstore4(bitfield_extract_unsigned(vload4(i, base), off, cnt), 4 * i + 2,   \
            out);                                                              \
    vstore4(bit_reverse(vload4(i, base)), 4 * i + 3, out);                     \
}                                                                              \
kernel void v8_##UT(global const UT *base, global const UT *ins,               \
                    uint off, uint cnt, global UT *out) {                      \
    size_t i = get_global_id(0);                                               \
    vstore8(bitfield_insert(vload8(i, base), vload8(i, ins), off, cnt),        \
            4 * i, out);                                                       \
    vstore8(as_##UT##8(bitfield_extract_signed(vload8(i, base), off, cnt)),   \
            4 * i + 1, out);                                                   \
    vstore8(bitfield_extract_unsigned(vload8(i, base), off, cnt), 4 * i + 2,   \
            out);                                                              \
    vstore8(bit_reverse(vload8(i, base)), 4 * i + 3, out);                     \
}
KERNELS(uchar, char)
KERNELS(ushort, short)
KERNELS(uint, int)
KERNELS(ulong, long)
"#;

/// The four results for one `w`-bit lane: insert, signed extract (as
/// unsigned bits), unsigned extract, reverse.
fn bit_ops_ref(w: u32, base: u64, ins: u64, off: u32, cnt: u32) -> [u64; 4] {
    let all = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let m = if cnt == 0 { 0 } else { all >> (w - cnt) };
    let (base, ins) = (base & all, ins & all);
    let insert = if cnt == 0 {
        base
    } else {
        (base & !(m << off)) | ((ins & m) << off)
    };
    let u = if cnt == 0 { 0 } else { (base >> off) & m };
    let s = if cnt == 0 || u >> (cnt - 1) & 1 == 0 {
        u
    } else {
        (u | !m) & all
    };
    let rev = base.reverse_bits() >> (64 - w);
    [insert, s, u, rev]
}

/// (offset, count) pairs of a `w`-bit type: count 0, a field reaching the
/// top bit, the whole width, single bits, and middles.
fn fields(w: u32) -> Vec<(u32, u32)> {
    let mut v = vec![
        (0, 0),
        (w, 0),
        (0, w),
        (w - 1, 1),
        (0, 1),
        (1, w - 1),
        (w / 2, w / 2),
    ];
    v.extend([(3, w / 2 - 1), (w / 4, w / 2 + 1), (w - 3, 3), (2, 1)]);
    v
}

fn edges(w: u32) -> Vec<u64> {
    let all = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let mut v = vec![
        0,
        all,
        1,
        1 << (w - 1),
        (1 << (w - 1)) - 1,
        0x5a5a_5a5a_5a5a_5a5a & all,
    ];
    v.push(0x0123_4567_89ab_cdef & all);
    v.push(0xfedc_ba98_7654_3210 & all);
    v
}

fn check_bit_ops<T: ferrocl_tests::Pod + Copy + Into<u64> + TryFrom<u64>>(
    cl: &Cl,
    program: &ferrocl_tests::Program,
    ty: &str,
    w: u32,
) -> Vec<String>
where
    <T as TryFrom<u64>>::Error: std::fmt::Debug,
{
    let to_t = |x: u64| T::try_from(x).unwrap();
    let mut bad = Vec::new();
    // Scalars: every edge base with every field, the insert a rotation.
    let (mut base, mut ins, mut off, mut cnt) = (vec![], vec![], vec![], vec![]);
    let e = edges(w);
    for (k, &b) in e.iter().enumerate() {
        for &(o, c) in &fields(w) {
            base.push(to_t(b));
            ins.push(to_t(e[(k + 3) % e.len()]));
            off.push(o);
            cnt.push(c);
        }
    }
    let n = base.len();
    let k = program.kernel(&format!("s_{ty}"));
    let (bb, ib, ob, cb) = (
        cl.buffer_from(&base),
        cl.buffer_from(&ins),
        cl.buffer_from(&off),
        cl.buffer_from(&cnt),
    );
    let out = cl.buffer::<T>(4 * n);
    k.arg(0, &bb)
        .arg(1, &ib)
        .arg(2, &ob)
        .arg(3, &cb)
        .arg(4, &out);
    cl.queue.run(&k, &[n], None);
    let got = cl.queue.read(&out);
    for i in 0..n {
        let want = bit_ops_ref(w, base[i].into(), ins[i].into(), off[i], cnt[i]);
        for (f, name) in ["insert", "extract_signed", "extract_unsigned", "reverse"]
            .iter()
            .enumerate()
        {
            let g: u64 = got[4 * i + f].into();
            if g != want[f] {
                bad.push(format!(
                    "{ty} {name}(base {:#x}, insert {:#x}, offset {}, count {}) = {g:#x}, want {:#x}",
                    base[i].into(),
                    ins[i].into(),
                    off[i],
                    cnt[i],
                    want[f]
                ));
            }
        }
    }
    // Vectors of 4 and 8 (8: arrays of 4-wide parts), per field.
    let lanes: Vec<T> = (0..16).map(|l| to_t(e[l % e.len()])).collect();
    let lanes_ins: Vec<T> = (0..16).map(|l| to_t(e[(l + 5) % e.len()])).collect();
    for width in [4usize, 8] {
        let k = program.kernel(&format!("v{width}_{ty}"));
        for &(o, c) in &fields(w) {
            let (bb, ib) = (cl.buffer_from(&lanes), cl.buffer_from(&lanes_ins));
            let out = cl.buffer::<T>(4 * 16);
            k.arg(0, &bb).arg(1, &ib).arg(2, &o).arg(3, &c).arg(4, &out);
            cl.queue.run(&k, &[16 / width], None);
            let got = cl.queue.read(&out);
            for l in 0..16 {
                let (g, lane) = (l / width, l % width);
                let want = bit_ops_ref(w, lanes[l].into(), lanes_ins[l].into(), o, c);
                for f in 0..4 {
                    let v: u64 = got[(4 * g + f) * width + lane].into();
                    if v != want[f] {
                        bad.push(format!(
                            "{ty}{width} op {f} lane {l} (offset {o}, count {c}) = {v:#x}, want {:#x}",
                            want[f]
                        ));
                    }
                }
            }
        }
    }
    bad
}

fn bit_ops_on(cl: &Cl, program: &ferrocl_tests::Program) {
    let mut bad = check_bit_ops::<u8>(cl, program, "uchar", 8);
    bad.extend(check_bit_ops::<u16>(cl, program, "ushort", 16));
    bad.extend(check_bit_ops::<u32>(cl, program, "uint", 32));
    bad.extend(check_bit_ops::<u64>(cl, program, "ulong", 64));
    assert!(
        bad.is_empty(),
        "{} wrong:\n{}",
        bad.len(),
        bad[..bad.len().min(40)].join("\n")
    );
}

#[test]
fn extended_bit_ops_every_width_at_edges() {
    if !has_extension("cl_khr_extended_bit_ops") {
        return;
    }
    let cl = Cl::new();
    let program = cl
        .try_build(
            &format!("#ifndef cl_khr_extended_bit_ops\n#error no macro\n#endif\n{BIT_OPS}"),
            "-cl-std=CL3.0",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    bit_ops_on(&cl, &program);
}

#[test]
fn extended_bit_ops_through_il() {
    if !has_extension("cl_khr_extended_bit_ops") {
        return;
    }
    let cl = Cl::new();
    let il = spirv_with(BIT_OPS, "+SPV_KHR_bit_instructions");
    let program = cl
        .try_build_spirv(&il, "")
        .unwrap_or_else(|e| panic!("{e}"));
    bit_ops_on(&cl, &program);
}

// ---------------------------------------------------------------------
// cl_khr_integer_dot_product

const DOT: &str = r#"
kernel void dots(global const uchar4 *ua, global const uchar4 *ub,
                 global const int *acc, global int *out) {
    size_t i = get_global_id(0);
    uchar4 a = ua[i], b = ub[i];
    char4 sa = as_char4(a), sb = as_char4(b);
    uint pa = as_uint(a), pb = as_uint(b);
    int c = acc[i];
    global int *o = out + 16 * i;
    o[0] = (int)dot(a, b);
    o[1] = dot(sa, sb);
    o[2] = dot(a, sb);
    o[3] = dot(sa, b);
    o[4] = (int)dot_acc_sat(a, b, (uint)c);
    o[5] = dot_acc_sat(sa, sb, c);
    o[6] = dot_acc_sat(a, sb, c);
    o[7] = dot_acc_sat(sa, b, c);
    o[8] = (int)dot_4x8packed_uu_uint(pa, pb);
    o[9] = dot_4x8packed_ss_int(pa, pb);
    o[10] = dot_4x8packed_us_int(pa, pb);
    o[11] = dot_4x8packed_su_int(pa, pb);
    o[12] = (int)dot_acc_sat_4x8packed_uu_uint(pa, pb, (uint)c);
    o[13] = dot_acc_sat_4x8packed_ss_int(pa, pb, c);
    o[14] = dot_acc_sat_4x8packed_us_int(pa, pb, c);
    o[15] = dot_acc_sat_4x8packed_su_int(pa, pb, c);
}
"#;

fn dot_ref(a: [u8; 4], b: [u8; 4], c: i32) -> [i32; 16] {
    let d = |sa: bool, sb: bool| -> i64 {
        (0..4)
            .map(|k| {
                let x = if sa { a[k] as i8 as i64 } else { a[k] as i64 };
                let y = if sb { b[k] as i8 as i64 } else { b[k] as i64 };
                x * y
            })
            .sum()
    };
    let sat_s = |v: i64| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    let sat_u = |v: i64| v.clamp(0, u32::MAX as i64) as u32 as i32;
    let uc = c as u32 as i64;
    let sc = c as i64;
    let plain = [
        d(false, false) as i32,
        d(true, true) as i32,
        d(false, true) as i32,
        d(true, false) as i32,
    ];
    let sat = [
        sat_u(d(false, false) + uc),
        sat_s(d(true, true) + sc),
        sat_s(d(false, true) + sc),
        sat_s(d(true, false) + sc),
    ];
    let mut r = [0; 16];
    r[..4].copy_from_slice(&plain);
    r[4..8].copy_from_slice(&sat);
    r[8..12].copy_from_slice(&plain);
    r[12..].copy_from_slice(&sat);
    r
}

fn check_dots(cl: &Cl, program: &ferrocl_tests::Program, what: &str) {
    let vals = [0u8, 1, 2, 0x7f, 0x80, 0x81, 0xfe, 0xff, 0x40, 0xc0];
    let accs = [
        0,
        1,
        -1,
        i32::MAX,
        i32::MIN,
        i32::MAX - 1000,
        i32::MIN + 1000,
        -2,
        0x7fff_0000,
    ];
    let (mut ua, mut ub, mut acc) = (vec![], vec![], vec![]);
    let mut seed = 0x1234_5678u32;
    for (k, &c) in accs.iter().enumerate() {
        for &x in &vals {
            for &y in &vals {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let r = seed.to_le_bytes();
                ua.push([x, r[0], x, y ^ (k as u8)]);
                ub.push([y, x, r[1], y]);
                acc.push(c);
            }
        }
    }
    let n = ua.len();
    let k = program.kernel("dots");
    let (ab, bb, cb) = (
        cl.buffer_from(&ua),
        cl.buffer_from(&ub),
        cl.buffer_from(&acc),
    );
    let out = cl.buffer::<i32>(16 * n);
    k.arg(0, &ab).arg(1, &bb).arg(2, &cb).arg(3, &out);
    cl.queue.run(&k, &[n], None);
    let got = cl.queue.read(&out);
    let mut bad = Vec::new();
    for i in 0..n {
        let want = dot_ref(ua[i], ub[i], acc[i]);
        for f in 0..16 {
            if got[16 * i + f] != want[f] {
                bad.push(format!(
                    "{what}: form {f} of {:?} . {:?} acc {} = {}, want {}",
                    ua[i],
                    ub[i],
                    acc[i],
                    got[16 * i + f],
                    want[f]
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} wrong:\n{}",
        bad.len(),
        bad[..bad.len().min(40)].join("\n")
    );
}

#[test]
fn integer_dot_products_with_saturation() {
    if !has_extension("cl_khr_integer_dot_product") {
        return;
    }
    let f = opencl_c_features();
    for m in [
        "__opencl_c_integer_dot_product_input_4x8bit",
        "__opencl_c_integer_dot_product_input_4x8bit_packed",
    ] {
        assert!(
            f.iter().any(|x| x == m),
            "{m} not in CL_DEVICE_OPENCL_C_FEATURES"
        );
    }
    let cl = Cl::new();
    let checked = format!(
        "#if !defined(cl_khr_integer_dot_product) || \
         !defined(__opencl_c_integer_dot_product_input_4x8bit) || \
         !defined(__opencl_c_integer_dot_product_input_4x8bit_packed)\n#error no macros\n#endif\n{DOT}"
    );
    let program = cl
        .try_build(&checked, "-cl-std=CL3.0")
        .unwrap_or_else(|e| panic!("{e}"));
    check_dots(&cl, &program, "source");
    // IL: the vector forms as OpUDot/OpSDot/OpSUDot, the packed ones as
    // llvm-spirv-15 leaves them (calls of the builtins).
    let il = spirv_with(DOT, "+SPV_KHR_integer_dot_product");
    let program = cl
        .try_build_spirv(&il, "")
        .unwrap_or_else(|e| panic!("{e}"));
    check_dots(&cl, &program, "IL");
}

/// ferrocl only: the compiler's emulation (what devices without
/// shaderIntegerDotProduct get) gives the same results.
#[test]
fn integer_dot_products_emulated() {
    if ferrocl_tests::testing_pocl() || !has_extension("cl_khr_integer_dot_product") {
        return;
    }
    // Read by the runtime when it describes the device to the compiler,
    // i.e. at each build; no other test of this file builds dot products.
    std::env::set_var("FERROCL_INTEGER_DOT_PRODUCT", "0");
    let cl = Cl::new();
    let r = cl.try_build(DOT, "-cl-std=CL3.0");
    std::env::remove_var("FERROCL_INTEGER_DOT_PRODUCT");
    let program = r.unwrap_or_else(|e| panic!("{e}"));
    check_dots(&cl, &program, "emulated");
}

#[test]
fn integer_dot_product_queries() {
    if !has_extension("cl_khr_integer_dot_product") {
        return;
    }
    let caps: u64 = device_value(device(), CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR);
    assert_eq!(
        caps,
        CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR
            | CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR
    );
    for p in [
        CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR,
        CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR,
    ] {
        let v: Vec<cl_bool> = query(device_info(device(), p)).expect("acceleration properties");
        assert_eq!(v.len(), 6, "six cl_bools");
        assert!(v.iter().all(|&b| b == CL_TRUE || b == CL_FALSE), "{v:?}");
        if !ferrocl_tests::testing_pocl()
            && device_string(device(), CL_DEVICE_NAME).contains("llvmpipe")
        {
            // lavapipe reports no accelerated dot product.
            assert!(v.iter().all(|&b| b == CL_FALSE), "{v:?}");
        }
    }
}

// ---------------------------------------------------------------------
// cl_khr_expect_assume

const HINTS: &str = r#"
kernel void hints(global const int *in, global int *out) {
    size_t i = get_global_id(0);
    __builtin_assume(i < 1000000);
    int x = in[i];
    if (__builtin_expect(x > 10, 0))
        out[i] = x * 3;
    else
        out[i] = __builtin_expect(x - 1, 5);
}
"#;

#[test]
fn expect_and_assume_hints() {
    if !has_extension("cl_khr_expect_assume") {
        return;
    }
    let cl = Cl::new();
    let input: Vec<i32> = (-20..60).collect();
    let want: Vec<i32> = input
        .iter()
        .map(|&x| if x > 10 { x * 3 } else { x - 1 })
        .collect();
    let checked = format!("#ifndef cl_khr_expect_assume\n#error no macro\n#endif\n{HINTS}");
    let source = cl.try_build(&checked, "").unwrap_or_else(|e| panic!("{e}"));
    let source_o0 = cl
        .try_build(&checked, "-cl-opt-disable")
        .unwrap_or_else(|e| panic!("{e}"));
    // IL with OpExpectKHR / OpAssumeTrueKHR.
    let il = spirv_with(HINTS, "+SPV_KHR_expect_assume");
    let il = cl
        .try_build_spirv(&il, "")
        .unwrap_or_else(|e| panic!("{e}"));
    for (what, p) in [
        ("source", source),
        ("-cl-opt-disable", source_o0),
        ("IL", il),
    ] {
        let k = p.kernel("hints");
        let (ib, ob) = (cl.buffer_from(&input), cl.buffer::<i32>(input.len()));
        k.arg(0, &ib).arg(1, &ob);
        cl.queue.run(&k, &[input.len()], None);
        assert_eq!(cl.queue.read(&ob), want, "{what}");
    }
}

/// OpExpectKHR on 8-wide vectors (bool8 and uint8), which the compiler
/// splits into 4-wide halves: the hint is its value there too. It was
/// left in the Vulkan module without its capability (the CTS's spirv_new
/// `op_expect`: "Opcode ExpectKHR requires one of these capabilities:
/// ExpectAssumeKHR").
const EXPECT8: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability Vector16
               OpCapability ExpectAssumeKHR
               OpExtension "SPV_KHR_expect_assume"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "expect8" %gid_var
               OpDecorate %gid_var BuiltIn GlobalInvocationId
               OpDecorate %gid_var Constant
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
       %bool = OpTypeBool
    %v3ulong = OpTypeVector %ulong 3
  %ptr_in_v3 = OpTypePointer Input %v3ulong
    %gid_var = OpVariable %ptr_in_v3 Input
     %v8uint = OpTypeVector %uint 8
     %v8bool = OpTypeVector %bool 8
     %ptr_v8 = OpTypePointer CrossWorkgroup %v8uint
       %fnty = OpTypeFunction %void %ptr_v8 %ptr_v8
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_5 = OpConstant %uint 5
      %zero8 = OpConstantComposite %v8uint %uint_0 %uint_0 %uint_0 %uint_0 %uint_0 %uint_0 %uint_0 %uint_0
       %one8 = OpConstantComposite %v8uint %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1
      %five8 = OpConstantComposite %v8uint %uint_5 %uint_5 %uint_5 %uint_5 %uint_5 %uint_5 %uint_5 %uint_5
      %false = OpConstantFalse %bool
     %false8 = OpConstantComposite %v8bool %false %false %false %false %false %false %false %false
          %k = OpFunction %void None %fnty
         %in = OpFunctionParameter %ptr_v8
        %out = OpFunctionParameter %ptr_v8
      %entry = OpLabel
         %g3 = OpLoad %v3ulong %gid_var Aligned 32
        %gid = OpCompositeExtract %ulong %g3 0
        %pin = OpInBoundsPtrAccessChain %ptr_v8 %in %gid
          %x = OpLoad %v8uint %pin Aligned 32
          %t = OpIEqual %v8bool %x %zero8
         %te = OpExpectKHR %v8bool %t %false8
         %xe = OpExpectKHR %v8uint %x %five8
          %r = OpSelect %v8uint %te %one8 %xe
       %pout = OpInBoundsPtrAccessChain %ptr_v8 %out %gid
               OpStore %pout %r Aligned 32
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn expect_on_wide_vectors_from_il() {
    if !has_extension("cl_khr_expect_assume") || ferrocl_tests::testing_pocl() {
        return;
    }
    let cl = Cl::new();
    let il = ferrocl_tests::spirv_as(EXPECT8, "spv1.0");
    let p = cl
        .try_build_spirv(&il, "")
        .unwrap_or_else(|e| panic!("{e}"));
    let k = p.kernel("expect8");
    let input: Vec<u32> = (0..64).map(|i| i % 7).collect();
    let want: Vec<u32> = input.iter().map(|&x| if x == 0 { 1 } else { x }).collect();
    let (ib, ob) = (cl.buffer_from(&input), cl.buffer::<u32>(input.len()));
    k.arg(0, &ib).arg(1, &ob);
    cl.queue.run(&k, &[input.len() / 8], None);
    assert_eq!(cl.queue.read(&ob), want);
}

// ---------------------------------------------------------------------
// cl_khr_kernel_clock

#[test]
fn kernel_clock_scopes_advance() {
    let reported = has_extension("cl_khr_kernel_clock");
    let caps = query_value::<u64>(device_info(
        device(),
        CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR,
    ));
    if !reported {
        assert!(
            caps.is_err(),
            "clock capabilities without cl_khr_kernel_clock"
        );
        return;
    }
    let caps = caps.expect("CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR");
    assert_ne!(caps, 0);
    let features = opencl_c_features();
    let cl = Cl::new();
    for (bit, scope) in [
        (CL_DEVICE_KERNEL_CLOCK_SCOPE_DEVICE_KHR, "device"),
        (CL_DEVICE_KERNEL_CLOCK_SCOPE_WORK_GROUP_KHR, "work_group"),
        (CL_DEVICE_KERNEL_CLOCK_SCOPE_SUB_GROUP_KHR, "sub_group"),
    ] {
        let feature = format!("__opencl_c_kernel_clock_scope_{scope}");
        assert_eq!(
            caps & bit != 0,
            features.contains(&feature),
            "{feature} and the capability bit disagree"
        );
        if caps & bit == 0 {
            continue;
        }
        // Per work-item: a read, a loop of work, a second read, a uint2
        // read; each later read not earlier, and the loop takes time.
        let source = format!(
            r#"
#ifndef {feature}
#error no macro
#endif
kernel void k(global ulong *out, uint n) {{
    size_t i = get_global_id(0);
    ulong t0 = clock_read_{scope}();
    uint x = (uint)i;
    for (uint j = 0; j < n; j++)
        x = x * 1664525u + 1013904223u;
    ulong t1 = clock_read_{scope}();
    uint2 h = clock_read_hilo_{scope}();
    ulong t2 = clock_read_{scope}();
    out[4 * i] = t0;
    out[4 * i + 1] = t1;
    out[4 * i + 2] = ((ulong)h.y << 32) | h.x;
    out[4 * i + 3] = t2 + (x == 12345u);
}}
"#
        );
        let k = cl
            .try_build(&source, "-cl-std=CL3.0")
            .unwrap_or_else(|e| panic!("{e}"))
            .kernel("k");
        let n = 64;
        let out = cl.buffer::<u64>(4 * n);
        k.arg(0, &out).arg(1, &20000u32);
        cl.queue.run(&k, &[n], None);
        let t = cl.queue.read(&out);
        for i in 0..n {
            let r = &t[4 * i..4 * i + 4];
            assert!(r[1] > r[0], "{scope}: no progress over the loop: {r:?}");
            assert!(r[2] >= r[1], "{scope}: hilo read went back: {r:?}");
            // t2 + (x == 12345), which is almost never 1: allow it.
            assert!(r[3] + 1 >= r[2], "{scope}: went back: {r:?}");
        }
    }
}

// ---------------------------------------------------------------------
// cl_khr_suggested_local_work_size

type SuggestFn = unsafe extern "C" fn(
    cl_command_queue,
    cl_kernel,
    cl_uint,
    *const usize,
    *const usize,
    *mut usize,
) -> cl_int;

fn suggest_fn() -> SuggestFn {
    let name = c"clGetKernelSuggestedLocalWorkSizeKHR";
    // SAFETY: a platform of the loader and a NUL-terminated name.
    let f = unsafe { clGetExtensionFunctionAddressForPlatform(platform(), name.as_ptr()) };
    assert!(
        !f.is_null(),
        "no clGetKernelSuggestedLocalWorkSizeKHR for the platform"
    );
    // SAFETY: the extension's signature.
    unsafe { std::mem::transmute::<*mut std::ffi::c_void, SuggestFn>(f) }
}

const SIZES: &str = r#"
kernel void sizes(global uint *out, int unused) {
    if (get_global_id(0) == 0 && get_global_id(1) == 0 && get_global_id(2) == 0) {
        out[0] = get_local_size(0);
        out[1] = get_local_size(1);
        out[2] = get_local_size(2);
    }
}
__attribute__((reqd_work_group_size(4, 2, 1)))
kernel void fixed(global uint *out) { out[0] = 1; }
"#;

#[test]
fn suggested_local_size_is_the_null_local_size() {
    if !has_extension("cl_khr_suggested_local_work_size") {
        return;
    }
    let suggest = suggest_fn();
    let cl = Cl::new();
    let program = cl.build(SIZES);
    let k = program.kernel("sizes");
    let out = cl.buffer::<u32>(3);
    let q = cl.queue.raw();
    let call =
        |k: cl_kernel, wd: u32, off: Option<&[usize]>, g: Option<&[usize]>, l: *mut usize| {
            // SAFETY: arrays of work_dim entries or NULL, as the test means.
            unsafe {
                suggest(
                    q,
                    k,
                    wd,
                    off.map_or(std::ptr::null(), |o| o.as_ptr()),
                    g.map_or(std::ptr::null(), |g| g.as_ptr()),
                    l,
                )
            }
        };
    // Arguments not set yet.
    let mut l = [0usize; 3];
    expect_error(
        call(k.raw(), 1, None, Some(&[64]), l.as_mut_ptr()),
        CL_INVALID_KERNEL_ARGS,
        "arguments unset",
    );
    k.arg(0, &out).arg(1, &0i32);
    for global in [
        vec![1usize],
        vec![7],
        vec![64],
        vec![1000],
        vec![1 << 20],
        vec![12, 10],
        vec![64, 64],
        vec![3, 5, 7],
        vec![16, 16, 16],
    ] {
        let wd = global.len();
        let mut l = [0usize; 3];
        let r = call(
            k.raw(),
            wd as u32,
            Some(&[3, 1, 2][..wd]),
            Some(&global),
            l.as_mut_ptr(),
        );
        assert_eq!(r, CL_SUCCESS, "global {global:?}");
        // What a NULL local size gives.
        cl.queue.run(&k, &global, None);
        let got = cl.queue.read(&out);
        let want: Vec<usize> = got[..wd].iter().map(|&x| x as usize).collect();
        assert_eq!(&l[..wd], &want[..], "global {global:?}");
        for d in 0..wd {
            assert_eq!(
                global[d] % l[d],
                0,
                "global {global:?}: {l:?} does not divide it"
            );
        }
    }
    // reqd_work_group_size is the suggestion.
    let fixed = program.kernel("fixed");
    fixed.arg(0, &out);
    let mut l = [0usize; 3];
    assert_eq!(
        call(fixed.raw(), 2, None, Some(&[8, 8]), l.as_mut_ptr()),
        CL_SUCCESS
    );
    assert_eq!(&l[..2], &[4, 2]);

    // The error checks.
    let mut l = [0usize; 3];
    let lp = l.as_mut_ptr();
    // SAFETY: an invalid queue handle, which the call must reject.
    let r = unsafe {
        suggest(
            std::ptr::null_mut(),
            k.raw(),
            1,
            std::ptr::null(),
            [8usize].as_ptr(),
            lp,
        )
    };
    expect_error(r, CL_INVALID_COMMAND_QUEUE, "NULL queue");
    expect_error(
        call(std::ptr::null_mut(), 1, None, Some(&[8]), lp),
        CL_INVALID_KERNEL,
        "NULL kernel",
    );
    expect_error(
        call(k.raw(), 0, None, Some(&[8]), lp),
        CL_INVALID_WORK_DIMENSION,
        "work_dim 0",
    );
    expect_error(
        call(k.raw(), 4, None, Some(&[8, 8, 8, 8]), lp),
        CL_INVALID_WORK_DIMENSION,
        "work_dim 4",
    );
    expect_error(
        call(k.raw(), 1, None, None, lp),
        CL_INVALID_GLOBAL_WORK_SIZE,
        "NULL global",
    );
    expect_error(
        call(k.raw(), 2, None, Some(&[8, 0]), lp),
        CL_INVALID_GLOBAL_WORK_SIZE,
        "a zero global size",
    );
    expect_error(
        call(k.raw(), 1, Some(&[usize::MAX - 4]), Some(&[8]), lp),
        CL_INVALID_GLOBAL_OFFSET,
        "offset + global past size_t",
    );
    expect_error(
        call(k.raw(), 1, None, Some(&[8]), std::ptr::null_mut()),
        CL_INVALID_VALUE,
        "NULL suggested_local_work_size",
    );
    // A queue of another context.
    let other = Cl::new();
    // SAFETY: a valid queue of another context.
    let r = unsafe {
        suggest(
            other.queue.raw(),
            k.raw(),
            1,
            std::ptr::null(),
            [8usize].as_ptr(),
            lp,
        )
    };
    expect_error(r, CL_INVALID_CONTEXT, "queue of another context");
}

// ---------------------------------------------------------------------
// cl_khr_spirv_queries

fn c_strings(param: cl_device_info) -> Vec<String> {
    let ptrs: Vec<usize> = query(device_info(device(), param)).expect("SPIR-V query");
    ptrs.iter()
        .map(|&p| {
            let p = p as *const c_char;
            assert!(!p.is_null());
            // SAFETY: the query returns NUL-terminated strings that live
            // as long as the device.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        })
        .collect()
}

#[test]
fn spirv_queries_match_the_il_intake() {
    if !has_extension("cl_khr_spirv_queries") {
        return;
    }
    let sets = c_strings(CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR);
    assert!(sets.iter().any(|s| s == "OpenCL.std"), "{sets:?}");
    let exts = c_strings(CL_DEVICE_SPIRV_EXTENSIONS_KHR);
    let caps: Vec<cl_uint> =
        query(device_info(device(), CL_DEVICE_SPIRV_CAPABILITIES_KHR)).expect("capabilities");
    // Addresses 4, Linkage 5, Kernel 6, Int64 11 (OpenCL 3.0 full profile).
    for c in [4, 5, 6, 11] {
        assert!(caps.contains(&c), "capability {c} missing: {caps:?}");
    }
    // Each reported extension of these families comes with its capability.
    for (ext, cap) in [
        ("SPV_KHR_integer_dot_product", 6019),
        ("SPV_KHR_bit_instructions", 6025),
        ("SPV_KHR_expect_assume", 5629),
        ("SPV_KHR_shader_clock", 5055),
    ] {
        if exts.iter().any(|e| e == ext) {
            assert!(caps.contains(&cap), "{ext} without capability {cap}");
        }
    }
    // What the OpenCL SPIR-V environment requires of the device's other
    // reports (CTS api spirv_query_requirements): GenericPointer with the
    // generic address space, Groups with work-group collectives, and for
    // cl_ext_float_atomics the float-atomic extensions and capabilities
    // per width reported.
    let generic: cl_bool = device_value(device(), CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT);
    if generic == CL_TRUE {
        assert!(caps.contains(&38), "GenericPointer missing: {caps:?}");
    }
    let collectives: cl_bool =
        device_value(device(), CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT);
    if collectives == CL_TRUE {
        assert!(caps.contains(&18), "Groups missing: {caps:?}");
    }
    if has_extension("cl_ext_float_atomics") {
        // CL_DEVICE_{SINGLE,DOUBLE}_FP_ATOMIC_CAPABILITIES_EXT; bits 1, 17:
        // add, 2, 18: min/max (global, local).
        for (param, add_cap, min_max_cap) in [(0x4231, 6033, 5612), (0x4232, 6034, 5613)] {
            let fp: u64 =
                ferrocl_tests::info::query_value(device_info(device(), param)).unwrap_or(0);
            if fp & (1 << 1 | 1 << 17) != 0 {
                assert!(exts.iter().any(|e| e == "SPV_EXT_shader_atomic_float_add"));
                assert!(caps.contains(&add_cap), "capability {add_cap}: {caps:?}");
            }
            if fp & (1 << 2 | 1 << 18) != 0 {
                assert!(exts
                    .iter()
                    .any(|e| e == "SPV_EXT_shader_atomic_float_min_max"));
                assert!(
                    caps.contains(&min_max_cap),
                    "capability {min_max_cap}: {caps:?}"
                );
            }
        }
    }
    let cl = Cl::new();
    // The intake takes a module declaring a reported extension, and
    // refuses one declaring another.
    if exts.iter().any(|e| e == "SPV_KHR_expect_assume") {
        let il = spirv_with(HINTS, "+SPV_KHR_expect_assume");
        assert!(cl.try_build_spirv(&il, "").is_ok());
    }
    let il = spirv_with(HINTS, "+SPV_KHR_expect_assume");
    let mut words: Vec<u32> = il
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // Rename the extension in place: "SPV_KHR_expect_assume" has the
    // length of "SPV_XYZ_expect_assume".
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let at = bytes
        .windows(7)
        .position(|w| w == b"SPV_KHR")
        .expect("the extension is declared");
    let mut bytes = bytes;
    bytes[at + 4..at + 7].copy_from_slice(b"XYZ");
    words = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let il: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if !ferrocl_tests::testing_pocl() {
        let e = cl
            .try_build_spirv(&il, "")
            .err()
            .expect("an unknown extension builds");
        assert_eq!(e.status.0, CL_BUILD_PROGRAM_FAILURE, "{e}");
        assert!(e.log.contains("SPV_XYZ_expect_assume"), "{}", e.log);
    }
}

// ---------------------------------------------------------------------
// CL_DEVICE_MAX_CLOCK_FREQUENCY

#[test]
fn max_clock_frequency_of_a_cpu_or_nvidia_device_is_known() {
    let mhz: u32 = device_value(device(), CL_DEVICE_MAX_CLOCK_FREQUENCY);
    let ty: cl_device_type = device_value(device(), CL_DEVICE_TYPE);
    let vendor: cl_uint = device_value(device(), CL_DEVICE_VENDOR_ID);
    // CPUs: cpufreq or /proc/cpuinfo; NVIDIA GPUs: NVML, which the
    // driver installs.
    if ty & CL_DEVICE_TYPE_CPU != 0 || vendor == 0x10de {
        // Between 100 MHz and 10 GHz.
        assert!((100..10_000).contains(&mhz), "{mhz} MHz");
    }
}

#[test]
fn reported_extensions_have_versions() {
    let v: Vec<cl_name_version> =
        query(device_info(device(), CL_DEVICE_EXTENSIONS_WITH_VERSION)).expect("versions");
    let names: Vec<String> = v
        .iter()
        .map(|nv| {
            // SAFETY: NUL-terminated within the array.
            unsafe { CStr::from_ptr(nv.name.as_ptr().cast()) }
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut listed = extensions();
    listed.sort();
    let mut named = names.clone();
    named.sort();
    assert_eq!(
        listed, named,
        "CL_DEVICE_EXTENSIONS and _WITH_VERSION differ"
    );
    if !ferrocl_tests::testing_pocl() {
        for e in [
            "cl_khr_extended_bit_ops",
            "cl_khr_integer_dot_product",
            "cl_khr_expect_assume",
            "cl_khr_suggested_local_work_size",
            "cl_khr_spirv_queries",
        ] {
            assert!(names.iter().any(|n| n == e), "{e} not reported");
        }
    }
}
