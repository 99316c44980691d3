//! Reflection: what clGetKernelInfo / clGetKernelArgInfo report and what
//! the runtime needs to dispatch (`reflect_kernel`).

use rspirv::spirv::StorageClass;

use crate::abi::{AccessQualifier, AddressQualifier, ArgKind, KernelArg};
use crate::frontend::ArgMetadata;
use crate::passes::lower::{ArgLayout, LoweredKernel};
use crate::program::Kernel;

/// Builds the `Kernel` of a lowered kernel. Argument names, type names and
/// qualifiers come from clang's metadata when the program was built from
/// source; from the SPIR-V (OpName, types, storage classes) otherwise.
pub fn reflect_kernel(
    name: &str,
    lowered: &LoweredKernel,
    spirv: Vec<u32>,
    metadata: Option<&[ArgMetadata]>,
) -> Kernel {
    let args = lowered
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| reflect_arg(a, metadata.and_then(|m| m.get(i))))
        .collect();
    let mut attributes = Vec::new();
    if let Some([x, y, z]) = lowered.reqd_work_group_size {
        attributes.push(format!("reqd_work_group_size({x},{y},{z})"));
    }
    if let Some([x, y, z]) = lowered.work_group_size_hint {
        attributes.push(format!("work_group_size_hint({x},{y},{z})"));
    }
    if let Some(t) = &lowered.vec_type_hint {
        attributes.push(format!("vec_type_hint({t})"));
    }
    Kernel {
        name: name.to_string(),
        entry_point: name.to_string(),
        spirv,
        args,
        push_constant_size: lowered.push_constant_size,
        arg_buffer: lowered.arg_buffer.clone(),
        implicit: lowered.implicit.clone(),
        reqd_work_group_size: lowered.reqd_work_group_size,
        compile_num_sub_groups: lowered.compile_num_sub_groups,
        work_group_size_hint: lowered.work_group_size_hint,
        vec_type_hint: lowered.vec_type_hint.clone(),
        attributes: attributes.join(" "),
        static_local_size: lowered.static_local_size,
        private_size: lowered.private_size,
        printf: lowered.printf.clone(),
        printf_strings: lowered.printf_strings.clone(),
        descriptor_set: lowered.descriptor_set,
        literal_samplers: lowered.literal_samplers.clone(),
        addressing: lowered.addressing,
        global_variables_binding: lowered.global_variables_binding,
        printf_binding: lowered.printf_binding,
        loop_status: false,
    }
}

fn reflect_arg(a: &ArgLayout, md: Option<&ArgMetadata>) -> KernelArg {
    let address_qualifier = match md.map(|m| m.addr_space) {
        Some(1) => AddressQualifier::Global,
        Some(2) => AddressQualifier::Constant,
        Some(3) => AddressQualifier::Local,
        Some(_) => AddressQualifier::Private,
        None => match a.storage_class {
            Some(StorageClass::CrossWorkgroup) => AddressQualifier::Global,
            Some(StorageClass::UniformConstant) => AddressQualifier::Constant,
            Some(StorageClass::Workgroup) => AddressQualifier::Local,
            _ => AddressQualifier::Private,
        },
    };
    let access_qualifier = match md.map(|m| m.access_qual.as_str()) {
        Some("read_only") => AccessQualifier::ReadOnly,
        Some("write_only") => AccessQualifier::WriteOnly,
        Some("read_write") => AccessQualifier::ReadWrite,
        Some(_) => AccessQualifier::None,
        None => a.access,
    };
    let mut type_qualifier = 0;
    if let Some(m) = md {
        for q in m.type_qual.split_whitespace() {
            type_qualifier |= match q {
                "const" => 1,
                "restrict" => 2,
                "volatile" => 4,
                "pipe" => 8,
                _ => 0,
            };
        }
    }
    // CL_KERNEL_ARG_TYPE_CONST is reported for __constant pointers too.
    if address_qualifier == AddressQualifier::Constant && a.kind == ArgKind::Buffer {
        type_qualifier |= 1;
    }
    KernelArg {
        name: md.map_or_else(|| a.name.clone(), |m| m.name.clone()),
        type_name: md.map_or_else(|| a.type_name.clone(), |m| m.type_name.clone()),
        address_qualifier,
        access_qualifier,
        type_qualifier,
        kind: a.kind,
        offset: a.offset,
        size: a.size,
        descriptor: a.descriptor,
    }
}
