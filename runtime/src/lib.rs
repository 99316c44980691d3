//! ferrocl's runtime: the OpenCL object model (`core`) and its execution
//! on Vulkan (`vk`). The C ABI lives in the `ferrocl-icd` crate.

pub mod core;
pub mod vk;

pub use crate::core::error::CLResult;
