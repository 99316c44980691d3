//! Errors are OpenCL error codes throughout the runtime.
//!
//! Layer: foundation (pure, no dependencies): every module above uses it.

use opencl_sys::cl_int;

pub type CLResult<T> = Result<T, cl_int>;
