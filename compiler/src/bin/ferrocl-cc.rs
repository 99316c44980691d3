//! `ferrocl-cc`: compiles OpenCL C to a Vulkan SPIR-V module.
//!
//! `ferrocl-cc foo.cl -o foo.spv [-kernel=NAME] [-soft-fma64] [OpenCL build
//! options]` writes the module of the first kernel (or of NAME) and prints
//! the reflection to stderr. `-soft-fma64`: compile for a device whose
//! double Fma is not fused (`DeviceCaps::fused_fma64`).

use std::process::ExitCode;

use ferrocl_compiler::{build_source, Addressing, DeviceCaps};

fn main() -> ExitCode {
    let mut input = None;
    let mut output = None;
    let mut kernel = None;
    let mut fused_fma64 = true;
    let mut options = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "-o" {
            output = args.next();
        } else if a == "-soft-fma64" {
            fused_fma64 = false;
        } else if let Some(k) = a.strip_prefix("-kernel=") {
            kernel = Some(k.to_string());
        } else if a.ends_with(".cl") && input.is_none() {
            input = Some(a);
        } else if a == "-h" || a == "--help" {
            eprintln!(
                "usage: ferrocl-cc foo.cl -o foo.spv [-kernel=NAME] [-D..] [-I..] [-cl-std=..]"
            );
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
        eprintln!("ferrocl-cc: no input file (usage: ferrocl-cc foo.cl -o foo.spv)");
        return ExitCode::FAILURE;
    };
    let source = match std::fs::read_to_string(&input) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ferrocl-cc: {input}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let caps = DeviceCaps {
        addressing: Addressing::Physical,
        max_push_constant_size: 128,
        fp64: true,
        fp16: false,
        int64_atomics: true,
        subgroup_size: 32,
        spirv_version: (1, 5),
        images: true,
        read_write_images: true,
        fused_fma64,
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
            "  arg {} {} {:?} offset {} size {}",
            a.type_name, a.name, a.kind, a.offset, a.size
        );
    }
    if k.descriptor_set.is_some() || !k.literal_samplers.is_empty() {
        eprintln!(
            "  descriptor set {:?}, literal samplers {:x?}",
            k.descriptor_set, k.literal_samplers
        );
    }
    let out = output.unwrap_or_else(|| format!("{}.spv", k.name));
    let bytes: Vec<u8> = k.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Err(e) = std::fs::write(&out, bytes) {
        eprintln!("ferrocl-cc: {out}: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
