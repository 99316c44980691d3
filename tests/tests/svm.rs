//! Coarse-grained buffer SVM: host and kernels see the same pointer
//! values (a list linked by the host inside SVM memory is walked and
//! changed by a kernel, and the host follows the kernel's pointers back),
//! the clEnqueueSVM* commands against values computed on the host, buffers
//! over SVM memory, and the spec's error codes. ferrocl's design
//! (runtime/src/core/svm.rs, runtime/src/vk/shared_memory.rs) maps each
//! allocation at its device address; on lavapipe that rests on a buffer's
//! device address being the host pointer of its mapped memory, which
//! [`lavapipe_device_address_is_the_mapped_pointer`] checks with Vulkan
//! directly.
//!
//! Every test is skipped (with a line saying so) where the device reports
//! no coarse-grained buffer SVM; on ferrocl over lavapipe it must report it
//! ([`capabilities`]).

use std::ffi::c_void;
use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{
    assert_same, check, device_string, device_value, expect_error, Buffer, Cl, Kernel,
};

fn testing_ferrocl_on_lavapipe(cl: &Cl) -> bool {
    !ferrocl_tests::info::testing_pocl()
        && device_string(cl.device(), CL_DEVICE_NAME).contains("llvmpipe")
}

/// Whether the device has coarse-grained buffer SVM (else the test is
/// skipped).
fn svm_device(cl: &Cl) -> bool {
    let caps: cl_device_svm_capabilities = device_value(cl.device(), CL_DEVICE_SVM_CAPABILITIES);
    if caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER == 0 {
        eprintln!("skipped: no coarse-grained buffer SVM on this device");
        return false;
    }
    true
}

/// An SVM allocation freed on drop.
struct Svm<'a> {
    cl: &'a Cl,
    ptr: *mut c_void,
    bytes: usize,
}

impl<'a> Svm<'a> {
    fn new(cl: &'a Cl, bytes: usize) -> Self {
        // SAFETY: valid context, read-write coarse-grained, default alignment.
        let ptr = unsafe { clSVMAlloc(cl.raw(), CL_MEM_READ_WRITE, bytes, 0) };
        assert!(!ptr.is_null(), "clSVMAlloc({bytes}) returned NULL");
        Svm { cl, ptr, bytes }
    }

    /// Blocking map for `flags`; the host may then touch the memory.
    fn map(&self, flags: cl_map_flags) {
        // SAFETY: a live allocation of `bytes` bytes.
        let s = unsafe {
            clEnqueueSVMMap(
                self.cl.queue.raw(),
                CL_TRUE,
                flags,
                self.ptr,
                self.bytes,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(s, "clEnqueueSVMMap");
    }

    fn unmap(&self) {
        // SAFETY: a mapped live allocation.
        let s = unsafe {
            clEnqueueSVMUnmap(
                self.cl.queue.raw(),
                self.ptr,
                0,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        check(s, "clEnqueueSVMUnmap");
    }

    fn ints(&self) -> *mut i32 {
        self.ptr.cast()
    }
}

impl Drop for Svm<'_> {
    fn drop(&mut self) {
        self.cl.queue.finish();
        // SAFETY: allocated by clSVMAlloc in this context; no command uses it.
        unsafe { clSVMFree(self.cl.raw(), self.ptr) };
    }
}

fn set_svm_arg(k: &Kernel, index: u32, p: *const c_void) {
    // SAFETY: valid kernel; a pointer into an SVM allocation (or NULL).
    check(
        unsafe { clSetKernelArgSVMPointer(k.raw(), index, p) },
        "clSetKernelArgSVMPointer",
    );
}

#[test]
fn capabilities() {
    let cl = Cl::new();
    let caps: cl_device_svm_capabilities = device_value(cl.device(), CL_DEVICE_SVM_CAPABILITIES);
    if testing_ferrocl_on_lavapipe(&cl) {
        assert_eq!(
            caps,
            CL_DEVICE_SVM_COARSE_GRAIN_BUFFER
                | CL_DEVICE_SVM_FINE_GRAIN_BUFFER
                | CL_DEVICE_SVM_ATOMICS,
            "ferrocl on lavapipe (svm_fine_grain.rs tests the fine grain)"
        );
    }
    // Fine grain is never reported without coarse grain.
    if caps != 0 {
        assert_ne!(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER, 0);
    }
}

/// The fact the lavapipe design rests on: vkGetBufferDeviceAddress of a
/// buffer bound to host-visible memory is the pointer vkMapMemory returns
/// for that memory. Checked with Vulkan directly on the lavapipe device
/// behind the CL device (skipped elsewhere: other drivers place the
/// mapping, VK_EXT_map_memory_placed).
#[test]
fn lavapipe_device_address_is_the_mapped_pointer() {
    use ash::vk;
    let cl = Cl::new();
    if !testing_ferrocl_on_lavapipe(&cl) {
        eprintln!("skipped: ferrocl on lavapipe only");
        return;
    }
    let uuid: [u8; 16] = device_value(cl.device(), CL_DEVICE_UUID_KHR);
    // SAFETY: the system Vulkan loader; every object made below is
    // destroyed before the instance.
    unsafe {
        let entry = ash::Entry::load().expect("Vulkan loader");
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
        let inst = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .expect("vkCreateInstance");
        let pd = inst
            .enumerate_physical_devices()
            .unwrap()
            .into_iter()
            .find(|&pd| {
                let mut id = vk::PhysicalDeviceIDProperties::default();
                let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
                inst.get_physical_device_properties2(pd, &mut p2);
                id.device_uuid == uuid
            })
            .expect("the CL device's Vulkan device");
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default().buffer_device_address(true);
        let dev = inst
            .create_device(
                pd,
                &vk::DeviceCreateInfo::default()
                    .queue_create_infos(&queues)
                    .push_next(&mut f12),
                None,
            )
            .expect("vkCreateDevice");
        let mem_props = inst.get_physical_device_memory_properties(pd);
        for size in [256u64, 64 << 10, 8 << 20] {
            let buf = dev
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(
                        vk::BufferUsageFlags::STORAGE_BUFFER
                            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS,
                    ),
                    None,
                )
                .unwrap();
            let req = dev.get_buffer_memory_requirements(buf);
            let ty = (0..mem_props.memory_type_count)
                .find(|&i| {
                    req.memory_type_bits & (1 << i) != 0
                        && mem_props.memory_types[i as usize].property_flags.contains(
                            vk::MemoryPropertyFlags::HOST_VISIBLE
                                | vk::MemoryPropertyFlags::HOST_COHERENT,
                        )
                })
                .expect("a host-visible memory type");
            let mut flags = vk::MemoryAllocateFlagsInfo::default()
                .flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
            let mem = dev
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(ty)
                        .push_next(&mut flags),
                    None,
                )
                .unwrap();
            dev.bind_buffer_memory(buf, mem, 0).unwrap();
            let address =
                dev.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(buf));
            let mapped = dev
                .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .unwrap();
            assert_eq!(
                address, mapped as u64,
                "device address vs mapped pointer ({size} bytes)"
            );
            dev.destroy_buffer(buf, None);
            dev.free_memory(mem, None);
        }
        dev.destroy_device(None);
        inst.destroy_instance(None);
    }
}

/// A kernel sees clSVMAlloc's pointer as it is, and a host write before
/// the unmap is what the kernel reads.
#[test]
fn kernel_sees_the_host_pointer() {
    let cl = Cl::new();
    if !svm_device(&cl) {
        return;
    }
    let svm = Svm::new(&cl, 1024 * 4);
    svm.map(CL_MAP_WRITE);
    for i in 0..1024 {
        // SAFETY: mapped, 1024 ints.
        unsafe { *svm.ints().add(i) = i as i32 * 5 - 7 };
    }
    svm.unmap();
    let out = cl.buffer::<u64>(1);
    let k = cl.kernel(
        "kernel void addr(global int *p, global ulong *out) {
             size_t i = get_global_id(0);
             p[i] = p[i] * 2 + 1;
             if (i == 0) *out = (ulong)p;
         }",
        "addr",
    );
    set_svm_arg(&k, 0, svm.ptr);
    k.arg(1, &out);
    cl.queue.run(&k, &[1024], None);
    assert_eq!(cl.queue.read(&out), vec![svm.ptr as u64]);
    svm.map(CL_MAP_READ);
    // SAFETY: mapped, 1024 ints.
    let got = unsafe { std::slice::from_raw_parts(svm.ints(), 1024) }.to_vec();
    svm.unmap();
    let want: Vec<i32> = (0..1024).map(|i| (i * 5 - 7) * 2 + 1).collect();
    assert_same("kernel's result in SVM memory", &got, &want);
}

/// Large allocations keep the pointer identity: 1 GiB and 2 GiB (whose
/// device addresses the H200 first gave in a range the process's own
/// mappings take: clSVMAlloc returned NULL there until the runtime
/// retried with another allocation, runtime/src/vk/shared_memory.rs); the
/// host writes the first and last words, a kernel reads them through the
/// pointer and writes them back changed.
#[test]
fn large_allocations_are_shared_too() {
    let cl = Cl::new();
    if !svm_device(&cl) {
        return;
    }
    let k = cl.kernel(
        "kernel void ends(global int *p, ulong last, global ulong *out) {
             out[0] = (ulong)p;
             p[0] = p[0] + 1;
             p[last] = p[last] + 2;
         }",
        "ends",
    );
    for gib in [1usize, 2] {
        let bytes = gib << 30;
        let svm = Svm::new(&cl, bytes);
        let last = bytes / 4 - 1;
        svm.map(CL_MAP_WRITE);
        // SAFETY: mapped, `bytes` bytes.
        unsafe {
            *svm.ints() = 10;
            *svm.ints().add(last) = 20;
        }
        svm.unmap();
        let out = cl.buffer::<u64>(1);
        set_svm_arg(&k, 0, svm.ptr);
        k.arg(1, &(last as u64)).arg(2, &out);
        cl.queue.run(&k, &[1], None);
        assert_eq!(cl.queue.read(&out), vec![svm.ptr as u64], "{gib} GiB");
        svm.map(CL_MAP_READ);
        // SAFETY: mapped, `bytes` bytes.
        let got = unsafe { [*svm.ints(), *svm.ints().add(last)] };
        svm.unmap();
        assert_eq!(got, [11, 22], "{gib} GiB: first and last words");
    }
}

/// The node of the host-built list: the same layout in C and OpenCL C.
#[repr(C)]
#[derive(Clone, Copy)]
struct Node {
    value: i32,
    pad: i32,
    next: *mut Node,
}

/// A linked list built by the host inside two SVM allocations (nodes in a
/// shuffled order, every other one in the second allocation, which the
/// kernel reaches only through pointers: CL_KERNEL_EXEC_INFO_SVM_PTRS).
/// The kernel walks it from the head, sums the values, multiplies each by
/// 3 and reverses the list; the host then walks the reversed list through
/// the kernel's pointers.
#[test]
fn linked_list_built_by_host_walked_by_kernel() {
    let cl = Cl::new();
    if !svm_device(&cl) {
        return;
    }
    const N: usize = 57;
    let a = Svm::new(&cl, N * std::mem::size_of::<Node>());
    let b = Svm::new(&cl, N * std::mem::size_of::<Node>());
    let slot = |i: usize| -> *mut Node {
        // Node i in a, or b for odd i, at a shuffled index.
        let at = (i * 23) % N;
        let base = if i % 2 == 0 { a.ptr } else { b.ptr } as *mut Node;
        // SAFETY: `at` < N nodes in each allocation.
        unsafe { base.add(at) }
    };
    a.map(CL_MAP_WRITE_INVALIDATE_REGION);
    b.map(CL_MAP_WRITE_INVALIDATE_REGION);
    let values: Vec<i32> = (0..N).map(|i| (i as i32 * 37) % 101 - 50).collect();
    for (i, &value) in values.iter().enumerate() {
        let next = if i + 1 < N {
            slot(i + 1)
        } else {
            ptr::null_mut()
        };
        // SAFETY: mapped SVM memory, one node each.
        unsafe {
            *slot(i) = Node {
                value,
                pad: 0,
                next,
            }
        };
    }
    a.unmap();
    b.unmap();
    let k = cl.kernel(
        "typedef struct node { int value; int pad; global struct node *next; } node;
         kernel void walk(global node *head, global long *out) {
             long sum = 0; int count = 0;
             global node *prev = 0;
             global node *n = head;
             while (n) {
                 global node *next = n->next;
                 sum += n->value;
                 n->value *= 3;
                 n->next = prev;
                 prev = n;
                 n = next;
                 count++;
             }
             out[0] = sum; out[1] = count; out[2] = (long)prev;
         }",
        "walk",
    );
    let out = cl.buffer::<i64>(3);
    set_svm_arg(&k, 0, slot(0) as *const c_void);
    k.arg(1, &out);
    let extra = [b.ptr];
    // SAFETY: valid kernel, one pointer.
    check(
        unsafe {
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_SVM_PTRS,
                std::mem::size_of_val(&extra),
                extra.as_ptr().cast(),
            )
        },
        "clSetKernelExecInfo(SVM_PTRS)",
    );
    cl.queue.run(&k, &[1], None);
    let got = cl.queue.read(&out);
    let sum: i64 = values.iter().map(|&v| v as i64).sum();
    assert_eq!(got[..2], [sum, N as i64], "sum and length");
    assert_eq!(
        got[2] as usize,
        slot(N - 1) as usize,
        "new head is the old tail"
    );
    a.map(CL_MAP_READ);
    b.map(CL_MAP_READ);
    let mut walked = Vec::new();
    let mut n = got[2] as usize as *const Node;
    while !n.is_null() && walked.len() <= N {
        // SAFETY: a node pointer the kernel wrote, into mapped SVM memory.
        let node = unsafe { *n };
        walked.push(node.value);
        n = node.next;
    }
    a.unmap();
    b.unmap();
    let want: Vec<i32> = values.iter().rev().map(|v| v * 3).collect();
    assert_same("reversed list, values tripled", &walked, &want);
}

/// clEnqueueSVMMemFill, clEnqueueSVMMemcpy in every direction, and
/// clEnqueueSVMMigrateMem, against the same steps on host vectors.
#[test]
fn memcpy_fill_and_migrate() {
    let cl = Cl::new();
    if !svm_device(&cl) {
        return;
    }
    const N: usize = 4096;
    let a = Svm::new(&cl, N * 4);
    let b = Svm::new(&cl, N * 4);
    let q = cl.queue.raw();
    let pattern = [0x1234_5678u32, 0x9abc_def0];
    // SAFETY (all calls below): live allocations of N ints and host
    // vectors of the sizes given; blocking calls or a finish before any
    // host access.
    unsafe {
        check(
            clEnqueueSVMMemFill(
                q,
                a.ptr,
                pattern.as_ptr().cast(),
                8,
                N * 4,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            "clEnqueueSVMMemFill",
        );
        let host: Vec<i32> = (0..N as i32).map(|i| i * i - 3).collect();
        // host → SVM, into the second half of b.
        check(
            clEnqueueSVMMemcpy(
                q,
                CL_FALSE,
                b.ints().add(N / 2).cast(),
                host.as_ptr().cast(),
                N / 2 * 4,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            "clEnqueueSVMMemcpy host to SVM",
        );
        // SVM → SVM: the first 100 ints of a over the first 100 of b's second half.
        check(
            clEnqueueSVMMemcpy(
                q,
                CL_FALSE,
                b.ints().add(N / 2).cast(),
                a.ptr,
                100 * 4,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            "clEnqueueSVMMemcpy SVM to SVM",
        );
        let migrate = [b.ptr as *const c_void];
        check(
            clEnqueueSVMMigrateMem(
                q,
                1,
                migrate.as_ptr() as *mut _,
                ptr::null(),
                0,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            "clEnqueueSVMMigrateMem",
        );
        // SVM → host, blocking.
        let mut back = vec![0i32; N / 2];
        check(
            clEnqueueSVMMemcpy(
                q,
                CL_TRUE,
                back.as_mut_ptr().cast(),
                b.ints().add(N / 2).cast(),
                N / 2 * 4,
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            "clEnqueueSVMMemcpy SVM to host",
        );
        let fill: Vec<i32> = pattern.iter().map(|&p| p as i32).cycle().take(N).collect();
        let mut want = host[..N / 2].to_vec();
        want[..100].copy_from_slice(&fill[..100]);
        assert_same("b's second half read back", &back, &want);
        a.map(CL_MAP_READ);
        let got = std::slice::from_raw_parts(a.ints(), N).to_vec();
        a.unmap();
        assert_same("a after the fill", &got, &fill);
    }
}

/// A CL_MEM_USE_HOST_PTR buffer over SVM memory reports
/// CL_MEM_USES_SVM_POINTER, shares the memory with the allocation, and
/// (with CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT) has the SVM pointer as its
/// device address (CTS cl_ext_buffer_device_address test_svm_buffer).
#[test]
fn buffer_over_svm_memory() {
    let cl = Cl::new();
    if !svm_device(&cl) {
        return;
    }
    let svm = Svm::new(&cl, 256 * 4);
    let at = 64usize;
    // The device-address property where the device has the extension.
    let bda = device_string(cl.device(), CL_DEVICE_EXTENSIONS)
        .split_whitespace()
        .any(|e| e == "cl_ext_buffer_device_address");
    let props: &[cl_mem_properties] = if bda {
        &[
            CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT,
            CL_TRUE as cl_mem_properties,
            0,
        ]
    } else {
        &[0]
    };
    let mut status = CL_SUCCESS;
    // SAFETY: a range inside the allocation, 0-terminated properties.
    let raw = unsafe {
        clCreateBufferWithProperties(
            cl.raw(),
            props.as_ptr(),
            CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
            128 * 4,
            svm.ints().add(at).cast(),
            &mut status,
        )
    };
    check(status, "clCreateBufferWithProperties over SVM");
    let buf = Buffer::<i32>::from_raw(raw, 128);
    let uses: cl_bool = ferrocl_tests::info::query_value(ferrocl_tests::info::mem_info(
        buf.raw(),
        CL_MEM_USES_SVM_POINTER,
    ))
    .unwrap();
    // PoCL answers CL_FALSE here, against the spec's "CL_TRUE if memobj is
    // a buffer object that was created with CL_MEM_USE_HOST_PTR [...] and
    // the host_ptr [...] is a SVM pointer".
    if !ferrocl_tests::info::testing_pocl() {
        assert_eq!(uses, CL_TRUE);
    }
    if bda {
        let mut address = 0u64;
        // SAFETY: room for one address.
        check(
            unsafe {
                clGetMemObjectInfo(
                    buf.raw(),
                    CL_MEM_DEVICE_ADDRESS_EXT,
                    8,
                    (&mut address as *mut u64).cast(),
                    ptr::null_mut(),
                )
            },
            "CL_MEM_DEVICE_ADDRESS_EXT",
        );
        // SAFETY: inside the allocation.
        assert_eq!(address, unsafe { svm.ints().add(at) } as u64);
    }
    let k = cl.kernel(
        "kernel void iota(global int *p) { p[get_global_id(0)] = 1000 + get_global_id(0); }",
        "iota",
    );
    k.arg(0, &buf);
    cl.queue.run(&k, &[128], None);
    svm.map(CL_MAP_READ);
    // SAFETY: mapped, 256 ints.
    let got = unsafe { std::slice::from_raw_parts(svm.ints().add(at), 128) }.to_vec();
    svm.unmap();
    let want: Vec<i32> = (0..128).map(|i| 1000 + i).collect();
    assert_same("written through the cl_mem, read through SVM", &got, &want);
    let plain = cl.buffer::<i32>(4);
    let uses: cl_bool = ferrocl_tests::info::query_value(ferrocl_tests::info::mem_info(
        plain.raw(),
        CL_MEM_USES_SVM_POINTER,
    ))
    .unwrap();
    assert_eq!(uses, CL_FALSE);
}

/// "CL_INVALID_BUFFER_SIZE if CL_MEM_USE_HOST_PTR is set in flags and
/// host_ptr is a pointer returned by clSVMAlloc and size is greater than
/// the size passed to clSVMAlloc" (CTS svm_allocate_shared_buffer_negative
/// asks for twice the allocation); a range from inside the allocation
/// past its end likewise. Up to the end is a buffer.
#[test]
fn buffer_over_svm_memory_past_its_end() {
    let cl = Cl::new();
    if !svm_device(&cl) {
        return;
    }
    let svm = Svm::new(&cl, 1024);
    let create = |ptr: *mut c_void, size: usize| {
        let mut status = CL_SUCCESS;
        // SAFETY: valid context; `ptr` is inside the live allocation.
        let raw = unsafe {
            clCreateBuffer(
                cl.raw(),
                CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                size,
                ptr,
                &mut status,
            )
        };
        if !raw.is_null() {
            // SAFETY: a buffer just created.
            unsafe { clReleaseMemObject(raw) };
        }
        status
    };
    expect_error(
        create(svm.ptr, 2048),
        CL_INVALID_BUFFER_SIZE,
        "twice the allocation",
    );
    expect_error(
        create(svm.ptr, 1025),
        CL_INVALID_BUFFER_SIZE,
        "one byte more",
    );
    // SAFETY: inside the allocation.
    let mid = unsafe { svm.ptr.cast::<u8>().add(512) }.cast();
    // PoCL checks only the allocation's own pointer (the spec's words).
    if !ferrocl_tests::info::testing_pocl() {
        expect_error(
            create(mid, 513),
            CL_INVALID_BUFFER_SIZE,
            "from the middle past the end",
        );
    }
    check(create(svm.ptr, 1024), "the whole allocation");
    check(create(mid, 512), "from the middle to the end");
}

/// clSetKernelExecInfo(CL_KERNEL_EXEC_INFO_SVM_PTRS): "To specify that no
/// SVM allocations will be accessed by a kernel other than those set as
/// kernel arguments, specify an empty set by passing param_value_size
/// equal to zero and param_value equal to NULL" (CTS
/// svm_set_kernel_exec_info_svm_ptrs clears its list so). NULL with a size
/// is CL_INVALID_VALUE; a launch after the reset still runs.
#[test]
fn exec_info_empty_set_clears_svm_ptrs() {
    let cl = Cl::new();
    if !svm_device(&cl) {
        return;
    }
    let svm = Svm::new(&cl, 16 * 4);
    let extra = Svm::new(&cl, 64);
    let k = cl.kernel(
        "kernel void k(global int *p, int v) { p[get_global_id(0)] = v + get_global_id(0); }",
        "k",
    );
    let list = [extra.ptr as *const c_void];
    // SAFETY: valid kernel; `list` holds one pointer, NULL has size 0.
    unsafe {
        check(
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_SVM_PTRS,
                std::mem::size_of_val(&list),
                list.as_ptr().cast(),
            ),
            "SVM_PTRS, one pointer",
        );
        check(
            clSetKernelExecInfo(k.raw(), CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, ptr::null()),
            "SVM_PTRS, the empty set",
        );
        // PoCL 3.1 accepts NULL with a size.
        if !ferrocl_tests::info::testing_pocl() {
            expect_error(
                clSetKernelExecInfo(
                    k.raw(),
                    CL_KERNEL_EXEC_INFO_SVM_PTRS,
                    std::mem::size_of_val(&list),
                    ptr::null(),
                ),
                CL_INVALID_VALUE,
                "SVM_PTRS, NULL with a size",
            );
        }
    }
    set_svm_arg(&k, 0, svm.ptr);
    k.arg(1, &40i32);
    cl.queue.run(&k, &[16], None);
    svm.map(CL_MAP_READ);
    // SAFETY: mapped, 16 ints.
    let got = unsafe { std::slice::from_raw_parts(svm.ints(), 16) }.to_vec();
    svm.unmap();
    let want: Vec<i32> = (0..16).map(|i| 40 + i).collect();
    assert_same("launch after the empty set", &got, &want);
}

unsafe extern "C" fn free_callback(
    _q: cl_command_queue,
    n: cl_uint,
    ptrs: *mut *mut c_void,
    data: *mut c_void,
) {
    // SAFETY: `data` is the test's Vec of pointers seen, `ptrs` has `n`.
    unsafe {
        let seen = &mut *(data as *mut Vec<usize>);
        seen.extend(
            std::slice::from_raw_parts(ptrs, n as usize)
                .iter()
                .map(|&p| p as usize),
        );
    }
}

/// clEnqueueSVMFree calls the application's function with the pointers,
/// in queue order.
#[test]
fn enqueue_free_calls_back() {
    let cl = Cl::new();
    if !svm_device(&cl) {
        return;
    }
    // SAFETY: valid context; the callback frees nothing (the test does).
    unsafe {
        let p = clSVMAlloc(cl.raw(), CL_MEM_READ_WRITE, 4096, 0);
        assert!(!p.is_null());
        let mut seen: Vec<usize> = Vec::new();
        let list = [p as *const c_void];
        check(
            clEnqueueSVMFree(
                cl.queue.raw(),
                1,
                list.as_ptr(),
                Some(free_callback),
                (&mut seen as *mut Vec<usize>).cast(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            "clEnqueueSVMFree",
        );
        cl.queue.finish();
        assert_eq!(seen, vec![p as usize]);
        clSVMFree(cl.raw(), p);
        // Without a callback the runtime frees them.
        let p = clSVMAlloc(cl.raw(), CL_MEM_READ_WRITE, 4096, 0);
        let list = [p as *const c_void];
        check(
            clEnqueueSVMFree(
                cl.queue.raw(),
                1,
                list.as_ptr(),
                None,
                ptr::null_mut(),
                0,
                ptr::null(),
                ptr::null_mut(),
            ),
            "clEnqueueSVMFree",
        );
        cl.queue.finish();
    }
}

#[test]
fn error_codes() {
    let cl = Cl::new();
    if !svm_device(&cl) {
        return;
    }
    let c = cl.raw();
    let q = cl.queue.raw();
    // SAFETY (all calls): valid handles; pointers NULL or to live memory.
    unsafe {
        // clSVMAlloc returns NULL: atomics without fine grain, fine grain
        // or atomics where not reported, size 0, an alignment that is no
        // power of two; fine grain and atomics are had where reported.
        assert!(clSVMAlloc(c, CL_MEM_READ_WRITE | CL_MEM_SVM_ATOMICS, 64, 0).is_null());
        let caps: cl_device_svm_capabilities =
            device_value(cl.device(), CL_DEVICE_SVM_CAPABILITIES);
        let fine = CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER;
        for (flags, cap) in [
            (fine, CL_DEVICE_SVM_FINE_GRAIN_BUFFER),
            (fine | CL_MEM_SVM_ATOMICS, CL_DEVICE_SVM_ATOMICS),
        ] {
            let p = clSVMAlloc(c, flags, 64, 0);
            assert_eq!(!p.is_null(), caps & cap != 0, "clSVMAlloc({flags:#x})");
            clSVMFree(c, p);
        }
        assert!(clSVMAlloc(c, CL_MEM_READ_WRITE, 0, 0).is_null());
        assert!(clSVMAlloc(c, CL_MEM_READ_WRITE, 64, 3).is_null());
        assert!(clSVMAlloc(c, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, 0).is_null());
        // An alignment asked for is honoured (ferrocl takes up to 4096;
        // an implementation may refuse large ones: PoCL refuses 1024).
        let p = clSVMAlloc(c, CL_MEM_READ_WRITE, 100, 1024);
        if !ferrocl_tests::info::testing_pocl() {
            assert!(
                !p.is_null() && (p as usize).is_multiple_of(1024),
                "aligned allocation {p:?}"
            );
        }
        clSVMFree(c, p);
        clSVMFree(c, ptr::null_mut());

        let svm = Svm::new(&cl, 1024);
        let pat = [0u8; 4];
        let none = ptr::null_mut();
        expect_error(
            clEnqueueSVMMemFill(q, svm.ptr, pat.as_ptr().cast(), 3, 12, 0, ptr::null(), none),
            CL_INVALID_VALUE,
            "pattern size 3",
        );
        expect_error(
            clEnqueueSVMMemFill(q, svm.ptr, pat.as_ptr().cast(), 4, 10, 0, ptr::null(), none),
            CL_INVALID_VALUE,
            "size not a multiple",
        );
        expect_error(
            clEnqueueSVMMemFill(
                q,
                svm.ints().cast::<u8>().add(2).cast(),
                pat.as_ptr().cast(),
                4,
                8,
                0,
                ptr::null(),
                none,
            ),
            CL_INVALID_VALUE,
            "misaligned fill",
        );
        expect_error(
            clEnqueueSVMMemFill(
                q,
                ptr::null_mut(),
                pat.as_ptr().cast(),
                4,
                8,
                0,
                ptr::null(),
                none,
            ),
            CL_INVALID_VALUE,
            "NULL fill",
        );
        expect_error(
            clEnqueueSVMMemcpy(
                q,
                CL_TRUE,
                svm.ints().add(4).cast(),
                svm.ptr,
                64,
                0,
                ptr::null(),
                none,
            ),
            CL_MEM_COPY_OVERLAP,
            "overlapping memcpy",
        );
        expect_error(
            clEnqueueSVMMemcpy(
                q,
                CL_TRUE,
                ptr::null_mut(),
                svm.ptr,
                64,
                0,
                ptr::null(),
                none,
            ),
            CL_INVALID_VALUE,
            "NULL memcpy",
        );
        expect_error(
            clEnqueueSVMMap(
                q,
                CL_TRUE,
                CL_MAP_READ,
                ptr::null_mut(),
                64,
                0,
                ptr::null(),
                none,
            ),
            CL_INVALID_VALUE,
            "NULL map",
        );
        expect_error(
            clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, svm.ptr, 0, 0, ptr::null(), none),
            CL_INVALID_VALUE,
            "map of 0 bytes",
        );
        expect_error(
            clEnqueueSVMUnmap(q, ptr::null_mut(), 0, ptr::null(), none),
            CL_INVALID_VALUE,
            "NULL unmap",
        );
        expect_error(
            clEnqueueSVMMigrateMem(q, 0, ptr::null_mut(), ptr::null(), 0, 0, ptr::null(), none),
            CL_INVALID_VALUE,
            "migrate nothing",
        );
        let list = [svm.ptr as *const c_void];
        let too_big = [2048usize];
        // PoCL does not check the range (the spec: "CL_INVALID_VALUE if
        // sizes[i] is non-zero range [...] is not contained within an
        // existing clSVMAlloc allocation").
        if !ferrocl_tests::info::testing_pocl() {
            expect_error(
                clEnqueueSVMMigrateMem(
                    q,
                    1,
                    list.as_ptr() as *mut _,
                    too_big.as_ptr(),
                    0,
                    0,
                    ptr::null(),
                    none,
                ),
                CL_INVALID_VALUE,
                "migrate past the end",
            );
        }
        let frees = [svm.ptr as *const c_void];
        expect_error(
            clEnqueueSVMFree(
                q,
                0,
                frees.as_ptr(),
                None,
                ptr::null_mut(),
                0,
                ptr::null(),
                none,
            ),
            CL_INVALID_VALUE,
            "free 0 with a list",
        );
        let k = cl.kernel("kernel void k(global int *p, int v) { *p = v; }", "k");
        expect_error(
            clSetKernelArgSVMPointer(k.raw(), 1, svm.ptr),
            CL_INVALID_ARG_VALUE,
            "SVM pointer for an int",
        );
        expect_error(
            clSetKernelArgSVMPointer(k.raw(), 2, svm.ptr),
            CL_INVALID_ARG_INDEX,
            "index past the last",
        );
        let t = CL_TRUE;
        // PoCL accepts CL_TRUE without reporting fine-grain system SVM.
        if caps & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM == 0 && !ferrocl_tests::info::testing_pocl() {
            expect_error(
                clSetKernelExecInfo(
                    k.raw(),
                    CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                    4,
                    (&t as *const cl_bool).cast(),
                ),
                CL_INVALID_OPERATION,
                "fine-grain system SVM",
            );
        }
        let f = CL_FALSE;
        check(
            clSetKernelExecInfo(
                k.raw(),
                CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                4,
                (&f as *const cl_bool).cast(),
            ),
            "SVM_FINE_GRAIN_SYSTEM false",
        );
    }
}
