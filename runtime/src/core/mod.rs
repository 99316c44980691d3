//! The OpenCL object model. No raw CL pointers beyond handles' identity;
//! Vulkan work is delegated to `crate::vk`.

pub mod context;
pub mod device;
pub mod error;
pub mod event;
pub mod global_vars;
pub mod hostcopy;
pub mod image;
pub mod image_format;
pub mod image_geometry;
pub mod image_support;
pub mod image_transfer;
pub mod kernel;
pub mod launch;
pub mod memory;
pub mod object;
pub mod platform;
pub mod printf;
pub mod program;
pub mod queue;
pub mod residency;
pub mod sampler;
pub mod transfer;
