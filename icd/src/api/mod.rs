//! The entry points, one module per object type. Each checks its C
//! arguments, converts handles and calls the runtime.

pub mod command_buffer;
pub mod command_buffer_commands;
pub mod context;
pub mod device;
pub mod enqueue;
pub mod event;
pub mod external_memory;
pub mod external_semaphore;
pub mod image;
pub mod kernel;
pub mod mem;
pub mod mutable_dispatch;
pub mod platform;
pub mod program;
pub mod queue;
pub mod sampler;
pub mod semaphore;
pub mod suggested_local;
pub mod svm;
pub mod timer;
pub mod unsupported;
pub mod usm;
