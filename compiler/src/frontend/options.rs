//! The application's build options (clBuildProgram's `options` string).

use crate::abi::Addressing;
use crate::caps::DeviceCaps;
use crate::error::BuildError;

/// Build options translated for `clang -cc1`.
#[derive(Clone, Debug, Default)]
pub struct FrontendOptions {
    /// Arguments for clang -cc1 (defines, include paths, math flags, -cl-std).
    pub clang_args: Vec<String>,
    /// `-cl-opt-disable`: compile at -O0.
    pub opt_disable: bool,
    /// What the math library is linked for (`libclc::MathOptions`): the
    /// device's fma and denormals, `-cl-fast-relaxed-math` /
    /// `-cl-unsafe-math-optimizations`.
    pub math: super::libclc::MathOptions,
    /// Feature macros to undefine after clang's default header, which
    /// defines them for SPIR targets whatever `-cl-ext` says.
    pub undef_macros: Vec<&'static str>,
    /// Build-log warnings about the options (vendor options ignored).
    pub warnings: String,
    /// Macros and declarations read after the `#undef`s
    /// (`frontend::prelude`).
    pub prelude: String,
    /// The program's own functions are inlined before the translation to
    /// SPIR-V (`DeviceCaps::inline_functions`, `inline_functions`); not
    /// under `-cl-opt-disable`.
    pub inline_functions: bool,
}

/// Whether `w` is an option of a vendor's own OpenCL compiler, which
/// applications pass when the device's vendor is that vendor (ferrocl
/// reports the hardware's vendor): NVIDIA's `-cl-nv-verbose`,
/// `-cl-nv-maxrregcount=N`, `-cl-nv-opt-level=N`, `-cl-nv-arch sm_XX`,
/// `-nv-line-info`; AMD's `-fbin-*`, `-fno-bin-*`, `-cl-amd-*`,
/// `-save-temps`; Intel's `-cl-intel-*`; and `-O0`..`-O3` (not OpenCL
/// options; NVIDIA's and AMD's compilers take them). They tune or report on
/// that vendor's code generation, which ferrocl does not do: accepted with
/// a warning in the build log. Returns whether the option takes the next
/// word as its value (`-cl-nv-arch sm_90`).
pub fn vendor_option(w: &str) -> Option<bool> {
    const PREFIXES: [&str; 6] = [
        "-cl-nv-",
        "-nv-",
        "-fbin-",
        "-fno-bin-",
        "-cl-amd-",
        "-cl-intel-",
    ];
    let vendor = PREFIXES.iter().any(|p| w.starts_with(p))
        || matches!(w, "-O0" | "-O1" | "-O2" | "-O3" | "-save-temps");
    vendor.then_some(w == "-cl-nv-arch")
}

/// Splits `options` like a shell would (whitespace separates words; single
/// and double quotes group; backslash escapes the next character outside
/// single quotes).
pub fn split_options(options: &str) -> Result<Vec<String>, BuildError> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = options.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err(BuildError::options("unterminated ' in build options")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => cur.push(c),
                            None => {
                                return Err(BuildError::options("trailing \\ in build options"))
                            }
                        },
                        Some(c) => cur.push(c),
                        None => {
                            return Err(BuildError::options("unterminated \" in build options"))
                        }
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => cur.push(c),
                    None => return Err(BuildError::options("trailing \\ in build options")),
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// The ferrocl-specific build (and link) options that choose the target
/// rather than the OpenCL C dialect: `-ferrocl-addressing=physical|descriptor`
/// (the address format of global pointers, `abi`), clspv's `-pod-ubo`
/// and `-cluster-pod-kernel-args` (`DescriptorOptions`; they imply
/// descriptor addressing), and `-ferrocl-robust` (robust mode: descriptor
/// addressing, whose accesses the device bounds; the runtime checks the
/// device, `runtime/src/core/robust.rs`).
pub fn is_target_option(w: &str) -> bool {
    w.starts_with("-ferrocl-addressing=")
        || w == "-pod-ubo"
        || w == "-cluster-pod-kernel-args"
        || w == "-ferrocl-robust"
}

/// The value of `-ferrocl-addressing=`.
fn addressing_option(v: &str) -> Result<Addressing, BuildError> {
    match v {
        "physical" => Ok(Addressing::Physical),
        "descriptor" => Ok(Addressing::Descriptor),
        _ => Err(BuildError::options(format!(
            "-ferrocl-addressing= takes physical or descriptor, not '{v}'"
        ))),
    }
}

/// Checks one target option's value (`is_target_option`).
pub fn check_target_option(w: &str) -> Result<(), BuildError> {
    match w.strip_prefix("-ferrocl-addressing=") {
        Some(v) => addressing_option(v).map(|_| ()),
        None => Ok(()),
    }
}

/// `caps` with ferrocl's target options in `options` applied
/// (`is_target_option`): the device's default address format (the
/// runtime's `FERROCL_ADDRESSING`) unless the options choose one.
/// CL_INVALID_BUILD_OPTIONS for an unknown address format, or
/// `-pod-ubo` / `-cluster-pod-kernel-args` / `-ferrocl-robust` with
/// `-ferrocl-addressing=physical`.
pub fn target_caps(options: &str, caps: &DeviceCaps) -> Result<DeviceCaps, BuildError> {
    let mut out = caps.clone();
    let mut addressing = None;
    let mut pod_options = false;
    let mut robust = false;
    for w in split_options(options)? {
        if let Some(v) = w.strip_prefix("-ferrocl-addressing=") {
            addressing = Some(addressing_option(v)?);
        } else if w == "-pod-ubo" {
            out.descriptor.pod_ubo = true;
            pod_options = true;
        } else if w == "-cluster-pod-kernel-args" {
            out.descriptor.cluster_pod_args = true;
            pod_options = true;
        } else if w == "-ferrocl-robust" {
            robust = true;
        }
    }
    if robust && addressing == Some(Addressing::Physical) {
        return Err(BuildError::options(
            "-ferrocl-robust needs descriptor addressing, not -ferrocl-addressing=physical",
        ));
    }
    match addressing {
        Some(Addressing::Physical) if pod_options => {
            return Err(BuildError::options(
                "-pod-ubo and -cluster-pod-kernel-args need descriptor addressing, \
                 not -ferrocl-addressing=physical",
            ))
        }
        Some(a) => out.addressing = a,
        None if pod_options || robust => out.addressing = Addressing::Descriptor,
        None => {}
    }
    Ok(out)
}

/// Translates OpenCL build options (OpenCL 3.0 §5.8.6) for clang -cc1.
///
/// Accepted: `-D name[=value]` / `-Dname`, `-I dir` / `-Idir`, `-cl-std=CLx.y`,
/// the math options (`-cl-single-precision-constant`, `-cl-mad-enable`,
/// `-cl-no-signed-zeros`, `-cl-unsafe-math-optimizations`,
/// `-cl-finite-math-only`, `-cl-fast-relaxed-math`,
/// `-cl-fp32-correctly-rounded-divide-sqrt`, `-cl-uniform-work-group-size`),
/// `-cl-denorms-are-zero`, `-cl-no-subgroup-ifp` (both accepted and
/// ignored), `-cl-opt-disable`, `-cl-strict-aliasing`, `-cl-kernel-arg-info`
/// (always on), `-w`, `-Werror`, `-g`, ferrocl's target options
/// (`is_target_option`, applied by `target_caps`), and other vendors'
/// compiler options with a warning (`vendor_option`).
/// Anything else is CL_INVALID_BUILD_OPTIONS.
///
/// Also adds what the device implies: `-cl-ext=` switches off what ferrocl
/// does not implement yet (pipes, device enqueue,
/// the optional sub-group extensions), and work-group collectives,
/// sub-groups, fp64/fp16 and float atomics when `caps` lacks them.
pub fn parse_build_options(
    options: &str,
    caps: &DeviceCaps,
) -> Result<FrontendOptions, BuildError> {
    let words = split_options(options)?;
    let mut out = FrontendOptions {
        inline_functions: caps.inline_functions,
        ..Default::default()
    };
    let mut std = "CL1.2".to_string();
    // `-cl-std=CL3.1`: clang-15 knows OpenCL C up to 3.0, which 3.1 only
    // adds to (what it made core the device reports as extensions, whose
    // declarations clang has); the version macro is set in the prelude.
    let mut opencl_c_3_1 = false;
    let mut it = words.into_iter();
    while let Some(w) = it.next() {
        let mut value_of = |flag: &str, w: &str| -> Result<String, BuildError> {
            if w.len() > flag.len() {
                Ok(w[flag.len()..].to_string())
            } else {
                it.next()
                    .ok_or_else(|| BuildError::options(format!("missing value after {flag}")))
            }
        };
        match w.as_str() {
            w if w.starts_with("-D") => {
                let v = value_of("-D", w)?;
                if v.is_empty() || v.starts_with('=') {
                    return Err(BuildError::options(format!(
                        "invalid macro definition '-D{v}'"
                    )));
                }
                out.clang_args.push(format!("-D{v}"));
            }
            w if w.starts_with("-I") => {
                let v = value_of("-I", w)?;
                out.clang_args.push(format!("-I{v}"));
            }
            w if w.starts_with("-cl-std=") => {
                let v = &w["-cl-std=".len()..];
                opencl_c_3_1 = false;
                std = match v {
                    "CL1.0" | "CL1.1" | "CL1.2" | "CL2.0" | "CL3.0" => v.to_string(),
                    // "Calls to clBuildProgram or clCompileProgram with the
                    // -cl-std=CL3.1 option will fail to compile the program
                    // for any devices when CL_DEVICE_OPENCL_C_ALL_VERSIONS
                    // does not include OpenCL C 3.1."
                    "CL3.1" if caps.opencl_c_3_1() => {
                        opencl_c_3_1 = true;
                        "CL3.0".to_string()
                    }
                    _ => {
                        return Err(BuildError::options(format!(
                            "unsupported -cl-std value '{v}'"
                        )))
                    }
                };
            }
            "-cl-single-precision-constant"
            | "-cl-mad-enable"
            | "-cl-no-signed-zeros"
            | "-cl-unsafe-math-optimizations"
            | "-cl-finite-math-only"
            | "-cl-fast-relaxed-math"
            | "-cl-fp32-correctly-rounded-divide-sqrt"
            | "-cl-uniform-work-group-size"
            | "-w"
            | "-Werror" => out.clang_args.push(w),
            "-cl-strict-aliasing" => {
                // Deprecated in OpenCL 1.1; clang only warns about it.
            }
            "-cl-denorms-are-zero" | "-cl-no-subgroup-ifp" | "-cl-kernel-arg-info" | "-g" => {}
            "-cl-opt-disable" => out.opt_disable = true,
            // ferrocl's target options (`target_caps` applies them).
            w if is_target_option(w) => check_target_option(w)?,
            w if vendor_option(w).is_some() => {
                let mut shown = w.to_string();
                if vendor_option(w) == Some(true) {
                    if let Some(v) = it.next() {
                        shown = format!("{w} {v}");
                    }
                }
                out.warnings.push_str(&format!(
                    "warning: ignoring the vendor compiler option '{shown}' (ferrocl compiles through clang and Vulkan)\n"
                ));
            }
            _ => return Err(BuildError::options(format!("unknown build option '{w}'"))),
        }
    }
    out.clang_args.push(format!("-cl-std={std}"));
    let relaxed = out
        .clang_args
        .iter()
        .any(|a| a == "-cl-fast-relaxed-math" || a == "-cl-unsafe-math-optimizations");
    out.math = super::libclc::MathOptions::new(caps, relaxed);
    // clang defines __IMAGE_SUPPORT__ for every SPIR target: keep it only
    // where the device supports images (CL_DEVICE_IMAGE_SUPPORT).
    if !caps.images {
        out.clang_args.push("-U__IMAGE_SUPPORT__".into());
    }
    // Nor __OPENCL_VERSION__ (the SPIR spec leaves it to the vendor): the
    // device's CL_DEVICE_VERSION, 3.1 where it meets OpenCL C 3.1, else 3.0.
    let version = if caps.opencl_c_3_1() { 310 } else { 300 };
    out.clang_args
        .push(format!("-D__OPENCL_VERSION__={version}"));
    let mut ext = Vec::new();
    if std == "CL3.0" {
        // OpenCL C 3.0 optional features the devices do not report
        // (CL_DEVICE_OPENCL_C_FEATURES): images where the device has none
        // (with images: 2D/3D, read-write and 3D writes — Vulkan storage
        // images do all), work-group collectives. (Integer dot products
        // are supported on every device: `passes::lower::dot_product`.)
        // The atomic orders and scopes (__opencl_c_atomic_order_acq_rel,
        // _seq_cst, __opencl_c_atomic_scope_device, _all_devices) stay
        // defined. Every device ferrocl runs on today reports them
        // (`DeviceCaps::device_scope_atomics`: the Vulkan memory model, or
        // lavapipe's ordered read-modify-writes); on a device with neither
        // the runtime reports work-group scope only, and device-scope
        // atomics still build (GLSL450 semantics, `passes::lower::atomic`).
        if !caps.images {
            out.undef_macros
                .extend(["__opencl_c_images", "__opencl_c_3d_image_writes"]);
        }
        if !caps.images || !caps.read_write_images {
            out.undef_macros.push("__opencl_c_read_write_images");
        }
        out.undef_macros
            .extend(["__opencl_c_ext_image_unorm_int_2_101010"]);
        // The generic address space is supported everywhere
        // (`passes::lower::generic`, `passes::dispatch_generic`): clang-15
        // enables it, with its macro, for OpenCL C 3.0 on SPIR.
        ext.extend(["-__opencl_c_pipes", "-__opencl_c_device_enqueue"]);
        // Work-group collectives (`passes::lower::work_group`) where the
        // device has the sub-group operations they are built from.
        if !caps.work_group_collectives() {
            out.undef_macros
                .push("__opencl_c_work_group_collective_functions");
            ext.push("-__opencl_c_work_group_collective_functions");
        }
    }
    // cl_ext_float_atomics (OpenCL C 2.0 and later, where clang's SPIR
    // target defines every feature macro and declares the functions by
    // them): the macros of what the device lacks are undefined, which also
    // hides their functions (`DeviceCaps::fp_atomic_macros`).
    if std == "CL2.0" || std == "CL3.0" {
        let on = caps.fp_atomic_macros();
        out.undef_macros.extend(
            crate::caps::FP_ATOMIC_MACROS
                .iter()
                .map(|&(_, _, m)| m)
                .filter(|m| !on.contains(m)),
        );
    }
    // Sub-groups (cl_khr_subgroups, __opencl_c_subgroups) where the device
    // has them; of the optional sub-group extensions clang's SPIR target
    // declares, those the device lacks are off and their macros undefined,
    // so a kernel that uses them gets clang's error. (clang-15 turns the
    // supported ones on by default for SPIR, with their macros.)
    if !caps.subgroups() {
        ext.push("-cl_khr_subgroups");
        if std == "CL3.0" {
            ext.push("-__opencl_c_subgroups");
            out.undef_macros
                .extend(["__opencl_c_subgroups", "__opencl_subgroup_builtins"]);
        }
        out.undef_macros.push("cl_khr_subgroups");
    } else if !caps.khr_subgroups {
        // Sub-groups without independent forward progress: OpenCL C 3.0's
        // feature only, not the extension (which requires it).
        ext.push("-cl_khr_subgroups");
        out.undef_macros.push("cl_khr_subgroups");
    }
    for (switch, name) in caps.unsupported_subgroup_extensions() {
        ext.push(switch);
        out.undef_macros.push(name);
    }
    if !caps.fp64 {
        ext.push("-cl_khr_fp64");
        if std == "CL3.0" {
            ext.push("-__opencl_c_fp64");
        }
    }
    if !caps.fp16 {
        ext.push("-cl_khr_fp16");
    }
    // Depth images (clang's SPIR target declares image2d_depth_t and its
    // builtins by default) only where the device reports
    // cl_khr_depth_images.
    if !caps.depth_images {
        ext.push("-cl_khr_depth_images");
        out.undef_macros.push("cl_khr_depth_images");
    }
    // Mipmaps (cl_khr_mipmap_image) and writes to a level
    // (cl_khr_mipmap_image_writes) where the device reports them.
    if !caps.mipmap_image {
        ext.push("-cl_khr_mipmap_image");
        out.undef_macros.push("cl_khr_mipmap_image");
    }
    if caps.mipmap_image_write_args == 0 {
        ext.push("-cl_khr_mipmap_image_writes");
        out.undef_macros.push("cl_khr_mipmap_image_writes");
    }
    // 64-bit atomics (global: Int64Atomics; local: `lower::local64`) where
    // the device has shaderBufferInt64Atomics, as the runtime reports
    // cl_khr_int64_base_atomics / cl_khr_int64_extended_atomics; without
    // them atomic_long/atomic_ulong and atom_* on longs are undeclared.
    if !caps.int64_atomics {
        ext.extend([
            "-cl_khr_int64_base_atomics",
            "-cl_khr_int64_extended_atomics",
        ]);
        out.undef_macros
            .extend(["cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics"]);
    }
    // Arm's dot products (clang's SPIR target declares them), which
    // ferrocl does not report: cl_khr_integer_dot_product is the one.
    ext.extend([
        "-cl_arm_integer_dot_product_int8",
        "-cl_arm_integer_dot_product_accumulate_int8",
        "-cl_arm_integer_dot_product_accumulate_int16",
        "-cl_arm_integer_dot_product_accumulate_saturate_int8",
    ]);
    out.undef_macros.extend([
        "cl_arm_integer_dot_product_int8",
        "cl_arm_integer_dot_product_accumulate_int8",
        "cl_arm_integer_dot_product_accumulate_int16",
        "cl_arm_integer_dot_product_accumulate_saturate_int8",
    ]);
    out.prelude = super::prelude::prelude(caps);
    // CL_VERSION_3_1 whatever the version, as clang defines every older
    // CL_VERSION_* (`__OPENCL_C_VERSION__ >= CL_VERSION_3_1` must be false
    // for OpenCL C 1.2); `__OPENCL_C_VERSION__` is 310 only after the
    // default header, whose OpenCL C 3.0 feature macros test for 300.
    out.prelude.push_str("#define CL_VERSION_3_1 310\n");
    if opencl_c_3_1 {
        out.prelude
            .push_str("#undef __OPENCL_C_VERSION__\n#define __OPENCL_C_VERSION__ 310\n");
    }
    out.clang_args.push(format!("-cl-ext={}", ext.join(",")));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps() -> DeviceCaps {
        DeviceCaps {
            addressing: Addressing::Physical,
            max_push_constant_size: 128,
            fp64: true,
            fp16: false,
            int64_atomics: true,
            subgroup_size: 0,
            khr_subgroups: false,
            subgroup_ops: 0,
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
            descriptor: Default::default(),
        }
    }

    #[test]
    fn target_options_override_the_device_default() {
        let c = caps();
        let d = target_caps("-DX=1 -ferrocl-addressing=descriptor", &c).unwrap();
        assert_eq!(d.addressing, Addressing::Descriptor);
        assert_eq!(d.descriptor, Default::default());
        // The device default stays without target options.
        assert_eq!(target_caps("-cl-std=CL2.0", &c).unwrap(), c);
        let mut desc = c.clone();
        desc.addressing = Addressing::Descriptor;
        let p = target_caps("-ferrocl-addressing=physical", &desc).unwrap();
        assert_eq!(p.addressing, Addressing::Physical);
        // The POD options imply descriptor addressing.
        let u = target_caps("-pod-ubo -cluster-pod-kernel-args", &c).unwrap();
        assert_eq!(u.addressing, Addressing::Descriptor);
        assert!(u.descriptor.pod_ubo && u.descriptor.cluster_pod_args);
        // So does robust mode.
        let r = target_caps("-ferrocl-robust", &c).unwrap();
        assert_eq!(r.addressing, Addressing::Descriptor);
        assert!(parse_build_options("-ferrocl-robust", &c).is_ok());
        for bad in [
            "-ferrocl-addressing=",
            "-ferrocl-addressing=flat",
            "-ferrocl-addressing=physical -pod-ubo",
            "-ferrocl-robust -ferrocl-addressing=physical",
        ] {
            assert!(target_caps(bad, &c).unwrap_err().invalid_options, "{bad}");
        }
        // The front end accepts (and ignores) them.
        assert!(parse_build_options("-ferrocl-addressing=descriptor -pod-ubo", &c).is_ok());
        assert!(parse_build_options("-ferrocl-addressingX", &c).is_err());
        assert!(parse_build_options("-ferrocl-addressing=flat", &c).is_err());
        assert!(crate::parse_link_options("-ferrocl-addressing=descriptor").is_ok());
        assert!(crate::parse_link_options("-ferrocl-addressing=flat").is_err());
    }

    #[test]
    fn opencl_c_31_only_where_the_device_has_it() {
        let mut c = caps();
        let err = parse_build_options("-cl-std=CL3.1", &c).unwrap_err();
        assert!(err.invalid_options);
        // Sub-groups with the shuffle operations: the extensions OpenCL C
        // 3.1 made core.
        c.subgroup_size = 8;
        c.max_num_sub_groups = 16;
        c.subgroup_ops = crate::caps::SUBGROUP_BASIC
            | crate::caps::SUBGROUP_SHUFFLE
            | crate::caps::SUBGROUP_SHUFFLE_RELATIVE;
        assert!(c.opencl_c_3_1());
        let o = parse_build_options("-cl-std=CL3.1", &c).unwrap();
        assert!(o.clang_args.iter().any(|a| a == "-cl-std=CL3.0"));
        assert!(o.clang_args.iter().any(|a| a == "-D__OPENCL_VERSION__=310"));
        assert!(o.prelude.contains("#define __OPENCL_C_VERSION__ 310\n"));
        assert!(o.prelude.contains("#define CL_VERSION_3_1 310\n"));
        // Other versions keep clang's __OPENCL_C_VERSION__.
        let o = parse_build_options("-cl-std=CL3.0", &c).unwrap();
        assert!(!o.prelude.contains("__OPENCL_C_VERSION__"));
        assert!(o.prelude.contains("#define CL_VERSION_3_1 310\n"));
        c.subgroup_ops = crate::caps::SUBGROUP_BASIC | crate::caps::SUBGROUP_SHUFFLE;
        assert!(!c.opencl_c_3_1());
    }

    #[test]
    fn splits_quotes() {
        let w = split_options(r#"-D A="x y" -I 'a b' -DB=\"q\""#).unwrap();
        assert_eq!(w, ["-D", "A=x y", "-I", "a b", "-DB=\"q\""]);
    }
}
