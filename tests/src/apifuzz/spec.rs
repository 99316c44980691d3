//! The error codes the OpenCL 3.0 API specification allows each entry
//! point to return (section numbers of the OpenCL 3.0 API specification,
//! revision 3.0.x; extension functions from the cited extension's
//! specification). CL_SUCCESS, CL_OUT_OF_RESOURCES and
//! CL_OUT_OF_HOST_MEMORY are allowed everywhere (`G::rec`): the spec lists
//! the last two for nearly every function, and either may happen anywhere.
//! A code outside its function's set is a defect to fix, in ferrocl or
//! (after reading the spec again) in this table.
//!
//! Pseudo-codes of functions without a code: clSVMAlloc records -1 for
//! NULL (allowed: every argument error gives NULL); clGetExtension-
//! FunctionAddressForPlatform records 1 when NULL-ness is wrong (never
//! allowed).

use opencl_sys::*;

const QUEUE_CMD: &[cl_int] = &[
    CL_INVALID_COMMAND_QUEUE,
    CL_INVALID_CONTEXT,
    CL_INVALID_EVENT_WAIT_LIST,
    CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
];

macro_rules! set {
    ($($base:ident +)? [$($c:ident),* $(,)?]) => {{
        const S: &[cl_int] = &[$($c),*];
        (S, set!(@base $($base)?))
    }};
    (@base) => { &[] as &[cl_int] };
    (@base $b:ident) => { $b };
}

/// (extra codes, base set) of `function`; panics for an unknown name (a
/// generator without its table entry).
fn table(function: &str) -> (&'static [cl_int], &'static [cl_int]) {
    match function {
        // 4.1 Querying Platform Info.
        "clGetPlatformIDs" => set!([CL_INVALID_VALUE]),
        "clGetPlatformInfo" => set!([CL_INVALID_PLATFORM, CL_INVALID_VALUE]),
        // 4.2 Querying Devices (and its timer functions).
        "clGetDeviceIDs" => set!([
            CL_INVALID_PLATFORM,
            CL_INVALID_DEVICE_TYPE,
            CL_INVALID_VALUE,
            CL_DEVICE_NOT_FOUND
        ]),
        "clGetDeviceInfo" => set!([CL_INVALID_DEVICE, CL_INVALID_VALUE]),
        "clGetDeviceAndHostTimer" | "clGetHostTimer" => {
            set!([CL_INVALID_DEVICE, CL_INVALID_VALUE, CL_INVALID_OPERATION])
        }
        // 4.3 Partitioning a Device.
        "clCreateSubDevices" => set!([
            CL_INVALID_DEVICE,
            CL_INVALID_VALUE,
            CL_DEVICE_PARTITION_FAILED,
            CL_INVALID_DEVICE_PARTITION_COUNT
        ]),
        "clRetainDevice" | "clReleaseDevice" => set!([CL_INVALID_DEVICE]),
        // 4.4 Contexts.
        "clCreateContext" => set!([
            CL_INVALID_PLATFORM,
            CL_INVALID_PROPERTY,
            CL_INVALID_VALUE,
            CL_INVALID_DEVICE,
            CL_DEVICE_NOT_AVAILABLE
        ]),
        "clCreateContextFromType" => set!([
            CL_INVALID_PLATFORM,
            CL_INVALID_PROPERTY,
            CL_INVALID_VALUE,
            CL_INVALID_DEVICE_TYPE,
            CL_DEVICE_NOT_AVAILABLE,
            CL_DEVICE_NOT_FOUND
        ]),
        "clRetainContext" | "clReleaseContext" => set!([CL_INVALID_CONTEXT]),
        "clGetContextInfo" => set!([CL_INVALID_CONTEXT, CL_INVALID_VALUE]),
        "clSetContextDestructorCallback" => set!([CL_INVALID_CONTEXT, CL_INVALID_VALUE]),
        // 5.1 Command Queues (clCreateCommandQueue, clSetCommandQueueProperty:
        // the deprecated forms, same section of the 1.x/2.x specs).
        "clCreateCommandQueueWithProperties" | "clCreateCommandQueue" => set!([
            CL_INVALID_CONTEXT,
            CL_INVALID_DEVICE,
            CL_INVALID_VALUE,
            CL_INVALID_QUEUE_PROPERTIES
        ]),
        "clRetainCommandQueue" | "clReleaseCommandQueue" => set!([CL_INVALID_COMMAND_QUEUE]),
        "clSetDefaultDeviceCommandQueue" => set!([
            CL_INVALID_CONTEXT,
            CL_INVALID_DEVICE,
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_OPERATION
        ]),
        "clGetCommandQueueInfo" => set!([CL_INVALID_COMMAND_QUEUE, CL_INVALID_VALUE]),
        "clSetCommandQueueProperty" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_VALUE,
            CL_INVALID_QUEUE_PROPERTIES,
            CL_INVALID_OPERATION
        ]),
        // 5.2.1 Creating Buffer Objects.
        "clCreateBuffer" | "clCreateBufferWithProperties" => set!([
            CL_INVALID_CONTEXT,
            CL_INVALID_PROPERTY,
            CL_INVALID_VALUE,
            CL_INVALID_BUFFER_SIZE,
            CL_INVALID_HOST_PTR,
            CL_MEM_OBJECT_ALLOCATION_FAILURE
        ]),
        "clCreateSubBuffer" => set!([
            CL_INVALID_MEM_OBJECT,
            CL_INVALID_VALUE,
            CL_INVALID_BUFFER_SIZE,
            CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_MEM_OBJECT_ALLOCATION_FAILURE
        ]),
        // 5.2.2 Reading, Writing and Copying Buffer Objects.
        "clEnqueueReadBuffer"
        | "clEnqueueWriteBuffer"
        | "clEnqueueReadBufferRect"
        | "clEnqueueWriteBufferRect" => set!(
            QUEUE_CMD
                + [
                    CL_INVALID_MEM_OBJECT,
                    CL_INVALID_VALUE,
                    CL_MISALIGNED_SUB_BUFFER_OFFSET,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE,
                    CL_INVALID_OPERATION
                ]
        ),
        "clEnqueueCopyBuffer" | "clEnqueueCopyBufferRect" => set!(
            QUEUE_CMD
                + [
                    CL_INVALID_MEM_OBJECT,
                    CL_INVALID_VALUE,
                    CL_MISALIGNED_SUB_BUFFER_OFFSET,
                    CL_MEM_COPY_OVERLAP,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE
                ]
        ),
        // 5.2.3 Filling Buffer Objects.
        "clEnqueueFillBuffer" => set!(
            QUEUE_CMD
                + [
                    CL_INVALID_MEM_OBJECT,
                    CL_INVALID_VALUE,
                    CL_MISALIGNED_SUB_BUFFER_OFFSET,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE
                ]
        ),
        // 5.2.4 Mapping Buffer Objects.
        "clEnqueueMapBuffer" => set!(
            QUEUE_CMD
                + [
                    CL_INVALID_MEM_OBJECT,
                    CL_INVALID_VALUE,
                    CL_MISALIGNED_SUB_BUFFER_OFFSET,
                    CL_MAP_FAILURE,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE,
                    CL_INVALID_OPERATION
                ]
        ),
        // 5.3.1 Creating Image Objects (and the 1.1 forms).
        "clCreateImage" | "clCreateImageWithProperties" | "clCreateImage2D" | "clCreateImage3D" => {
            set!([
                CL_INVALID_CONTEXT,
                CL_INVALID_PROPERTY,
                CL_INVALID_VALUE,
                CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                CL_INVALID_IMAGE_DESCRIPTOR,
                CL_INVALID_IMAGE_SIZE,
                CL_INVALID_HOST_PTR,
                CL_IMAGE_FORMAT_NOT_SUPPORTED,
                CL_MEM_OBJECT_ALLOCATION_FAILURE,
                CL_INVALID_OPERATION
            ])
        }
        // 5.3.2 Querying List of Supported Image Formats.
        "clGetSupportedImageFormats" => set!([CL_INVALID_CONTEXT, CL_INVALID_VALUE]),
        // 5.3.3 Reading, Writing and Copying Image Objects; 5.3.4 Filling;
        // 5.3.5 Copying between Image and Buffer Objects.
        "clEnqueueReadImage" | "clEnqueueWriteImage" => set!(
            QUEUE_CMD
                + [
                    CL_INVALID_MEM_OBJECT,
                    CL_INVALID_VALUE,
                    CL_INVALID_IMAGE_SIZE,
                    CL_IMAGE_FORMAT_NOT_SUPPORTED,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE,
                    CL_INVALID_OPERATION
                ]
        ),
        "clEnqueueCopyImage" => set!(
            QUEUE_CMD
                + [
                    CL_IMAGE_FORMAT_MISMATCH,
                    CL_INVALID_MEM_OBJECT,
                    CL_INVALID_VALUE,
                    CL_INVALID_IMAGE_SIZE,
                    CL_IMAGE_FORMAT_NOT_SUPPORTED,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE,
                    CL_MEM_COPY_OVERLAP
                ]
        ),
        "clEnqueueFillImage" => set!(
            QUEUE_CMD
                + [
                    CL_INVALID_MEM_OBJECT,
                    CL_INVALID_VALUE,
                    CL_INVALID_IMAGE_SIZE,
                    CL_IMAGE_FORMAT_NOT_SUPPORTED,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE
                ]
        ),
        "clEnqueueCopyImageToBuffer" | "clEnqueueCopyBufferToImage" => set!(
            QUEUE_CMD
                + [
                    CL_INVALID_MEM_OBJECT,
                    CL_INVALID_VALUE,
                    CL_MISALIGNED_SUB_BUFFER_OFFSET,
                    CL_INVALID_IMAGE_SIZE,
                    CL_IMAGE_FORMAT_NOT_SUPPORTED,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE,
                    CL_INVALID_OPERATION
                ]
        ),
        // 5.3.6 Mapping Image Objects.
        "clEnqueueMapImage" => set!(
            QUEUE_CMD
                + [
                    CL_INVALID_MEM_OBJECT,
                    CL_INVALID_VALUE,
                    CL_INVALID_IMAGE_SIZE,
                    CL_MAP_FAILURE,
                    CL_IMAGE_FORMAT_NOT_SUPPORTED,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE,
                    CL_INVALID_OPERATION
                ]
        ),
        // 5.3.7 Image Object Queries.
        "clGetImageInfo" => set!([CL_INVALID_VALUE, CL_INVALID_MEM_OBJECT]),
        // 5.4.1 Creating Pipe Objects; 5.4.2 Pipe Object Queries.
        "clCreatePipe" => set!([
            CL_INVALID_CONTEXT,
            CL_INVALID_VALUE,
            CL_INVALID_PIPE_SIZE,
            CL_MEM_OBJECT_ALLOCATION_FAILURE,
            CL_INVALID_OPERATION
        ]),
        "clGetPipeInfo" => set!([
            CL_INVALID_VALUE,
            CL_INVALID_MEM_OBJECT,
            CL_INVALID_OPERATION
        ]),
        // 5.5.1 Retaining and Releasing Memory Objects.
        "clRetainMemObject" | "clReleaseMemObject" => set!([CL_INVALID_MEM_OBJECT]),
        "clSetMemObjectDestructorCallback" => set!([CL_INVALID_MEM_OBJECT, CL_INVALID_VALUE]),
        // 5.5.2 Unmapping Mapped Memory Objects.
        "clEnqueueUnmapMemObject" => set!(QUEUE_CMD + [CL_INVALID_MEM_OBJECT, CL_INVALID_VALUE]),
        // 5.5.4 Migrating Memory Objects.
        "clEnqueueMigrateMemObjects" => set!(
            QUEUE_CMD
                + [
                    CL_INVALID_MEM_OBJECT,
                    CL_INVALID_VALUE,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE
                ]
        ),
        // 5.5.5 Memory Object Queries.
        "clGetMemObjectInfo" => set!([CL_INVALID_VALUE, CL_INVALID_MEM_OBJECT]),
        // 5.6.1 SVM sharing granularity (clSVMAlloc, clSVMFree: no code);
        // 5.6.2 SVM Operations.
        "clSVMAlloc" => (&[-1], &[]),
        "clSVMFree" => set!([]),
        "clEnqueueSVMFree"
        | "clEnqueueSVMMemcpy"
        | "clEnqueueSVMMemFill"
        | "clEnqueueSVMMap"
        | "clEnqueueSVMUnmap"
        | "clEnqueueSVMMigrateMem" => {
            set!(QUEUE_CMD + [CL_INVALID_VALUE, CL_MEM_COPY_OVERLAP, CL_INVALID_OPERATION])
        }
        // 5.7.1 Creating Sampler Objects; 5.7.2 Sampler Object Queries.
        "clCreateSampler" | "clCreateSamplerWithProperties" => {
            set!([CL_INVALID_CONTEXT, CL_INVALID_VALUE, CL_INVALID_OPERATION])
        }
        "clRetainSampler" | "clReleaseSampler" => set!([CL_INVALID_SAMPLER]),
        "clGetSamplerInfo" => set!([CL_INVALID_SAMPLER, CL_INVALID_VALUE]),
        // 5.8.1 Creating Program Objects.
        "clCreateProgramWithSource" => set!([CL_INVALID_CONTEXT, CL_INVALID_VALUE]),
        "clCreateProgramWithIL" => {
            set!([CL_INVALID_CONTEXT, CL_INVALID_VALUE, CL_INVALID_OPERATION])
        }
        "clCreateProgramWithBinary" => set!([
            CL_INVALID_CONTEXT,
            CL_INVALID_VALUE,
            CL_INVALID_DEVICE,
            CL_INVALID_BINARY
        ]),
        "clCreateProgramWithBuiltInKernels" => {
            set!([CL_INVALID_CONTEXT, CL_INVALID_VALUE, CL_INVALID_DEVICE])
        }
        // 5.8.2 Retaining and Releasing Program Objects (and the release
        // callback, deprecated in 3.0).
        "clRetainProgram" | "clReleaseProgram" => set!([CL_INVALID_PROGRAM]),
        "clSetProgramReleaseCallback" => {
            set!([CL_INVALID_PROGRAM, CL_INVALID_VALUE, CL_INVALID_OPERATION])
        }
        // 5.8.3 Setting SPIR-V Specialization Constants.
        "clSetProgramSpecializationConstant" => set!([
            CL_INVALID_PROGRAM,
            CL_INVALID_OPERATION,
            CL_INVALID_SPEC_ID,
            CL_INVALID_VALUE
        ]),
        // 5.8.4 Building Program Executables; 5.8.5 Separate Compilation
        // and Linking of Programs.
        "clBuildProgram" => set!([
            CL_INVALID_PROGRAM,
            CL_INVALID_VALUE,
            CL_INVALID_DEVICE,
            CL_INVALID_BINARY,
            CL_INVALID_BUILD_OPTIONS,
            CL_COMPILER_NOT_AVAILABLE,
            CL_BUILD_PROGRAM_FAILURE,
            CL_INVALID_OPERATION
        ]),
        "clCompileProgram" => set!([
            CL_INVALID_PROGRAM,
            CL_INVALID_VALUE,
            CL_INVALID_DEVICE,
            CL_INVALID_COMPILER_OPTIONS,
            CL_INVALID_OPERATION,
            CL_COMPILER_NOT_AVAILABLE,
            CL_COMPILE_PROGRAM_FAILURE
        ]),
        "clLinkProgram" => set!([
            CL_INVALID_CONTEXT,
            CL_INVALID_VALUE,
            CL_INVALID_PROGRAM,
            CL_INVALID_DEVICE,
            CL_INVALID_LINKER_OPTIONS,
            CL_INVALID_OPERATION,
            CL_LINKER_NOT_AVAILABLE,
            CL_LINK_PROGRAM_FAILURE
        ]),
        // 5.8.8 Unloading the OpenCL Compiler; 5.8.9 Program Object Queries.
        "clUnloadPlatformCompiler" => set!([CL_INVALID_PLATFORM]),
        // Deprecated 1.1 form: "always returns CL_SUCCESS".
        "clUnloadCompiler" => set!([]),
        "clGetProgramInfo" => set!([
            CL_INVALID_VALUE,
            CL_INVALID_PROGRAM,
            CL_INVALID_PROGRAM_EXECUTABLE
        ]),
        "clGetProgramBuildInfo" => set!([CL_INVALID_DEVICE, CL_INVALID_VALUE, CL_INVALID_PROGRAM]),
        // 5.9.1 Creating Kernel Objects.
        "clCreateKernel" => set!([
            CL_INVALID_PROGRAM,
            CL_INVALID_PROGRAM_EXECUTABLE,
            CL_INVALID_KERNEL_NAME,
            CL_INVALID_KERNEL_DEFINITION,
            CL_INVALID_VALUE
        ]),
        "clCreateKernelsInProgram" => set!([
            CL_INVALID_PROGRAM,
            CL_INVALID_PROGRAM_EXECUTABLE,
            CL_INVALID_VALUE
        ]),
        "clRetainKernel" | "clReleaseKernel" => set!([CL_INVALID_KERNEL]),
        // 5.9.2 Setting Kernel Arguments.
        "clSetKernelArg" => set!([
            CL_INVALID_KERNEL,
            CL_INVALID_ARG_INDEX,
            CL_INVALID_ARG_VALUE,
            CL_INVALID_MEM_OBJECT,
            CL_INVALID_SAMPLER,
            CL_INVALID_DEVICE_QUEUE,
            CL_INVALID_ARG_SIZE,
            CL_MAX_SIZE_RESTRICTION_EXCEEDED
        ]),
        "clSetKernelArgSVMPointer" => set!([
            CL_INVALID_KERNEL,
            CL_INVALID_ARG_INDEX,
            CL_INVALID_ARG_VALUE,
            CL_INVALID_OPERATION
        ]),
        "clSetKernelExecInfo" => set!([CL_INVALID_KERNEL, CL_INVALID_VALUE, CL_INVALID_OPERATION]),
        // 5.9.3 Copying Kernel Objects.
        "clCloneKernel" => set!([CL_INVALID_KERNEL]),
        // 5.9.4 Kernel Object Queries.
        "clGetKernelInfo" => set!([CL_INVALID_VALUE, CL_INVALID_KERNEL]),
        "clGetKernelWorkGroupInfo" => {
            set!([CL_INVALID_DEVICE, CL_INVALID_VALUE, CL_INVALID_KERNEL])
        }
        "clGetKernelSubGroupInfo" => set!([
            CL_INVALID_DEVICE,
            CL_INVALID_VALUE,
            CL_INVALID_KERNEL,
            CL_INVALID_OPERATION
        ]),
        "clGetKernelArgInfo" => set!([
            CL_INVALID_ARG_INDEX,
            CL_INVALID_VALUE,
            CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
            CL_INVALID_KERNEL
        ]),
        // 5.10 Executing Kernels.
        "clEnqueueNDRangeKernel" | "clEnqueueTask" => set!(
            QUEUE_CMD
                + [
                    CL_INVALID_PROGRAM_EXECUTABLE,
                    CL_INVALID_KERNEL,
                    CL_INVALID_KERNEL_ARGS,
                    CL_INVALID_WORK_DIMENSION,
                    CL_INVALID_GLOBAL_WORK_SIZE,
                    CL_INVALID_GLOBAL_OFFSET,
                    CL_INVALID_WORK_GROUP_SIZE,
                    CL_INVALID_WORK_ITEM_SIZE,
                    CL_MISALIGNED_SUB_BUFFER_OFFSET,
                    CL_INVALID_IMAGE_SIZE,
                    CL_IMAGE_FORMAT_NOT_SUPPORTED,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE,
                    CL_INVALID_OPERATION
                ]
        ),
        "clEnqueueNativeKernel" => set!(
            QUEUE_CMD
                + [
                    CL_INVALID_VALUE,
                    CL_INVALID_OPERATION,
                    CL_INVALID_MEM_OBJECT,
                    CL_MEM_OBJECT_ALLOCATION_FAILURE
                ]
        ),
        // 5.11 Event Objects.
        "clCreateUserEvent" => set!([CL_INVALID_CONTEXT]),
        "clSetUserEventStatus" => set!([CL_INVALID_EVENT, CL_INVALID_VALUE, CL_INVALID_OPERATION]),
        "clWaitForEvents" => set!([
            CL_INVALID_VALUE,
            CL_INVALID_CONTEXT,
            CL_INVALID_EVENT,
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
        ]),
        "clGetEventInfo" => set!([CL_INVALID_VALUE, CL_INVALID_EVENT]),
        "clSetEventCallback" => set!([CL_INVALID_EVENT, CL_INVALID_VALUE]),
        "clRetainEvent" | "clReleaseEvent" => set!([CL_INVALID_EVENT]),
        // 5.12 Markers, Barriers and Waiting for Events (the 1.1 forms:
        // same section of the 1.x specs).
        "clEnqueueMarkerWithWaitList" | "clEnqueueBarrierWithWaitList" => set!(QUEUE_CMD + []),
        "clEnqueueMarker" => set!([CL_INVALID_COMMAND_QUEUE, CL_INVALID_VALUE]),
        // The 1.0/1.1 text (the 3.0 one drops CL_INVALID_EVENT).
        "clEnqueueBarrier" => set!([CL_INVALID_COMMAND_QUEUE]),
        "clEnqueueWaitForEvents" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_CONTEXT,
            CL_INVALID_VALUE,
            CL_INVALID_EVENT
        ]),
        // 5.14 Profiling Operations on Memory Objects and Kernels.
        "clGetEventProfilingInfo" => set!([
            CL_PROFILING_INFO_NOT_AVAILABLE,
            CL_INVALID_VALUE,
            CL_INVALID_EVENT
        ]),
        // 5.15 Flush and Finish.
        "clFlush" | "clFinish" => set!([CL_INVALID_COMMAND_QUEUE]),
        // 9.x: extension functions (no code).
        "clGetExtensionFunctionAddressForPlatform" => set!([]),
        // cl_khr_suggested_local_work_size: clGetKernelSuggestedLocalWorkSizeKHR.
        "clGetKernelSuggestedLocalWorkSizeKHR" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_KERNEL,
            CL_INVALID_CONTEXT,
            CL_INVALID_PROGRAM_EXECUTABLE,
            CL_INVALID_KERNEL_ARGS,
            CL_INVALID_WORK_DIMENSION,
            CL_INVALID_GLOBAL_WORK_SIZE,
            CL_INVALID_GLOBAL_OFFSET,
            CL_INVALID_VALUE,
            CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_INVALID_IMAGE_SIZE,
            CL_IMAGE_FORMAT_NOT_SUPPORTED
        ]),
        // cl_ext_buffer_device_address: clSetKernelArgDevicePointerEXT.
        "clSetKernelArgDevicePointerEXT" => set!([
            CL_INVALID_KERNEL,
            CL_INVALID_ARG_INDEX,
            CL_INVALID_ARG_VALUE,
            CL_INVALID_OPERATION
        ]),
        // cl_khr_command_buffer (its "Errors" of each function).
        "clCreateCommandBufferKHR" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INCOMPATIBLE_COMMAND_QUEUE_KHR,
            CL_INVALID_CONTEXT,
            CL_INVALID_VALUE,
            CL_INVALID_PROPERTY
        ]),
        "clRetainCommandBufferKHR" | "clReleaseCommandBufferKHR" => {
            set!([CL_INVALID_COMMAND_BUFFER_KHR])
        }
        "clFinalizeCommandBufferKHR" => set!([CL_INVALID_COMMAND_BUFFER_KHR, CL_INVALID_OPERATION]),
        "clEnqueueCommandBufferKHR" => set!([
            CL_INVALID_COMMAND_BUFFER_KHR,
            CL_INVALID_OPERATION,
            CL_INVALID_VALUE,
            CL_INVALID_COMMAND_QUEUE,
            CL_INCOMPATIBLE_COMMAND_QUEUE_KHR,
            CL_INVALID_CONTEXT,
            CL_INVALID_EVENT_WAIT_LIST,
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
        ]),
        "clGetCommandBufferInfoKHR" => set!([CL_INVALID_COMMAND_BUFFER_KHR, CL_INVALID_VALUE]),
        "clCommandBarrierWithWaitListKHR" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_COMMAND_BUFFER_KHR,
            CL_INVALID_OPERATION,
            CL_INVALID_VALUE,
            CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
            CL_INVALID_CONTEXT
        ]),
        "clCommandCopyBufferKHR" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_COMMAND_BUFFER_KHR,
            CL_INVALID_OPERATION,
            CL_INVALID_VALUE,
            CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
            CL_INVALID_CONTEXT,
            CL_INVALID_MEM_OBJECT,
            CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_MEM_COPY_OVERLAP
        ]),
        "clCommandFillBufferKHR" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_COMMAND_BUFFER_KHR,
            CL_INVALID_OPERATION,
            CL_INVALID_VALUE,
            CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
            CL_INVALID_CONTEXT,
            CL_INVALID_MEM_OBJECT,
            CL_MISALIGNED_SUB_BUFFER_OFFSET
        ]),
        "clCommandNDRangeKernelKHR" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_COMMAND_BUFFER_KHR,
            CL_INVALID_OPERATION,
            CL_INVALID_VALUE,
            CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
            CL_INVALID_CONTEXT,
            CL_INVALID_PROGRAM_EXECUTABLE,
            CL_INVALID_KERNEL,
            CL_INVALID_KERNEL_ARGS,
            CL_INVALID_WORK_DIMENSION,
            CL_INVALID_GLOBAL_WORK_SIZE,
            CL_INVALID_GLOBAL_OFFSET,
            CL_INVALID_WORK_GROUP_SIZE,
            CL_INVALID_WORK_ITEM_SIZE,
            CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_INVALID_IMAGE_SIZE,
            CL_IMAGE_FORMAT_NOT_SUPPORTED
        ]),
        "clCommandCopyBufferRectKHR" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_COMMAND_BUFFER_KHR,
            CL_INVALID_OPERATION,
            CL_INVALID_VALUE,
            CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
            CL_INVALID_CONTEXT,
            CL_INVALID_MEM_OBJECT,
            CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_MEM_COPY_OVERLAP
        ]),
        "clCommandCopyImageKHR" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_COMMAND_BUFFER_KHR,
            CL_INVALID_OPERATION,
            CL_INVALID_VALUE,
            CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
            CL_INVALID_CONTEXT,
            CL_INVALID_MEM_OBJECT,
            CL_IMAGE_FORMAT_MISMATCH,
            CL_INVALID_IMAGE_SIZE,
            CL_IMAGE_FORMAT_NOT_SUPPORTED,
            CL_MEM_COPY_OVERLAP
        ]),
        "clCommandCopyBufferToImageKHR" | "clCommandCopyImageToBufferKHR" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_COMMAND_BUFFER_KHR,
            CL_INVALID_OPERATION,
            CL_INVALID_VALUE,
            CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
            CL_INVALID_CONTEXT,
            CL_INVALID_MEM_OBJECT,
            CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_INVALID_IMAGE_SIZE,
            CL_IMAGE_FORMAT_NOT_SUPPORTED
        ]),
        "clCommandFillImageKHR" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_COMMAND_BUFFER_KHR,
            CL_INVALID_OPERATION,
            CL_INVALID_VALUE,
            CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
            CL_INVALID_CONTEXT,
            CL_INVALID_MEM_OBJECT,
            CL_INVALID_IMAGE_SIZE,
            CL_IMAGE_FORMAT_NOT_SUPPORTED
        ]),
        "clCommandSVMMemcpyKHR" | "clCommandSVMMemFillKHR" => set!([
            CL_INVALID_COMMAND_QUEUE,
            CL_INVALID_COMMAND_BUFFER_KHR,
            CL_INVALID_OPERATION,
            CL_INVALID_VALUE,
            CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
            CL_INVALID_CONTEXT,
            CL_MEM_COPY_OVERLAP
        ]),
        // cl_khr_command_buffer_mutable_dispatch.
        "clUpdateMutableCommandsKHR" => set!([
            CL_INVALID_COMMAND_BUFFER_KHR,
            CL_INVALID_OPERATION,
            CL_INVALID_VALUE,
            CL_INVALID_MUTABLE_COMMAND_KHR,
            CL_INVALID_WORK_DIMENSION,
            CL_INVALID_GLOBAL_WORK_SIZE,
            CL_INVALID_GLOBAL_OFFSET,
            CL_INVALID_WORK_GROUP_SIZE,
            CL_INVALID_WORK_ITEM_SIZE,
            CL_INVALID_ARG_INDEX,
            CL_INVALID_ARG_VALUE,
            CL_INVALID_ARG_SIZE
        ]),
        "clGetMutableCommandInfoKHR" => set!([CL_INVALID_MUTABLE_COMMAND_KHR, CL_INVALID_VALUE]),
        _ => panic!("apifuzz: no error table for {function}"),
    }
}

/// Whether `function` may return `code` (besides the universal three).
pub fn allows(function: &str, code: cl_int) -> bool {
    let (extra, base) = table(function);
    extra.contains(&code) || base.contains(&code)
}
