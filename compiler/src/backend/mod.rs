//! Back end: what the compiler makes of a lowered Vulkan module and hands
//! to the runtime — validation (`validate`, spirv-val), reflection
//! (`reflect`, the `Kernel` the runtime dispatches by), clspv-style
//! descriptor maps (`descriptor_map`) and ferrocl's program binary format
//! (`binary`, CL_PROGRAM_BINARIES and the compile cache's files).

pub mod binary;
pub mod descriptor_map;
pub mod reflect;
pub mod validate;
