//! `ferrocl-cc`: compiles OpenCL C to a Vulkan SPIR-V module.
//!
//! `ferrocl-cc foo.cl -o foo.spv [-kernel=NAME] [-soft-fma64] [OpenCL build
//! options]` writes the module of the first kernel (or of NAME) and prints
//! the reflection to stderr. `-soft-fma64`: compile for a device whose
//! double Fma is not fused (`DeviceCaps::fused_fma64`); `-soft-fma32`: the
//! same for float (`DeviceCaps::fused_fma32`); `-denorms32`: for a device
//! that preserves float denormals (`DeviceCaps::denorms32`);
//! `-rmw-ordering`: for a device whose memory barriers stall the work-group
//! (`DeviceCaps::rmw_ordering`, lavapipe); `-vulkan-memory-model`: for a
//! device with the Vulkan memory model (`DeviceCaps::vulkan_memory_model`);
//! `-loop-limiter`: for a driver that cuts long loops (lavapipe,
//! `DeviceCaps::loop_limiter`: kernels with loops report cut loops);
//! `-soft-int64-division`: for a driver whose 64-bit division is wrong
//! (NVIDIA, `DeviceCaps::soft_int64_division`); `-wide-narrow-arithmetic`:
//! 8/16-bit arithmetic in 32 bits (NVIDIA,
//! `DeviceCaps::wide_narrow_arithmetic`); `-soft-long-sign-extension`:
//! 32-to-64-bit sign extensions as arithmetic (lavapipe,
//! `DeviceCaps::soft_long_sign_extension`); `-branch-loop-exits`: for
//! a driver that misruns loop exits routed through the latch (lavapipe,
//! `DeviceCaps::branch_loop_exits`); `-split-bitcasts-to-16bit`: for a
//! driver that folds 64-bit → 4 × 16-bit bitcasts wrongly (lavapipe,
//! `DeviceCaps::split_bitcasts_to_16bit`); `-inline-functions`: the
//! program's functions inlined (NVIDIA, `DeviceCaps::inline_functions`);
//! `-spill-loop-live-outs`: values live out of loops through variables
//! (lavapipe, `DeviceCaps::spill_loop_live_outs`); `-integer-bool-phis`:
//! boolean phis as 32-bit integer phis (NVIDIA,
//! `DeviceCaps::integer_bool_phis`); `-branch-buffer-selects`: descriptor
//! addressing without variable pointers (NVIDIA,
//! `DeviceCaps::branch_buffer_selects`).
//!
//! Descriptor addressing (`abi`, `Addressing::Descriptor`):
//! `-descriptormap=map.csv` writes the clspv-style descriptor map of every
//! kernel (`descriptor_map`); `-samplermap=file` (literal samplers in set
//! 0, arguments in set 1), `-pod-ubo` (POD arguments in uniform buffers)
//! and `-cluster-pod-kernel-args` (all POD arguments in one buffer) choose
//! the bindings. Any of these, or `-addressing=descriptor`, selects the
//! descriptor format.

use std::process::ExitCode;

use ferrocl_compiler::descriptor_map::{descriptor_map, parse_sampler_map};
use ferrocl_compiler::{build_source, Addressing, DescriptorOptions, DeviceCaps};

const USAGE: &str =
    "usage: ferrocl-cc foo.cl -o foo.spv [-kernel=NAME] [-soft-fma64] [-soft-fma32] [-denorms32] [-rmw-ordering] [-loop-limiter] [-soft-int64-division] [-wide-narrow-arithmetic] [-soft-long-sign-extension] [-branch-loop-exits] [-split-bitcasts-to-16bit] [-inline-functions] [-spill-loop-live-outs] [-integer-bool-phis] [-branch-buffer-selects] [-preserve-float-controls] \
[-addressing=physical|descriptor] [-descriptormap=map.csv] [-samplermap=file] [-pod-ubo] \
[-cluster-pod-kernel-args] [-D..] [-I..] [-cl-std=..]";

fn main() -> ExitCode {
    let mut input = None;
    let mut output = None;
    let mut kernel = None;
    let mut fused_fma64 = true;
    let mut fused_fma32 = true;
    let mut denorms32 = false;
    let mut rmw_ordering = false;
    let mut vulkan_memory_model = false;
    let mut loop_limiter = false;
    let mut soft_int64_division = false;
    let mut wide_narrow_arithmetic = false;
    let mut soft_long_sign_extension = false;
    let mut branch_loop_exits = false;
    let mut split_bitcasts_to_16bit = false;
    let mut inline_functions = false;
    let mut spill_loop_live_outs = false;
    let mut integer_bool_phis = false;
    let mut branch_buffer_selects = false;
    // DenormPreserve and SignedZeroInfNanPreserve for every float width
    // (what ferrocl asks of a device that has them).
    let mut float_controls = ferrocl_compiler::FloatWidths::default();
    let mut addressing = None;
    let mut descriptor_map_path = None;
    let mut sampler_map_path = None;
    let mut desc = DescriptorOptions::default();
    let mut options = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "-o" {
            output = args.next();
        } else if a == "-soft-fma64" {
            fused_fma64 = false;
        } else if a == "-soft-fma32" {
            fused_fma32 = false;
        } else if a == "-denorms32" {
            denorms32 = true;
        } else if a == "-rmw-ordering" {
            rmw_ordering = true;
        } else if a == "-vulkan-memory-model" {
            vulkan_memory_model = true;
        } else if a == "-loop-limiter" {
            loop_limiter = true;
        } else if a == "-soft-int64-division" {
            soft_int64_division = true;
        } else if a == "-wide-narrow-arithmetic" {
            wide_narrow_arithmetic = true;
        } else if a == "-soft-long-sign-extension" {
            soft_long_sign_extension = true;
        } else if a == "-branch-loop-exits" {
            branch_loop_exits = true;
        } else if a == "-split-bitcasts-to-16bit" {
            split_bitcasts_to_16bit = true;
        } else if a == "-inline-functions" {
            inline_functions = true;
        } else if a == "-spill-loop-live-outs" {
            spill_loop_live_outs = true;
        } else if a == "-integer-bool-phis" {
            integer_bool_phis = true;
        } else if a == "-branch-buffer-selects" {
            branch_buffer_selects = true;
        } else if a == "-preserve-float-controls" {
            float_controls = ferrocl_compiler::FloatWidths::ALL;
        } else if let Some(k) = a.strip_prefix("-kernel=") {
            kernel = Some(k.to_string());
        } else if let Some(m) = a.strip_prefix("-addressing=") {
            addressing = Some(match m {
                "physical" => Addressing::Physical,
                "descriptor" => Addressing::Descriptor,
                _ => {
                    eprintln!("ferrocl-cc: -addressing= takes physical or descriptor");
                    return ExitCode::FAILURE;
                }
            });
        } else if let Some(f) = a.strip_prefix("-descriptormap=") {
            descriptor_map_path = Some(f.to_string());
        } else if let Some(f) = a.strip_prefix("-samplermap=") {
            sampler_map_path = Some(f.to_string());
        } else if a == "-pod-ubo" {
            desc.pod_ubo = true;
        } else if a == "-cluster-pod-kernel-args" {
            desc.cluster_pod_args = true;
        } else if a.ends_with(".cl") && input.is_none() {
            input = Some(a);
        } else if a == "-h" || a == "--help" {
            eprintln!("{USAGE}");
            return ExitCode::SUCCESS;
        } else {
            if (a == "-D" || a == "-I") && !a.is_empty() {
                options.push(a);
                if let Some(v) = args.next() {
                    options.push(v);
                }
                continue;
            }
            options.push(a);
        }
    }
    let Some(input) = input else {
        eprintln!("ferrocl-cc: no input file ({USAGE})");
        return ExitCode::FAILURE;
    };
    let source = match std::fs::read_to_string(&input) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ferrocl-cc: {input}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let sampler_map = match &sampler_map_path {
        None => Vec::new(),
        Some(f) => match std::fs::read_to_string(f).map_err(|e| e.to_string()) {
            Ok(text) => match parse_sampler_map(&text) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("ferrocl-cc: {f}: {e}");
                    return ExitCode::FAILURE;
                }
            },
            Err(e) => {
                eprintln!("ferrocl-cc: {f}: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    desc.sampler_map = sampler_map.iter().map(|e| e.value).collect();
    let implied = descriptor_map_path.is_some()
        || sampler_map_path.is_some()
        || desc.pod_ubo
        || desc.cluster_pod_args;
    let addressing = match addressing {
        Some(Addressing::Physical) if implied => {
            eprintln!(
                "ferrocl-cc: -descriptormap, -samplermap, -pod-ubo and -cluster-pod-kernel-args \
                 need descriptor addressing"
            );
            return ExitCode::FAILURE;
        }
        Some(a) => a,
        None if implied => Addressing::Descriptor,
        None => Addressing::Physical,
    };
    let caps = DeviceCaps {
        addressing,
        max_push_constant_size: 128,
        fp64: true,
        fp16: true,
        int64_atomics: true,
        subgroup_size: 32,
        khr_subgroups: true,
        subgroup_ops: 0x7f,
        spirv_version: (1, 5),
        images: true,
        read_write_images: true,
        depth_images: true,
        mipmap_image: true,
        mipmap_image_write_args: 8,
        image2d_from_buffer_args: 0,
        fused_fma64,
        fused_fma32,
        denorms32,
        preserve_denorms: float_controls,
        preserve_inf_nan: float_controls,
        rmw_ordering,
        vulkan_memory_model,
        loop_limiter,
        soft_int64_division,
        wide_narrow_arithmetic,
        soft_long_sign_extension,
        branch_loop_exits,
        split_bitcasts_to_16bit,
        inline_functions,
        spill_loop_live_outs,
        integer_bool_phis,
        branch_buffer_selects,
        integer_dot_product: true,
        device_clock: true,
        subgroup_clock: true,
        max_num_sub_groups: 32,
        float_atomics: 0,
        descriptor: desc,
    };
    let quoted: Vec<String> = options
        .iter()
        .map(|o| format!("'{}'", o.replace('\'', "'\\''")))
        .collect();
    let program = match build_source(&source, &quoted.join(" "), &caps) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{}", e.log);
            return ExitCode::FAILURE;
        }
    };
    if !program.log.is_empty() {
        eprint!("{}", program.log);
    }
    let k = match &kernel {
        Some(name) => program.kernels.iter().find(|k| &k.name == name),
        None => program.kernels.first(),
    };
    let Some(k) = k else {
        eprintln!("ferrocl-cc: no such kernel");
        return ExitCode::FAILURE;
    };
    eprintln!(
        "kernel {}: push constants {} bytes, arg buffer {:?}, implicit {:?}, local {} bytes, private {} bytes",
        k.name, k.push_constant_size, k.arg_buffer, k.implicit, k.static_local_size, k.private_size
    );
    for a in &k.args {
        eprintln!(
            "  arg {} {} {:?} offset {} size {}{}",
            a.type_name,
            a.name,
            a.kind,
            a.offset,
            a.size,
            a.descriptor.map_or(String::new(), |d| format!(" {d:?}"))
        );
    }
    if k.descriptor_set.is_some() || !k.literal_samplers.is_empty() {
        eprintln!(
            "  descriptor set {:?}, literal samplers {:x?}, global variables binding {:?}",
            k.descriptor_set, k.literal_samplers, k.global_variables_binding
        );
    }
    if let Some(path) = &descriptor_map_path {
        if let Err(e) = std::fs::write(path, descriptor_map(&program, &sampler_map)) {
            eprintln!("ferrocl-cc: {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    let out = output.unwrap_or_else(|| format!("{}.spv", k.name));
    let bytes: Vec<u8> = k.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Err(e) = std::fs::write(&out, bytes) {
        eprintln!("ferrocl-cc: {out}: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
