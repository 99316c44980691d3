//! The cl_khr_icd dispatch table every handle points at, and the lookup of
//! entry points by name (clGetExtensionFunctionAddress and cl_khr_icd 2.0's
//! clIcdGetFunctionAddressForPlatformKHR). Entry points are not exported
//! as symbols: the loader reaches them only through this table, so they
//! can never be interposed by the loader's own symbols of the same names.

use std::ffi::c_void;

use opencl_sys::cl_icd::cl_icd_dispatch;

use crate::api::{
    context::*, device::*, enqueue::*, event::*, image::*, kernel::*, mem::*, platform::*,
    program::*,
};
use crate::api::{queue::*, sampler::*, suggested_local::*, svm::*, timer::*, unsupported::*};

// SAFETY: an all-None table (every field is an Option<fn>).
const NONE: cl_icd_dispatch = unsafe { std::mem::zeroed() };

macro_rules! table {
    ($($field:ident => $f:expr),* $(,)?) => {
        pub static DISPATCH: cl_icd_dispatch = cl_icd_dispatch {
            $($field: Some($f),)*
            ..NONE
        };

        /// The entry point called `name`, or NULL.
        pub fn lookup(name: &str) -> *mut c_void {
            match name {
                $(stringify!($field) => $f as *mut c_void,)*
                _ => std::ptr::null_mut(),
            }
        }
    };
}

table! {
    clGetPlatformIDs => clGetPlatformIDs,
    clGetPlatformInfo => clGetPlatformInfo,
    clGetDeviceIDs => clGetDeviceIDs,
    clGetDeviceInfo => clGetDeviceInfo,
    clCreateContext => clCreateContext,
    clCreateContextFromType => clCreateContextFromType,
    clRetainContext => clRetainContext,
    clReleaseContext => clReleaseContext,
    clGetContextInfo => clGetContextInfo,
    clCreateCommandQueue => clCreateCommandQueue,
    clRetainCommandQueue => clRetainCommandQueue,
    clReleaseCommandQueue => clReleaseCommandQueue,
    clGetCommandQueueInfo => clGetCommandQueueInfo,
    clSetCommandQueueProperty => clSetCommandQueueProperty,
    clCreateBuffer => clCreateBuffer,
    clCreateImage2D => clCreateImage2D,
    clCreateImage3D => clCreateImage3D,
    clRetainMemObject => clRetainMemObject,
    clReleaseMemObject => clReleaseMemObject,
    clGetSupportedImageFormats => clGetSupportedImageFormats,
    clGetMemObjectInfo => clGetMemObjectInfo,
    clGetImageInfo => clGetImageInfo,
    clCreateSampler => clCreateSampler,
    clRetainSampler => clRetainSampler,
    clReleaseSampler => clReleaseSampler,
    clGetSamplerInfo => clGetSamplerInfo,
    clCreateProgramWithSource => clCreateProgramWithSource,
    clCreateProgramWithBinary => clCreateProgramWithBinary,
    clRetainProgram => clRetainProgram,
    clReleaseProgram => clReleaseProgram,
    clBuildProgram => clBuildProgram,
    clUnloadCompiler => clUnloadCompiler,
    clGetProgramInfo => clGetProgramInfo,
    clGetProgramBuildInfo => clGetProgramBuildInfo,
    clCreateKernel => clCreateKernel,
    clCreateKernelsInProgram => clCreateKernelsInProgram,
    clRetainKernel => clRetainKernel,
    clReleaseKernel => clReleaseKernel,
    clSetKernelArg => clSetKernelArg,
    clGetKernelInfo => clGetKernelInfo,
    clGetKernelWorkGroupInfo => clGetKernelWorkGroupInfo,
    clWaitForEvents => clWaitForEvents,
    clGetEventInfo => clGetEventInfo,
    clRetainEvent => clRetainEvent,
    clReleaseEvent => clReleaseEvent,
    clGetEventProfilingInfo => clGetEventProfilingInfo,
    clFlush => clFlush,
    clFinish => clFinish,
    clEnqueueReadBuffer => clEnqueueReadBuffer,
    clEnqueueWriteBuffer => clEnqueueWriteBuffer,
    clEnqueueCopyBuffer => clEnqueueCopyBuffer,
    clEnqueueReadImage => clEnqueueReadImage,
    clEnqueueWriteImage => clEnqueueWriteImage,
    clEnqueueCopyImage => clEnqueueCopyImage,
    clEnqueueCopyImageToBuffer => clEnqueueCopyImageToBuffer,
    clEnqueueCopyBufferToImage => clEnqueueCopyBufferToImage,
    clEnqueueMapBuffer => clEnqueueMapBuffer,
    clEnqueueMapImage => clEnqueueMapImage,
    clEnqueueUnmapMemObject => clEnqueueUnmapMemObject,
    clEnqueueNDRangeKernel => clEnqueueNDRangeKernel,
    clEnqueueTask => clEnqueueTask,
    clEnqueueNativeKernel => clEnqueueNativeKernel,
    clEnqueueMarker => clEnqueueMarker,
    clEnqueueWaitForEvents => clEnqueueWaitForEvents,
    clEnqueueBarrier => clEnqueueBarrier,
    clGetExtensionFunctionAddress => crate::get_extension_function_address,
    clSetEventCallback => clSetEventCallback,
    clCreateSubBuffer => clCreateSubBuffer,
    clSetMemObjectDestructorCallback => clSetMemObjectDestructorCallback,
    clCreateUserEvent => clCreateUserEvent,
    clSetUserEventStatus => clSetUserEventStatus,
    clEnqueueReadBufferRect => clEnqueueReadBufferRect,
    clEnqueueWriteBufferRect => clEnqueueWriteBufferRect,
    clEnqueueCopyBufferRect => clEnqueueCopyBufferRect,

    clRetainDeviceEXT => clRetainDevice,
    clReleaseDeviceEXT => clReleaseDevice,
    clCreateSubDevices => clCreateSubDevices,
    clRetainDevice => clRetainDevice,
    clReleaseDevice => clReleaseDevice,
    clCreateImage => clCreateImage,
    clCreateProgramWithBuiltInKernels => clCreateProgramWithBuiltInKernels,
    clCompileProgram => clCompileProgram,
    clLinkProgram => clLinkProgram,
    clUnloadPlatformCompiler => clUnloadPlatformCompiler,
    clGetKernelArgInfo => clGetKernelArgInfo,
    clEnqueueFillBuffer => clEnqueueFillBuffer,
    clEnqueueFillImage => clEnqueueFillImage,
    clEnqueueMigrateMemObjects => clEnqueueMigrateMemObjects,
    clEnqueueMarkerWithWaitList => clEnqueueMarkerWithWaitList,
    clEnqueueBarrierWithWaitList => clEnqueueBarrierWithWaitList,
    clGetExtensionFunctionAddressForPlatform => crate::get_extension_function_address_for_platform,
    clCreateCommandQueueWithProperties => clCreateCommandQueueWithProperties,
    clCreatePipe => clCreatePipe,
    clGetPipeInfo => clGetPipeInfo,
    clSVMAlloc => clSVMAlloc,
    clSVMFree => clSVMFree,
    clEnqueueSVMFree => clEnqueueSVMFree,
    clEnqueueSVMMemcpy => clEnqueueSVMMemcpy,
    clEnqueueSVMMemFill => clEnqueueSVMMemFill,
    clEnqueueSVMMap => clEnqueueSVMMap,
    clEnqueueSVMUnmap => clEnqueueSVMUnmap,
    clCreateSamplerWithProperties => clCreateSamplerWithProperties,
    clSetKernelArgSVMPointer => clSetKernelArgSVMPointer,
    clSetKernelExecInfo => clSetKernelExecInfo,
    clGetKernelSubGroupInfoKHR => clGetKernelSubGroupInfo,
    clCloneKernel => clCloneKernel,
    clCreateProgramWithIL => clCreateProgramWithIL,
    clEnqueueSVMMigrateMem => clEnqueueSVMMigrateMem,
    clGetDeviceAndHostTimer => clGetDeviceAndHostTimer,
    clGetHostTimer => clGetHostTimer,
    clGetKernelSubGroupInfo => clGetKernelSubGroupInfo,
    clSetDefaultDeviceCommandQueue => clSetDefaultDeviceCommandQueue,
    clSetProgramReleaseCallback => clSetProgramReleaseCallback,
    clSetProgramSpecializationConstant => clSetProgramSpecializationConstant,
    clCreateBufferWithProperties => clCreateBufferWithProperties,
    clCreateImageWithProperties => clCreateImageWithProperties,
    clSetContextDestructorCallback => clSetContextDestructorCallback,
    // OpenCL 3.1's core form of cl_khr_suggested_local_work_size's function.
    clGetKernelSuggestedLocalWorkSize => clGetKernelSuggestedLocalWorkSizeKHR,
}
