//! Buffer contents: CL_MEM_COPY_HOST_PTR, blocking clEnqueueReadBuffer /
//! clEnqueueWriteBuffer / clEnqueueCopyBuffer, with offsets (odd byte
//! offsets included) and sizes larger than any staging chunk is likely to be.

use std::ptr;

use ferrocl_tests::sys::*;
use ferrocl_tests::{assert_same, check, device_value, expect_error, Cl};

fn pattern(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| (i ^ seed).wrapping_mul(0x9E37_79B9))
        .collect()
}

#[test]
fn copy_host_ptr_initialises_contents() {
    let cl = Cl::new();
    let data = pattern(1000, 1);
    let buffer = cl.buffer_from(&data);
    assert_same("read back", &cl.queue.read(&buffer), &data);
}

#[test]
fn copy_host_ptr_read_only_buffer_feeds_a_kernel() {
    let cl = Cl::new();
    let data = pattern(512, 2);
    let input = cl.buffer_with(CL_MEM_READ_ONLY, &data);
    let output = cl.buffer_with(CL_MEM_WRITE_ONLY, &vec![0u32; data.len()]);
    let kernel = cl.kernel(
        "kernel void inc(global const uint* in, global uint* out) {
             out[get_global_id(0)] = in[get_global_id(0)] + 1;
         }",
        "inc",
    );
    kernel.arg(0, &input).arg(1, &output);
    cl.queue.run(&kernel, &[data.len()], None);
    let want: Vec<u32> = data.iter().map(|x| x.wrapping_add(1)).collect();
    assert_same("out", &cl.queue.read(&output), &want);
}

#[test]
fn write_and_read_with_offsets() {
    let cl = Cl::new();
    let n = 4096;
    let mut mirror = pattern(n, 3);
    let buffer = cl.buffer_from(&mirror);
    let patch = pattern(1000, 4);
    cl.queue.write(&buffer, 1234, &patch);
    mirror[1234..2234].copy_from_slice(&patch);
    assert_same(
        "range read",
        &cl.queue.read_range(&buffer, 1000, 2000),
        &mirror[1000..3000],
    );
    assert_same("whole read", &cl.queue.read(&buffer), &mirror);
}

#[test]
fn odd_byte_offsets_and_sizes() {
    let cl = Cl::new();
    let n = 257;
    let mut mirror: Vec<u8> = (0..n).map(|i| (i * 31 % 256) as u8).collect();
    let buffer = cl.buffer_from(&mirror);
    let patch: Vec<u8> = (0..13).map(|i| 200 + i as u8).collect();
    cl.queue.write(&buffer, 3, &patch);
    mirror[3..16].copy_from_slice(&patch);
    cl.queue.write(&buffer, 250, &patch[..7]);
    mirror[250..257].copy_from_slice(&patch[..7]);
    assert_same(
        "bytes 1..18",
        &cl.queue.read_range(&buffer, 1, 17),
        &mirror[1..18],
    );
    assert_same(
        "byte 255",
        &cl.queue.read_range(&buffer, 255, 1),
        &mirror[255..256],
    );
    assert_same("whole read", &cl.queue.read(&buffer), &mirror);
}

#[test]
fn copy_buffer_with_offsets() {
    let cl = Cl::new();
    let src_data = pattern(3000, 5);
    let dst_data = pattern(2000, 6);
    let (src, dst) = (cl.buffer_from(&src_data), cl.buffer_from(&dst_data));
    cl.queue.copy(&src, 1001, &dst, 17, 1500);
    let mut want = dst_data;
    want[17..1517].copy_from_slice(&src_data[1001..2501]);
    assert_same("dst", &cl.queue.read(&dst), &want);
    assert_same("src unchanged", &cl.queue.read(&src), &src_data);
}

#[test]
fn copy_between_disjoint_ranges_of_one_buffer() {
    let cl = Cl::new();
    let data = pattern(1024, 7);
    let buffer = cl.buffer_from(&data);
    cl.queue.copy(&buffer, 0, &buffer, 600, 300);
    let mut want = data.clone();
    want[600..900].copy_from_slice(&data[0..300]);
    assert_same("buffer", &cl.queue.read(&buffer), &want);
}

#[test]
fn large_transfers() {
    let cl = Cl::new();
    // 24 MiB: larger than a typical staging chunk.
    let n = 6 << 20;
    let data = pattern(n, 8);
    let buffer = cl.buffer::<u32>(n);
    cl.queue.write(&buffer, 0, &data);
    let copy = cl.buffer::<u32>(n);
    cl.queue.copy(&buffer, 0, &copy, 0, n);
    assert_same("copy", &cl.queue.read(&copy), &data);
}

/// clEnqueueMapBuffer's status for `map` flags on a buffer made with
/// `host` flags (and on a sub-buffer of it, which inherits them); a
/// successful mapping is unmapped again.
fn map_status(cl: &Cl, host: cl_mem_flags, map: cl_map_flags) -> [cl_int; 2] {
    let data = [7u32; 64];
    let buffer = cl.buffer_with(host, &data);
    let region = cl_buffer_region {
        origin: 0,
        size: 128,
    };
    let mut status = CL_SUCCESS;
    // SAFETY: a region inside the buffer.
    let sub = unsafe {
        clCreateSubBuffer(
            buffer.raw(),
            0,
            CL_BUFFER_CREATE_TYPE_REGION,
            (&region as *const cl_buffer_region).cast(),
            &mut status,
        )
    };
    check(status, "clCreateSubBuffer");
    let mut out = [CL_SUCCESS; 2];
    for (slot, mem) in out.iter_mut().zip([buffer.raw(), sub]) {
        // SAFETY: valid queue and buffer; 128 bytes inside both.
        let p = unsafe {
            clEnqueueMapBuffer(
                cl.queue.raw(),
                mem,
                CL_TRUE,
                map,
                0,
                128,
                0,
                ptr::null(),
                ptr::null_mut(),
                slot,
            )
        };
        if *slot == CL_SUCCESS {
            // SAFETY: the pointer just mapped.
            let s = unsafe {
                clEnqueueUnmapMemObject(cl.queue.raw(), mem, p, 0, ptr::null(), ptr::null_mut())
            };
            check(s, "clEnqueueUnmapMemObject");
        } else {
            assert!(p.is_null(), "a failed map returns NULL");
        }
    }
    cl.queue.finish();
    // SAFETY: the sub-buffer created above.
    check(unsafe { clReleaseMemObject(sub) }, "clReleaseMemObject");
    out
}

#[test]
fn map_respects_host_access_flags() {
    let cl = Cl::new();
    let invalidate = CL_MAP_WRITE_INVALIDATE_REGION;
    // (host flags, map flags, allowed)
    let cases = [
        (CL_MEM_HOST_READ_ONLY, CL_MAP_READ, true),
        (CL_MEM_HOST_READ_ONLY, CL_MAP_WRITE, false),
        (CL_MEM_HOST_READ_ONLY, invalidate, false),
        (CL_MEM_HOST_WRITE_ONLY, CL_MAP_WRITE, true),
        (CL_MEM_HOST_WRITE_ONLY, invalidate, true),
        (CL_MEM_HOST_WRITE_ONLY, CL_MAP_READ, false),
        (CL_MEM_HOST_WRITE_ONLY, CL_MAP_READ | CL_MAP_WRITE, false),
        (CL_MEM_HOST_NO_ACCESS, CL_MAP_READ, false),
        (CL_MEM_HOST_NO_ACCESS, CL_MAP_WRITE, false),
        (CL_MEM_HOST_NO_ACCESS, invalidate, false),
        (0, CL_MAP_READ | CL_MAP_WRITE, true),
    ];
    for (host, map, allowed) in cases {
        // "CL_INVALID_OPERATION if buffer has been created with
        // CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is
        // set in map_flags", and the same for READ_ONLY / NO_ACCESS and the
        // write flags.
        let want = if allowed {
            CL_SUCCESS
        } else {
            CL_INVALID_OPERATION
        };
        for (what, got) in ["buffer", "sub-buffer"]
            .iter()
            .zip(map_status(&cl, host, map))
        {
            expect_error(
                got,
                want,
                &format!("map {map:#x} of a {what} with host flags {host:#x}"),
            );
        }
    }
}

/// Every buffer starts at CL_DEVICE_MEM_BASE_ADDR_ALIGN, and kernels see it
/// through pointer-to-integer casts (CTS vec_align_struct_arr checks that a
/// double16 member of a buffer's struct is 128-byte aligned). Small buffers
/// are sub-allocated from one block, so their starts must be aligned up.
#[test]
fn buffers_start_at_the_base_address_alignment() {
    let cl = Cl::new();
    let bits: cl_uint = device_value(cl.context.device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN);
    let align = bits / 8;
    assert!(align >= 128, "CL_DEVICE_MEM_BASE_ADDR_ALIGN {bits} bits");
    let kernel = cl.kernel(
        "kernel void low(global const uchar* p, global uint* out, uint i) {
             out[i] = (uint)(ulong)p;
         }",
        "low",
    );
    let sizes = [4usize, 12, 100, 1000, 4, 36, 260, 8];
    let buffers: Vec<_> = sizes.iter().map(|&n| cl.buffer::<u8>(n)).collect();
    let out = cl.buffer_from(&vec![1u32; sizes.len()]);
    for (i, b) in buffers.iter().enumerate() {
        kernel.arg(0, b).arg(1, &out).arg(2, &(i as u32));
        cl.queue.run(&kernel, &[1], None);
    }
    for (i, low) in cl.queue.read(&out).iter().enumerate() {
        assert_eq!(
            low % align,
            0,
            "buffer {i} ({} bytes) starts at ..{low:#x}",
            sizes[i]
        );
    }
}

/// maxMemoryAllocationSize and the largest device-local heap of the Vulkan
/// physical device with `uuid` (`None` where Vulkan does not list it).
fn vulkan_allocation_limits(uuid: [u8; 16]) -> Option<(u64, u64)> {
    use ash::vk;
    // SAFETY: loads the system Vulkan loader (ferrocl uses the same one).
    let entry = unsafe { ash::Entry::load() }.ok()?;
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
    let info = vk::InstanceCreateInfo::default().application_info(&app);
    // SAFETY: plain instance creation; destroyed below.
    let inst = unsafe { entry.create_instance(&info, None) }.ok()?;
    // SAFETY: queries on this instance's physical devices.
    let found = unsafe {
        inst.enumerate_physical_devices()
            .unwrap_or_default()
            .into_iter()
            .find_map(|pd| {
                let mut id = vk::PhysicalDeviceIDProperties::default();
                let mut maint3 = vk::PhysicalDeviceMaintenance3Properties::default();
                let mut p2 = vk::PhysicalDeviceProperties2::default()
                    .push_next(&mut id)
                    .push_next(&mut maint3);
                inst.get_physical_device_properties2(pd, &mut p2);
                if id.device_uuid != uuid {
                    return None;
                }
                let mem = inst.get_physical_device_memory_properties(pd);
                let heap = mem.memory_heaps[..mem.memory_heap_count as usize]
                    .iter()
                    .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
                    .map(|h| h.size)
                    .max()
                    .unwrap_or(0);
                Some((maint3.max_memory_allocation_size, heap))
            })
    };
    // SAFETY: nothing made from the instance is alive.
    unsafe { inst.destroy_instance(None) };
    found
}

/// A CPU device (lavapipe) shares the host's memory
/// (CL_DEVICE_HOST_UNIFIED_MEMORY) and reports as CL_DEVICE_MAX_MEM_ALLOC_SIZE
/// what its Vulkan driver allows in one allocation (within global memory),
/// not a quarter of lavapipe's nominal 2 GiB heap: hashcat halves both sizes
/// of a unified-memory device and keeps 256 MiB spare on top of its largest
/// buffer, so 512 MiB left it no room for any attack. A buffer of that size
/// works: a kernel writes its last and first words.
#[test]
fn cpu_device_allocates_what_vulkan_allows() {
    let device = ferrocl_tests::device();
    let platform = ferrocl_tests::info::platform_name(ferrocl_tests::platform());
    let device_type: cl_device_type = device_value(device, CL_DEVICE_TYPE);
    if !platform.to_lowercase().contains("ferrocl") || device_type & CL_DEVICE_TYPE_CPU == 0 {
        return;
    }
    let unified: cl_bool = device_value(device, CL_DEVICE_HOST_UNIFIED_MEMORY);
    assert_eq!(unified, CL_TRUE, "a CPU device's memory is the host's");
    let uuid: [u8; 16] = device_value(device, CL_DEVICE_UUID_KHR);
    let (vk_max, heap) = vulkan_allocation_limits(uuid).expect("the Vulkan device");
    let global: cl_ulong = device_value(device, CL_DEVICE_GLOBAL_MEM_SIZE);
    assert_eq!(global, heap, "CL_DEVICE_GLOBAL_MEM_SIZE");
    let alloc: cl_ulong = device_value(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    assert_eq!(
        alloc,
        vk_max.min(heap),
        "CL_DEVICE_MAX_MEM_ALLOC_SIZE (maxMemoryAllocationSize {vk_max}, heap {heap})"
    );

    let cl = Cl::new();
    let n = (alloc / 4) as usize;
    let buffer = cl.buffer::<u32>(n);
    let kernel = cl.kernel(
        "kernel void ends(global uint *x, ulong last) { x[last] = 0xC0FFEEu; x[0] = 5u; }",
        "ends",
    );
    kernel.arg(0, &buffer).arg(1, &((n - 1) as u64));
    cl.queue.run(&kernel, &[1], None);
    assert_eq!(cl.queue.read_range(&buffer, n - 1, 1), [0xC0FFEE]);
    assert_eq!(cl.queue.read_range(&buffer, 0, 1), [5]);
}
