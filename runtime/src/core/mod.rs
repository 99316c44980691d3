//! The OpenCL object model. No raw CL pointers beyond handles' identity;
//! Vulkan work is delegated to `crate::vk`.
//!
//! Layers, bottom to top; a module uses only modules of its own layer or
//! of layers below it (no import circle):
//!
//! 1. foundation, pure or object-free: `error`, `exit`, `object`,
//!    `hostcopy`, `clock_frequency` (the device's clock from the system),
//!    `printf`, `image_format`, `image_geometry` (region geometry),
//!    `robust` (robust mode's switches and build checks) and `launch`
//!    (launch planning);
//! 2. platform and devices: `platform`, `device`, `context`,
//!    `image_support`, `sampler`; programs: `program`, `global_vars`,
//!    `prewarm` (kernel pipelines made ahead of launches), `local_args`
//!    (which pipeline a launch with `__local` pointer arguments runs);
//! 3. events and queues: `event` (knows its queue only as an
//!    `event::EventQueue`), `joined_event` (one event over several
//!    queues' commands), then `queue` and `semaphore`
//!    (cl_khr_semaphore: semaphore operations of the queue's submissions;
//!    `queue` keeps its count of pending signals);
//! 4. memory objects: `memory` (with the small types the layers above
//!    share: `ImagePart`, `MapMemory`, the per-device `Residency` record),
//!    then `image` (creation);
//! 5. residency: `residency` (per-device replicas, migration, and
//!    `resident`, which wraps a command's recording), then
//!    `device_address` (which object a raw device address points into);
//! 6. commands: `transfer` (buffers, maps), `image_transfer`, `kernel`
//!    (kernel objects and their arguments), then `prepared_launch` (an
//!    NDRange launch planned and ready to record; clEnqueueNDRangeKernel),
//!    then `command_buffer` (cl_khr_command_buffer: commands recorded once
//!    into Vulkan command buffers and replayed), `svm` (SVM allocations and
//!    their commands), `usm` (Intel unified shared memory, beside `svm`),
//!    `external_memory` (buffers over memory other APIs exported, and
//!    their ownership transfers).
//!
//! `crate::vk` sits below layer 2: it uses only `error`, `image_format`,
//! `robust` and `launch` of this module.

pub mod clock_frequency;
pub mod command_buffer;
pub mod context;
pub mod device;
pub mod device_address;
pub mod error;
pub mod event;
pub mod exit;
pub mod external_memory;
pub mod global_vars;
pub mod hostcopy;
pub mod image;
pub mod image_format;
pub mod image_geometry;
pub mod image_support;
pub mod image_transfer;
pub mod joined_event;
pub mod kernel;
pub mod launch;
pub mod local_args;
pub mod memory;
pub mod object;
pub mod platform;
pub mod prepared_launch;
pub mod prewarm;
pub mod printf;
pub mod program;
pub mod queue;
pub mod residency;
pub mod robust;
pub mod sampler;
pub mod semaphore;
pub mod svm;
pub mod transfer;
pub mod usm;
