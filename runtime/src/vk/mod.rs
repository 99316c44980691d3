//! Execution on Vulkan (ash + gpu-allocator). No OpenCL policy lives here
//! beyond what the object model asks for.
//!
//! Layer: below the object model (`crate::core` from its platform and
//! devices up); uses only the foundation of `crate::core` (errors, the
//! image format table, launch plans). Inside, `device` is a hub that
//! `buffer`, `clock`, `descriptors` and `image` refer to and back.

pub mod allocation_probe;
pub mod buffer;
pub mod clock;
pub mod descriptors;
pub mod device;
pub mod dispatch;
pub mod external;
pub mod external_memory;
pub mod external_semaphore;
pub mod fault_injection;
pub mod image;
pub mod instance;
pub mod live;
pub mod loop_status;
pub mod pipeline;
pub mod pipeline_cache;
pub mod pipeline_lock;
pub mod queue;
pub mod recording;
pub mod shared_memory;
pub mod spirv_opt;

use ash::vk;
use opencl_sys::*;

/// The one place where a VkResult becomes a cl_int.
pub fn map_vk_err(e: vk::Result) -> cl_int {
    match e {
        vk::Result::ERROR_OUT_OF_HOST_MEMORY => CL_OUT_OF_HOST_MEMORY,
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => CL_MEM_OBJECT_ALLOCATION_FAILURE,
        vk::Result::ERROR_DEVICE_LOST => CL_OUT_OF_RESOURCES,
        _ => CL_OUT_OF_RESOURCES,
    }
}
