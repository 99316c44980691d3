//! Device entry points: clGetDeviceIDs, clGetDeviceInfo (every OpenCL 3.0
//! parameter), sub-devices (not offered), device timers.

use std::ffi::c_void;
use std::sync::Arc;

use ferrocl_runtime::core::command_buffer;
use ferrocl_runtime::core::device::{cl_version, Device, IL_VERSIONS};
use ferrocl_runtime::core::object::{get, handle_of};
use ferrocl_runtime::core::platform::{version_string, Platform};
use opencl_sys::*;

use super::platform::{check_platform, name_versions, platform};
use crate::entry::code;
use crate::info::{write, Info};

/// cl_ext_float_atomics' queries (opencl-sys 0.6 lacks them; values from
/// the Khronos registry's cl_ext.h).
const CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4231;
const CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4232;
const CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4233;

pub unsafe extern "C" fn clGetDeviceIDs(
    p: cl_platform_id,
    device_type: cl_device_type,
    n: cl_uint,
    devices: *mut cl_device_id,
    num: *mut cl_uint,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let plat = unsafe { check_platform(p) }?;
        // "CL_INVALID_VALUE if num_entries is equal to zero and devices is
        // not NULL or if both num_devices and devices are NULL."
        if (n == 0 && !devices.is_null()) || (num.is_null() && devices.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        let valid = CL_DEVICE_TYPE_DEFAULT
            | CL_DEVICE_TYPE_CPU
            | CL_DEVICE_TYPE_GPU
            | CL_DEVICE_TYPE_ACCELERATOR
            | CL_DEVICE_TYPE_CUSTOM;
        // "CL_INVALID_DEVICE_TYPE if device_type is not a valid value."
        if device_type != CL_DEVICE_TYPE_ALL && (device_type & !valid != 0 || device_type == 0) {
            return Err(CL_INVALID_DEVICE_TYPE);
        }
        let found: Vec<&Arc<Device>> = plat
            .devices
            .iter()
            .filter(|d| d.selected_by(device_type))
            .collect();
        // "CL_DEVICE_NOT_FOUND if no OpenCL devices that matched device_type were found."
        if found.is_empty() {
            return Err(CL_DEVICE_NOT_FOUND);
        }
        if !devices.is_null() {
            for (i, d) in found.iter().take(n as usize).enumerate() {
                // SAFETY: the application provided n entries.
                unsafe { *devices.add(i) = handle_of(d) };
            }
        }
        if !num.is_null() {
            // SAFETY: valid pointer from the application.
            unsafe { *num = found.len() as cl_uint };
        }
        Ok(())
    })
}

/// The device list of a context or program creation call, checked.
///
/// # Safety
/// `list` must point at `n` handles when non-null.
pub unsafe fn device_list(
    n: cl_uint,
    list: *const cl_device_id,
) -> ferrocl_runtime::CLResult<Vec<Arc<Device>>> {
    if list.is_null() || n == 0 {
        return Err(CL_INVALID_VALUE);
    }
    // SAFETY: caller contract.
    let hs = unsafe { std::slice::from_raw_parts(list, n as usize) };
    let mut out: Vec<Arc<Device>> = Vec::new();
    for h in hs {
        // SAFETY: handle from the application.
        let d = unsafe { ferrocl_runtime::core::object::get_arc::<Device>(*h) }?;
        if !out.iter().any(|x| Arc::ptr_eq(x, &d)) {
            out.push(d);
        }
    }
    Ok(out)
}

/// cl_device_integer_dot_product_acceleration_properties_khr.
fn dot_acceleration(a: ferrocl_runtime::vk::instance::DotAcceleration) -> Info {
    let b = |v: bool| if v { CL_TRUE } else { CL_FALSE };
    Info::raw(&[
        b(a.signed),
        b(a.unsigned),
        b(a.mixed),
        b(a.sat_signed),
        b(a.sat_unsigned),
        b(a.sat_mixed),
    ])
}

/// An array of `const char *` to NUL-terminated copies of `names`, which
/// live as long as the process (the query returns the pointers).
fn string_array(names: &[&'static str]) -> Info {
    static INTERNED: std::sync::Mutex<Vec<(&'static str, &'static std::ffi::CStr)>> =
        std::sync::Mutex::new(Vec::new());
    let mut interned = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    let ptrs: Vec<*const std::ffi::c_char> = names
        .iter()
        .map(|&n| {
            let c = match interned.iter().find(|(s, _)| *s == n) {
                Some(&(_, c)) => c,
                None => {
                    let c: &'static std::ffi::CStr = Box::leak(
                        std::ffi::CString::new(n)
                            .unwrap_or_default()
                            .into_boxed_c_str(),
                    );
                    interned.push((n, c));
                    c
                }
            };
            c.as_ptr()
        })
        .collect();
    Info::raw(&ptrs)
}

fn device_info(d: &Device, plat: &Arc<Platform>, param: cl_device_info) -> Result<Info, cl_int> {
    let lim = &d.phys.properties.limits;
    let fp64 = d.fp64();
    let cpu = d.phys.is_cpu();
    let exts = d.extensions();
    let ext_str = exts.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(" ");
    Ok(match param {
        CL_DEVICE_TYPE => Info::u64(d.device_type()),
        CL_DEVICE_VENDOR_ID => Info::u32(d.vendor_id()),
        CL_DEVICE_MAX_COMPUTE_UNITS => Info::u32(d.max_compute_units()),
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => Info::u32(3),
        CL_DEVICE_MAX_WORK_ITEM_SIZES => Info::raw(&d.max_work_item_sizes()),
        CL_DEVICE_MAX_WORK_GROUP_SIZE => Info::usize(d.max_work_group_size()),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_INT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT => Info::u32(1),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE | CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => {
            Info::u32(fp64 as u32)
        }
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF | CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => {
            Info::u32(d.fp16() as u32)
        }
        // Vulkan does not expose the clock; 0 says "unknown".
        CL_DEVICE_MAX_CLOCK_FREQUENCY => Info::u32(d.max_clock_frequency()),
        CL_DEVICE_ADDRESS_BITS => Info::u32(64),
        CL_DEVICE_MAX_MEM_ALLOC_SIZE => Info::u64(d.max_mem_alloc_size()),
        CL_DEVICE_GLOBAL_MEM_SIZE => Info::u64(d.global_mem_size()),
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => Info::u32(CL_READ_WRITE_CACHE),
        CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => Info::u32(d.global_mem_cacheline_size()),
        // Not exposed by Vulkan.
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => Info::u64(0),
        CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => Info::u64(64 * 1024),
        CL_DEVICE_MAX_CONSTANT_ARGS => Info::u32(8),
        CL_DEVICE_LOCAL_MEM_TYPE => Info::u32(if cpu { CL_GLOBAL } else { CL_LOCAL }),
        CL_DEVICE_LOCAL_MEM_SIZE => Info::u64(d.local_mem_size()),
        CL_DEVICE_ERROR_CORRECTION_SUPPORT => Info::bool(false),
        CL_DEVICE_PROFILING_TIMER_RESOLUTION => Info::usize(d.profiling_timer_resolution()),
        CL_DEVICE_ENDIAN_LITTLE => Info::bool(true),
        CL_DEVICE_AVAILABLE | CL_DEVICE_COMPILER_AVAILABLE => Info::bool(true),
        // clCompileProgram/clLinkProgram: llvm-link-15 over LLVM bitcode.
        CL_DEVICE_LINKER_AVAILABLE => Info::bool(true),
        CL_DEVICE_EXECUTION_CAPABILITIES => Info::u64(CL_EXEC_KERNEL),
        CL_DEVICE_QUEUE_ON_HOST_PROPERTIES => {
            Info::u64(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)
        }
        CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES => Info::u64(0),
        CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE | CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE => {
            Info::u32(0)
        }
        CL_DEVICE_MAX_ON_DEVICE_QUEUES | CL_DEVICE_MAX_ON_DEVICE_EVENTS => Info::u32(0),
        CL_DEVICE_NAME => Info::str(&d.name()),
        CL_DEVICE_VENDOR => Info::str(d.vendor()),
        CL_DRIVER_VERSION => Info::str(&d.driver_version()),
        CL_DEVICE_PROFILE => Info::str("FULL_PROFILE"),
        // 3.1 where the device meets every 3.1 requirement
        // (`Device::opencl_3_1_missing`), else 3.0.
        CL_DEVICE_VERSION => Info::str(&version_string(d.opencl_version())),
        CL_DEVICE_NUMERIC_VERSION => {
            let (a, b, c) = d.opencl_version();
            Info::u32(cl_version(a, b, c))
        }
        CL_DEVICE_OPENCL_C_VERSION => Info::str("OpenCL C 1.2 ferrocl"),
        CL_DEVICE_OPENCL_C_NUMERIC_VERSION_KHR => Info::u32(cl_version(1, 2, 0)),
        CL_DEVICE_OPENCL_C_ALL_VERSIONS => name_versions(&d.opencl_c_versions()),
        CL_DEVICE_OPENCL_C_FEATURES => name_versions(&d.opencl_c_features()),
        CL_DEVICE_EXTENSIONS => Info::str(&ext_str),
        CL_DEVICE_EXTENSIONS_WITH_VERSION => name_versions(&exts),
        CL_DEVICE_PLATFORM => Info::ptr(handle_of(plat)),
        CL_DEVICE_DOUBLE_FP_CONFIG => Info::u64(d.double_fp_config()),
        CL_DEVICE_SINGLE_FP_CONFIG => Info::u64(d.single_fp_config()),
        CL_DEVICE_HALF_FP_CONFIG => Info::u64(d.half_fp_config()),
        CL_DEVICE_HOST_UNIFIED_MEMORY => Info::bool(cpu),
        CL_DEVICE_MEM_BASE_ADDR_ALIGN => Info::u32(d.mem_base_addr_align_bits()),
        CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => Info::u32(128),
        CL_DEVICE_MAX_PARAMETER_SIZE => Info::usize(d.max_parameter_size()),
        // Images (see runtime core::image_support).
        CL_DEVICE_IMAGE_SUPPORT => Info::bool(d.image_support()),
        CL_DEVICE_MAX_READ_IMAGE_ARGS => Info::u32(d.max_read_image_args()),
        CL_DEVICE_MAX_WRITE_IMAGE_ARGS => Info::u32(d.max_write_image_args()),
        CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS => Info::u32(d.max_read_write_image_args()),
        CL_DEVICE_MAX_SAMPLERS => Info::u32(d.max_samplers()),
        CL_DEVICE_IMAGE2D_MAX_WIDTH => Info::usize(d.image2d_max_width()),
        CL_DEVICE_IMAGE2D_MAX_HEIGHT => Info::usize(d.image2d_max_height()),
        CL_DEVICE_IMAGE3D_MAX_WIDTH
        | CL_DEVICE_IMAGE3D_MAX_HEIGHT
        | CL_DEVICE_IMAGE3D_MAX_DEPTH => Info::usize(d.image3d_max_size()),
        CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => Info::usize(d.image_max_buffer_size()),
        CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => Info::usize(d.image_max_array_size()),
        // "0 if [...] not supported" (cl_khr_image2d_from_buffer).
        CL_DEVICE_IMAGE_PITCH_ALIGNMENT => Info::u32(d.image_pitch_alignment()),
        CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT => Info::u32(d.image_base_address_alignment()),
        CL_DEVICE_BUILT_IN_KERNELS => Info::str(""),
        CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION => Info(Vec::new()),
        CL_DEVICE_PARENT_DEVICE => Info::ptr(std::ptr::null_mut::<c_void>()),
        CL_DEVICE_PARTITION_MAX_SUB_DEVICES => Info::u32(0),
        CL_DEVICE_PARTITION_PROPERTIES => Info::raw(&[0 as cl_device_partition_property]),
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN => Info::u64(0),
        CL_DEVICE_PARTITION_TYPE => Info(Vec::new()),
        CL_DEVICE_REFERENCE_COUNT => Info::u32(1),
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => Info::bool(true),
        CL_DEVICE_PRINTF_BUFFER_SIZE => Info::usize(1024 * 1024),
        // Program-scope global variables are not offered yet.
        CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE => Info::usize(d.max_global_variable_size()),
        CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE => Info::usize(d.max_global_variable_size()),
        CL_DEVICE_SVM_CAPABILITIES => Info::u64(d.svm_capabilities()),
        CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL
        | CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL
        | CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL
        | CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL
        | CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL => Info::u64(d.usm_capabilities(param)),
        CL_DEVICE_MAX_PIPE_ARGS
        | CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS
        | CL_DEVICE_PIPE_MAX_PACKET_SIZE => Info::u32(0),
        CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT => Info::u32(0),
        // OpenCL (Kernel) SPIR-V as llvm-spirv-15 writes it: 1.0 to 1.4
        // (core::program::is_supported_spirv checks the same range).
        CL_DEVICE_IL_VERSION => Info::str(
            IL_VERSIONS
                .map(|(n, (a, b, _))| format!("{n}_{a}.{b}"))
                .join(" ")
                .as_str(),
        ),
        CL_DEVICE_ILS_WITH_VERSION => name_versions(&IL_VERSIONS),
        // Sub-groups: `Device::subgroup_mode`; forward progress:
        // `Device::subgroup_forward_progress`.
        CL_DEVICE_MAX_NUM_SUB_GROUPS => Info::u32(d.max_num_sub_groups()),
        CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS => {
            Info::bool(d.subgroup_forward_progress())
        }
        CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES => Info::u64(d.atomic_memory_capabilities()),
        CL_DEVICE_ATOMIC_FENCE_CAPABILITIES => Info::u64(d.atomic_fence_capabilities()),
        CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT => Info::bool(true),
        CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => Info::usize(d.subgroup_size() as usize),
        CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT => Info::bool(d.work_group_collectives()),
        // cl_ext_float_atomics: `Device::fp_atomic_capabilities`.
        CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT => Info::u64(d.fp_atomic_capabilities(16)),
        CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT => Info::u64(d.fp_atomic_capabilities(32)),
        CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT => Info::u64(d.fp_atomic_capabilities(64)),
        CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT => Info::bool(true),
        CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES => Info::u64(0),
        CL_DEVICE_PIPE_SUPPORT => Info::bool(false),
        // Not conformant (yet): the spec's value for "none passed".
        CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED => Info::str("v0000-01-01-00"),
        CL_DEVICE_UUID_KHR => Info::raw(&d.phys.device_uuid),
        CL_DRIVER_UUID_KHR => Info::raw(&d.phys.driver_uuid),
        CL_DEVICE_LUID_VALID_KHR => Info::bool(false),
        CL_DEVICE_LUID_KHR => Info::raw(&[0u8; CL_LUID_SIZE_KHR]),
        CL_DEVICE_NODE_MASK_KHR => Info::u32(0),
        // cl_khr_integer_dot_product: both input forms on every device
        // (Vulkan's instructions or the compiler's exact emulation).
        CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR => Info::u64(
            CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR
                | CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR,
        ),
        CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR => {
            dot_acceleration(d.dot_acceleration(false))
        }
        p if p == CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR => {
            dot_acceleration(d.dot_acceleration(true))
        }
        // cl_khr_kernel_clock, where the device reports it.
        CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR => match d.kernel_clock_capabilities() {
            0 => return Err(CL_INVALID_VALUE),
            c => Info::u64(c),
        },
        // cl_khr_spirv_queries: what clCreateProgramWithIL takes
        // (ferrocl_compiler's il_support, which its intake checks).
        CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR => {
            string_array(&ferrocl_compiler::SPIRV_EXT_INST_SETS)
        }
        CL_DEVICE_SPIRV_EXTENSIONS_KHR => {
            string_array(&ferrocl_compiler::spirv_extensions(&d.compiler_caps()))
        }
        CL_DEVICE_SPIRV_CAPABILITIES_KHR => Info::raw(&ferrocl_compiler::spirv_capability_values(
            &d.compiler_caps(),
        )),
        // cl_khr_command_buffer (`core::command_buffer`).
        CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR => Info::u64(command_buffer::CAPABILITIES),
        CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR => {
            Info::u64(command_buffer::SUPPORTED_QUEUE_PROPERTIES)
        }
        CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR => Info::u64(0),
        // cl_khr_command_buffer_multi_device: no device synchronizes
        // natively with another (or between its own queues); sync points
        // across queues are the platform's universal sync
        // (`command_buffer::PLATFORM_CAPABILITIES`).
        CL_DEVICE_COMMAND_BUFFER_NUM_SYNC_DEVICES_KHR => Info::u32(0),
        CL_DEVICE_COMMAND_BUFFER_SYNC_DEVICES_KHR => Info::raw::<usize>(&[]),
        CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR => {
            Info::u64(command_buffer::MUTABLE_DISPATCH_CAPABILITIES)
        }
        CL_DEVICE_PCI_BUS_INFO_KHR => match &d.phys.pci_bus {
            Some(p) => Info::raw(&[p.pci_domain, p.pci_bus, p.pci_device, p.pci_function]),
            None => return Err(CL_INVALID_VALUE),
        },
        // cl_khr_external_memory, cl_khr_semaphore, cl_khr_external_semaphore.
        p => {
            let _ = lim;
            let interop = super::external_memory::device_info(d, p)
                .or_else(|| super::semaphore::device_info(d, p));
            return match interop {
                Some(info) => info,
                None => Err(CL_INVALID_VALUE),
            };
        }
    })
}

pub unsafe extern "C" fn clGetDeviceInfo(
    dev: cl_device_id,
    param: cl_device_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        let d = unsafe { get::<Device>(dev) }?;
        let info = device_info(d, platform(), param);
        // SAFETY: pointers from the application.
        unsafe { write(info, size, value, size_ret) }
    })
}

pub unsafe extern "C" fn clRetainDevice(dev: cl_device_id) -> cl_int {
    // Root devices: "the reference count is not changed".
    code(|| {
        // SAFETY: handle from the application.
        unsafe { get::<Device>(dev) }.map(|_| ())
    })
}

pub unsafe extern "C" fn clReleaseDevice(dev: cl_device_id) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        unsafe { get::<Device>(dev) }.map(|_| ())
    })
}

pub unsafe extern "C" fn clCreateSubDevices(
    dev: cl_device_id,
    _props: *const cl_device_partition_property,
    _n: cl_uint,
    _out: *mut cl_device_id,
    _num: *mut cl_uint,
) -> cl_int {
    code(|| {
        // SAFETY: handle from the application.
        unsafe { get::<Device>(dev) }?;
        // "CL_INVALID_VALUE if values specified in properties are not valid
        // or if values specified in properties are valid but not supported
        // by the device": CL_DEVICE_PARTITION_PROPERTIES lists none.
        Err(CL_INVALID_VALUE)
    })
}
