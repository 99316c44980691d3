//! Facts about an input (OpenCL, Kernel-flavour) module that passes read
//! but do not change: computed once and passed in read-only.
//!
//! * `type_table`: every type of the module and its OpenCL C layout.
//! * `module_index`: the module's globals, functions, decorations and
//!   value types by id, and call graphs.
//! * `address_space`: where each pointer value points (`Space`).
//! * `private_variables`: which private variables get arrays of their
//!   own instead of slices of the private frame.
//! * `buffer_slots`: which buffers each global pointer may point into
//!   (descriptor addressing).
//! * `image_origins`: which kernel argument or literal sampler each
//!   image/sampler value stands for.
//! * `builtin_imports`: imported functions that stand for builtins
//!   llvm-spirv-15 does not translate (packed dot products, kernel clocks).
//! * `kernel_facts`: all of the above for one kernel, for the lowering.

pub mod address_space;
pub mod buffer_slots;
pub mod builtin_imports;
pub mod image_origins;
pub mod kernel_facts;
pub mod module_index;
pub mod private_variables;
pub mod type_table;
