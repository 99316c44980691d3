//! ferrocl's runtime: the OpenCL object model (`core`) and its execution
//! on Vulkan (`vk`). The C ABI lives in the `ferrocl-icd` crate.
//!
//! Layer: the runtime, below the ICD's entry points. `core` (layered,
//! see its doc) sits on `vk`, which uses only `core`'s foundation.

pub mod core;
pub mod vk;

pub use crate::core::error::CLResult;
