//! Errors are OpenCL error codes throughout the runtime.

use opencl_sys::cl_int;

pub type CLResult<T> = Result<T, cl_int>;
