//! Unit tests of the launch planning (`super`): work-group sizes, the
//! split into dispatches, and the argument and implicit-field bytes.

use super::*;
use ferrocl_compiler::{
    AccessQualifier, AddressQualifier, ArgBuffer, ArgDescriptor, ImageDescriptor, ImageDim,
    KernelArg,
};

/// A device like lavapipe's: 1024 items, 65535 groups per dimension.
const LIMITS: DeviceLimits = DeviceLimits {
    max_work_item_sizes: [1024, 1024, 64],
    max_work_group_size: 1024,
    max_group_count: [65535, 65535, 65535],
};

fn rules(required: Option<[u32; 3]>, non_uniform: bool) -> GroupRules {
    GroupRules {
        required,
        non_uniform,
        max_size: 1024,
        sub_groups: None,
    }
}

fn arg(kind: ArgKind, offset: u32, size: u32, descriptor: Option<ArgDescriptor>) -> KernelArg {
    KernelArg {
        name: String::new(),
        type_name: String::new(),
        address_qualifier: AddressQualifier::Global,
        access_qualifier: AccessQualifier::None,
        type_qualifier: 0,
        kind,
        offset,
        size,
        descriptor,
    }
}

fn pod_at(binding: u32, offset: u32, kind: DescriptorKind) -> Option<ArgDescriptor> {
    Some(ArgDescriptor {
        set: 0,
        binding,
        offset,
        kind,
    })
}

fn abi<'a>(
    push_constant_size: u32,
    args: &'a [KernelArg],
    arg_buffer: Option<&'a ArgBuffer>,
    implicit: &'a [(ImplicitField, u32)],
) -> KernelAbi<'a> {
    KernelAbi {
        push_constant_size,
        args,
        arg_buffer,
        implicit,
        static_local_size: 0,
    }
}

fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn range(work_dim: u32, offset: [usize; 3], global: [usize; 3], local: [usize; 3]) -> NdRange {
    NdRange {
        work_dim,
        offset,
        global,
        local,
    }
}

#[test]
fn null_local_size_divides_the_global_size() {
    assert_eq!(
        choose_local_size(1, &[1024, 1, 1], 1024, &LIMITS),
        [256, 1, 1]
    );
    assert_eq!(choose_local_size(1, &[96, 1, 1], 1024, &LIMITS), [96, 1, 1]);
    // A prime global size: only groups of 1 divide it.
    assert_eq!(
        choose_local_size(1, &[1009, 1, 1], 1024, &LIMITS),
        [1, 1, 1]
    );
    assert_eq!(choose_local_size(2, &[17, 19, 1], 1024, &LIMITS), [1, 1, 1]);
    assert_eq!(
        choose_local_size(2, &[640, 480, 1], 1024, &LIMITS),
        [16, 16, 1]
    );
    assert_eq!(
        choose_local_size(3, &[64, 64, 64], 1024, &LIMITS),
        [8, 8, 4]
    );
    // The kernel's limit (CL_KERNEL_WORK_GROUP_SIZE) bounds the product.
    assert_eq!(choose_local_size(1, &[1024, 1, 1], 64, &LIMITS), [64, 1, 1]);
    assert_eq!(choose_local_size(2, &[64, 64, 1], 32, &LIMITS), [16, 2, 1]);
    // So do the device's item sizes and group size.
    let small = DeviceLimits {
        max_work_item_sizes: [8, 4, 1],
        max_work_group_size: 16,
        ..LIMITS
    };
    assert_eq!(choose_local_size(3, &[64, 64, 64], 1024, &small), [8, 2, 1]);
    // A limit of 0 still gives groups of 1.
    assert_eq!(choose_local_size(1, &[7, 1, 1], 0, &LIMITS), [1, 1, 1]);
}

#[test]
fn given_local_sizes_are_checked() {
    let g = [1024, 1, 1];
    let uniform = rules(None, false);
    assert_eq!(
        local_size(1, &g, Some([128, 1, 1]), &uniform, &LIMITS),
        Ok([128, 1, 1])
    );
    assert_eq!(
        local_size(1, &g, Some([0, 1, 1]), &uniform, &LIMITS),
        Err(CL_INVALID_WORK_ITEM_SIZE)
    );
    assert_eq!(
        local_size(3, &[64, 64, 128], Some([1, 1, 128]), &uniform, &LIMITS),
        Err(CL_INVALID_WORK_ITEM_SIZE)
    );
    let g2 = [2048, 2048, 1];
    assert_eq!(
        local_size(2, &g2, Some([64, 32, 1]), &uniform, &LIMITS),
        Err(CL_INVALID_WORK_GROUP_SIZE)
    );
    // A prime global size: uniform groups must divide it, non-uniform not.
    let p = [1009, 1, 1];
    assert_eq!(
        local_size(1, &p, Some([16, 1, 1]), &uniform, &LIMITS),
        Err(CL_INVALID_WORK_GROUP_SIZE)
    );
    assert_eq!(
        local_size(1, &p, Some([16, 1, 1]), &rules(None, true), &LIMITS),
        Ok([16, 1, 1])
    );
}

#[test]
fn reqd_work_group_size_rules() {
    let r = rules(Some([8, 4, 1]), false);
    // NULL local size: the required one.
    assert_eq!(
        local_size(2, &[64, 64, 1], None, &r, &LIMITS),
        Ok([8, 4, 1])
    );
    // A given one must equal it.
    assert_eq!(
        local_size(2, &[64, 64, 1], Some([8, 4, 1]), &r, &LIMITS),
        Ok([8, 4, 1])
    );
    assert_eq!(
        local_size(2, &[64, 64, 1], Some([4, 8, 1]), &r, &LIMITS),
        Err(CL_INVALID_WORK_GROUP_SIZE)
    );
    // It must divide the global size unless groups may be non-uniform.
    assert_eq!(
        local_size(2, &[63, 64, 1], None, &r, &LIMITS),
        Err(CL_INVALID_WORK_GROUP_SIZE)
    );
    let nu = rules(Some([8, 4, 1]), true);
    assert_eq!(
        local_size(2, &[63, 64, 1], None, &nu, &LIMITS),
        Ok([8, 4, 1])
    );
}

/// SubgroupsPerWorkgroup 2 with sub-groups of 8: work-groups of 9 to 16
/// work-items.
#[test]
fn required_sub_group_count_rules() {
    let r = GroupRules {
        sub_groups: Some((2, 8)),
        ..rules(None, false)
    };
    for (local, ok) in [(16, true), (9, true), (8, false), (17, false)] {
        assert_eq!(
            local_size(1, &[144, 1, 1], Some([local, 1, 1]), &r, &LIMITS).is_ok(),
            ok,
            "local size {local}"
        );
    }
    assert_eq!(
        local_size(2, &[16, 2, 1], Some([8, 2, 1]), &r, &LIMITS),
        Ok([8, 2, 1])
    );
    // NULL: the largest size with two sub-groups dividing the global size.
    assert_eq!(
        local_size(1, &[48, 1, 1], None, &r, &LIMITS),
        Ok([16, 1, 1])
    );
    assert_eq!(
        local_size(1, &[36, 1, 1], None, &r, &LIMITS),
        Ok([12, 1, 1])
    );
    assert_eq!(
        local_size(1, &[17, 1, 1], None, &r, &LIMITS),
        Err(CL_INVALID_WORK_GROUP_SIZE)
    );
    // Non-uniform groups: two whole sub-groups.
    let nu = GroupRules {
        non_uniform: true,
        ..r
    };
    assert_eq!(
        local_size(1, &[17, 1, 1], None, &nu, &LIMITS),
        Ok([16, 1, 1])
    );
    // Pipelines made ahead: that one size.
    assert_eq!(likely_local_sizes(1, &r, &LIMITS), vec![[16, 1, 1]]);
    assert!(likely_explicit_local_sizes(1, &r, &LIMITS).is_empty());
}

#[test]
fn non_uniform_needs_cl2_without_uniform_flag() {
    assert!(!allows_non_uniform("", false));
    assert!(!allows_non_uniform("-cl-std=CL1.2", false));
    assert!(allows_non_uniform("-cl-std=CL2.0", false));
    assert!(allows_non_uniform("-O2 -cl-std=CL3.0", false));
    assert!(allows_non_uniform("-cl-std=CL3.1", false));
    assert!(!allows_non_uniform(
        "-cl-std=CL3.0 -cl-uniform-work-group-size",
        false
    ));
    // The last -cl-std wins.
    assert!(!allows_non_uniform("-cl-std=CL2.0 -cl-std=CL1.2", false));
    // SPIR-V: non-uniform unless the flag says otherwise.
    assert!(allows_non_uniform("", true));
    assert!(!allows_non_uniform("-cl-uniform-work-group-size", true));
}

#[test]
fn split_uniform_range_is_one_dispatch() {
    let d = split(&[1024, 64, 1], &[256, 4, 1], LIMITS.max_group_count);
    assert_eq!(
        d,
        [Dispatch {
            group_offset: [0, 0, 0],
            group_count: [4, 16, 1],
            local: [256, 4, 1],
        }]
    );
}

#[test]
fn split_prime_size_adds_partial_groups() {
    // 1009 = 63 * 16 + 1: the full groups, then one group of 1.
    let d = split(&[1009, 1, 1], &[16, 1, 1], LIMITS.max_group_count);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].group_count, [63, 1, 1]);
    assert_eq!(d[0].local, [16, 1, 1]);
    assert_eq!(d[1].group_offset, [63, 0, 0]);
    assert_eq!(d[1].group_count, [1, 1, 1]);
    assert_eq!(d[1].local, [1, 1, 1]);
    // In 2D: full × full, full × partial, partial × full, partial × partial.
    let d = split(&[17, 19, 1], &[4, 4, 1], LIMITS.max_group_count);
    assert_eq!(d.len(), 4);
    let items: usize = d
        .iter()
        .map(|d| {
            (0..3)
                .map(|i| (d.group_count[i] * d.local[i]) as usize)
                .product::<usize>()
        })
        .sum();
    assert_eq!(items, 17 * 19);
    assert_eq!(d[3].group_offset, [4, 4, 0]);
    assert_eq!(d[3].local, [1, 3, 1]);
}

#[test]
fn split_over_max_group_count() {
    // 200000 groups of 1 with at most 65535 per dispatch: 4 dispatches.
    let d = split(&[200_000, 1, 1], &[1, 1, 1], LIMITS.max_group_count);
    let offsets: Vec<u32> = d.iter().map(|d| d.group_offset[0]).collect();
    let counts: Vec<u32> = d.iter().map(|d| d.group_count[0]).collect();
    assert_eq!(offsets, [0, 65535, 131070, 196605]);
    assert_eq!(counts, [65535, 65535, 65535, 3395]);
    // Two dimensions over a small limit: the product of the chunks.
    let d = split(&[10, 7, 1], &[1, 1, 1], [4, 3, 1]);
    assert_eq!(d.len(), 3 * 3);
    assert!(d
        .iter()
        .all(|d| d.group_count[0] <= 4 && d.group_count[1] <= 3));
    let total: u32 = d.iter().map(|d| d.group_count[0] * d.group_count[1]).sum();
    assert_eq!(total, 70);
}

#[test]
fn physical_argument_block_in_push_constants() {
    let args = [
        arg(ArgKind::Buffer, 0, 8, None),
        arg(ArgKind::Pod, 8, 4, None),
        arg(ArgKind::Buffer, 16, 8, None),
        arg(ArgKind::LocalPointer { align: 16 }, 0, 0, None),
        // A char3-sized POD at an odd offset keeps its exact bytes.
        arg(ArgKind::Pod, 24, 3, None),
    ];
    let k = abi(30, &args, None, &[]);
    let values = [
        ArgData::Buffer(Some(0x1122_3344_5566_7788)),
        ArgData::Pod(&7u32.to_le_bytes()),
        ArgData::Buffer(None),
        ArgData::Local(4096),
        ArgData::Pod(&[1, 2, 3]),
    ];
    let l = layout_args(&k, &values).unwrap();
    // Push constants round up to whole words.
    assert_eq!(l.push.len(), 32);
    assert_eq!(&l.push[0..8], &0x1122_3344_5566_7788u64.to_le_bytes());
    assert_eq!(word(&l.push, 8), 7);
    assert_eq!(&l.push[16..24], &[0; 8], "NULL is address 0");
    assert_eq!(&l.push[24..28], &[1, 2, 3, 0]);
    assert_eq!(l.local_region, Some(Some(4096)));
    assert!(l.arg_buffer.is_none() && l.pods.is_empty());
}

#[test]
fn mismatched_argument_values_are_invalid() {
    let args = [arg(ArgKind::Buffer, 0, 8, None)];
    let k = abi(8, &args, None, &[]);
    assert_eq!(
        layout_args(&k, &[ArgData::Pod(&[0; 8])]),
        Err(CL_INVALID_KERNEL_ARGS)
    );
    assert_eq!(layout_args(&k, &[]), Err(CL_INVALID_KERNEL_ARGS));
}

#[test]
fn argument_buffer_holds_the_block_and_spilled_fields() {
    let args = [
        arg(ArgKind::Pod, 0, 16, None),
        arg(
            ArgKind::Image {
                dim: ImageDim::D2,
                descriptor: ImageDescriptor::Sampled,
                binding: 1,
                buffer_binding: None,
                level_binding: None,
            },
            0,
            0,
            None,
        ),
        arg(ArgKind::Sampler { binding: 2 }, 0, 0, None),
    ];
    let ab = ArgBuffer {
        address_offset: 4,
        size: 28,
        implicit: vec![
            (ImplicitField::ImageChannelOrder(1), 16),
            (ImplicitField::ImageChannelDataType(1), 20),
            (ImplicitField::SamplerValue(2), 24),
        ],
        descriptor: None,
    };
    let k = abi(12, &args, Some(&ab), &[]);
    let pod: Vec<u8> = (1..=16).collect();
    let values = [
        ArgData::Pod(&pod),
        ArgData::Image {
            channel_order: CL_RGBA,
            channel_data_type: CL_UNORM_INT8,
            buffer_shape: None,
            mip_levels: 1,
        },
        ArgData::Sampler(0x13, NO_LOD_RANGE),
    ];
    let mut l = layout_args(&k, &values).unwrap();
    let block = l.arg_buffer.clone().unwrap();
    assert_eq!(block.len(), 28);
    assert_eq!(&block[..16], &pod[..]);
    assert_eq!(word(&block, 16), CL_RGBA);
    assert_eq!(word(&block, 20), CL_UNORM_INT8);
    assert_eq!(word(&block, 24), 0x13);
    // The push constants get the buffer's address, 8-byte, at offset 4.
    assert_eq!(l.push, [0; 12]);
    l.set_arg_buffer_address(&k, 0xAABB_CCDD_0000_1000);
    assert_eq!(&l.push[4..12], &0xAABB_CCDD_0000_1000u64.to_le_bytes());
    // A spilled field naming an argument of another kind.
    let wrong = [
        ArgData::Pod(&pod),
        ArgData::Sampler(1, NO_LOD_RANGE),
        ArgData::Sampler(1, NO_LOD_RANGE),
    ];
    assert_eq!(layout_args(&k, &wrong), Err(CL_INVALID_KERNEL_ARGS));
}

#[test]
fn descriptor_addressing_pod_bindings() {
    let buffer = Some(ArgDescriptor {
        set: 0,
        binding: 0,
        offset: 0,
        kind: DescriptorKind::Buffer,
    });
    let args = [
        arg(ArgKind::Buffer, 0, 8, buffer),
        // Clustered POD arguments share binding 3.
        arg(ArgKind::Pod, 0, 4, pod_at(3, 0, DescriptorKind::Pod)),
        arg(ArgKind::Pod, 0, 2, pod_at(3, 6, DescriptorKind::Pod)),
        arg(ArgKind::Pod, 0, 4, pod_at(1, 0, DescriptorKind::PodUbo)),
    ];
    let ab = ArgBuffer {
        address_offset: 0,
        size: 4,
        implicit: vec![(ImplicitField::SamplerValue(4), 0)],
        descriptor: pod_at(5, 0, DescriptorKind::Pod),
    };
    let mut args = args.to_vec();
    args.push(arg(ArgKind::Sampler { binding: 4 }, 0, 0, None));
    let k = abi(8, &args, Some(&ab), &[]);
    let values = [
        ArgData::Buffer(Some(0)),
        ArgData::Pod(&[1, 2, 3, 4]),
        ArgData::Pod(&[5, 6]),
        ArgData::Pod(&[9, 9, 9, 9]),
        ArgData::Sampler(0x2A, NO_LOD_RANGE),
    ];
    let l = layout_args(&k, &values).unwrap();
    // The argument block is empty: nothing but zeros in push constants.
    assert_eq!(l.push, [0; 8]);
    assert!(l.arg_buffer.is_none());
    let bindings: Vec<(u32, DescriptorKind, &[u8])> = l
        .pods
        .iter()
        .map(|p| (p.binding, p.kind, &p.bytes[..]))
        .collect();
    assert_eq!(
        bindings,
        [
            (3, DescriptorKind::Pod, &[1, 2, 3, 4, 0, 0, 5, 6][..]),
            (1, DescriptorKind::PodUbo, &[9, 9, 9, 9][..]),
            (5, DescriptorKind::Pod, &[0x2A, 0, 0, 0][..]),
        ]
    );
}

#[test]
fn pod_upload_alignment() {
    let pod = |binding, kind, n| PodBinding {
        binding,
        kind,
        bytes: vec![0xEE; n],
    };
    let pods = [
        pod(0, DescriptorKind::Pod, 5),
        pod(1, DescriptorKind::PodUbo, 20),
        pod(2, DescriptorKind::Pod, 0),
        pod(3, DescriptorKind::Pod, 8),
    ];
    let (layout, total) = pod_layout(&pods, 64);
    // Sizes: whole words, whole 16-byte elements, at least one unit.
    assert_eq!(layout, [(0, 8), (64, 32), (128, 4), (192, 8)]);
    assert_eq!(total, 200);
    let (layout, total) = pod_layout(&pods[..2], 16);
    assert_eq!(layout, [(0, 8), (16, 32)]);
    assert_eq!(total, 48);
    assert_eq!(pod_layout(&[], 256), (vec![], 0));
}

#[test]
fn implicit_fields_and_offsets() {
    let implicit = [
        (ImplicitField::GlobalOffset(0), 0),
        (ImplicitField::GlobalOffset(1), 4),
        (ImplicitField::GlobalSize(0), 8),
        (ImplicitField::NumGroups(0), 12),
        (ImplicitField::WorkDim, 16),
        (ImplicitField::RegionGroupOffset(0), 20),
        (ImplicitField::GlobalVariables(0), 24),
        (ImplicitField::GlobalVariables(1), 28),
        (ImplicitField::PrintfBuffer(1), 32),
        (ImplicitField::NullBufferArgs(0), 36),
        (ImplicitField::ImageChannelDataType(2), 40),
    ];
    let args = [
        arg(ArgKind::Buffer, 0, 8, None),
        arg(ArgKind::Buffer, 8, 8, None),
        arg(
            ArgKind::Image {
                dim: ImageDim::D2,
                descriptor: ImageDescriptor::Storage,
                binding: 0,
                buffer_binding: None,
                level_binding: None,
            },
            0,
            0,
            None,
        ),
    ];
    let k = abi(44, &args, None, &implicit);
    let values = [
        ArgData::Buffer(Some(64)),
        ArgData::Buffer(None),
        ArgData::Image {
            channel_order: CL_R,
            channel_data_type: CL_FLOAT,
            buffer_shape: None,
            mip_levels: 1,
        },
    ];
    // A non-uniform NDRange with a global offset: 1009 = 63 * 16 + 1.
    let r = range(2, [5, 7, 0], [1009, 3, 1], [16, 1, 1]);
    let addresses = LaunchAddresses {
        global_vars: 0x0000_0001_2000_0000,
        printf: 0x0000_0002_0000_0040,
    };
    let mut push = vec![0u8; 44];
    let regions = write_implicit(&k, &r, &addresses, &values, &mut push).unwrap();
    assert_eq!(regions, [(0, 20)]);
    assert_eq!(word(&push, 0), 5);
    assert_eq!(word(&push, 4), 7);
    assert_eq!(word(&push, 8), 1009);
    assert_eq!(word(&push, 12), 64, "the partial group counts");
    assert_eq!(word(&push, 16), 2);
    assert_eq!(word(&push, 20), 0);
    assert_eq!((word(&push, 24), word(&push, 28)), (0x2000_0000, 1));
    assert_eq!(word(&push, 32), 2);
    assert_eq!(word(&push, 36), 0b10, "argument 1 is NULL");
    assert_eq!(word(&push, 40), CL_FLOAT);
    // An image field of an argument that is no image.
    let bad = [(ImplicitField::ImageChannelOrder(0), 0)];
    let k = abi(4, &args, None, &bad);
    assert_eq!(
        write_implicit(&k, &r, &addresses, &values, &mut push[..4]),
        Err(CL_INVALID_KERNEL_ARGS)
    );
}

#[test]
fn dispatch_plans_carry_their_group_offsets() {
    let r = range(1, [100, 0, 0], [200_000, 1, 1], [1, 1, 1]);
    let push = vec![0xFFu8; 8];
    let small = [4, 1, 1];
    let plans = plan_dispatches(&r, LIMITS.max_group_count, &push, &[(0, 4)], &[(6, 64)]);
    assert_eq!(plans.len(), 4);
    let offsets: Vec<u32> = plans.iter().map(|p| word(&p.push, 4)).collect();
    assert_eq!(offsets, [0, 65535, 131070, 196605]);
    // Bytes outside the region offsets are the launch's.
    assert!(plans.iter().all(|p| word(&p.push, 0) == u32::MAX));
    assert_eq!(
        plans[0].spec,
        [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 64)]
    );
    // The partial trailing group: its own local size, the enqueued one
    // in SpecIds 3-5.
    let r = range(1, [0; 3], [10, 1, 1], [4, 1, 1]);
    let plans = plan_dispatches(&r, small, &[], &[], &[]);
    assert_eq!(plans.len(), 2);
    assert_eq!(plans[0].group_count, [2, 1, 1]);
    assert_eq!(
        plans[1].spec,
        [(0, 2), (1, 1), (2, 1), (3, 4), (4, 1), (5, 1)]
    );
    assert!(plans[1].push.is_empty());
}

#[test]
fn empty_ranges_do_no_work() {
    assert!(range(2, [0; 3], [16, 0, 1], [1, 1, 1]).is_empty());
    // Dimensions past work_dim do not count.
    assert!(!range(1, [0; 3], [16, 0, 0], [1, 1, 1]).is_empty());
    assert_eq!(
        range(3, [0; 3], [10, 9, 8], [4, 3, 8]).num_groups(),
        [3, 3, 1]
    );
}

#[test]
fn small_global_sizes_are_their_own_group() {
    // The fast path (global size within the cap) agrees with the search.
    for g in 1..=300usize {
        let slow = (1..=256usize).rev().find(|l| g % l == 0).unwrap_or(1);
        assert_eq!(
            choose_local_size(1, &[g, 1, 1], 1024, &LIMITS)[0],
            slow,
            "{g}"
        );
    }
    assert_eq!(choose_local_size(2, &[1, 5, 1], 1024, &LIMITS), [1, 5, 1]);
}

#[test]
fn used_dims_come_from_the_implicit_fields() {
    assert_eq!(used_dims(&[]), 1);
    assert_eq!(used_dims(&[(ImplicitField::WorkDim, 0)]), 1);
    assert_eq!(
        used_dims(&[
            (ImplicitField::GlobalOffset(0), 0),
            (ImplicitField::RegionGroupOffset(1), 4)
        ]),
        2
    );
    assert_eq!(used_dims(&[(ImplicitField::NumGroups(2), 0)]), 3);
    assert_eq!(used_dims(&[(ImplicitField::GlobalSize(0), 0)]), 1);
}

#[test]
fn likely_local_sizes_follow_the_launch_rules() {
    // reqd_work_group_size is the only size.
    assert_eq!(
        likely_local_sizes(2, &rules(Some([8, 4, 1]), false), &LIMITS),
        vec![[8, 4, 1]]
    );
    // One dimension: what a NULL local size picks, then the kernel's
    // whole work-group size.
    assert_eq!(
        likely_local_sizes(1, &rules(None, false), &LIMITS),
        vec![[256, 1, 1], [1024, 1, 1]]
    );
    // Two and three: the NULL local size's pick.
    assert_eq!(
        likely_local_sizes(2, &rules(None, false), &LIMITS),
        vec![[16, 16, 1]]
    );
    assert_eq!(
        likely_local_sizes(3, &rules(None, false), &LIMITS),
        vec![[8, 8, 4]]
    );
    // A small CL_KERNEL_WORK_GROUP_SIZE: one size, not two equal ones.
    let small = GroupRules {
        max_size: 128,
        ..rules(None, false)
    };
    assert_eq!(likely_local_sizes(1, &small, &LIMITS), vec![[128, 1, 1]]);
    // Each prediction is what a launch with a NULL local size and a large
    // power-of-two global size plans for its dispatches.
    for dims in 1..=3 {
        let r = rules(None, false);
        let l = likely_local_sizes(dims, &r, &LIMITS)[0];
        let mut global = [1usize; 3];
        global[..dims].fill(1 << 12);
        let local = local_size(dims, &global, None, &r, &LIMITS).expect("local size");
        let range = NdRange {
            work_dim: dims as u32,
            offset: [0; 3],
            global,
            local,
        };
        let plans = plan_dispatches(&range, LIMITS.max_group_count, &[], &[], &[]);
        assert!(plans.iter().all(|p| p.spec == dispatch_spec(l, l, &[])));
    }
}

#[test]
fn local_pointer_arguments_are_laid_out_after_the_static_data() {
    // A char, a float4 and a double16 pointee (alignments 16, 16, 128)
    // between other arguments, after 20 bytes of the kernel's own data.
    let args = [
        arg(ArgKind::LocalPointer { align: 16 }, 0, 0, None),
        arg(ArgKind::Pod, 0, 4, None),
        arg(ArgKind::LocalPointer { align: 16 }, 0, 0, None),
        arg(ArgKind::LocalPointer { align: 128 }, 0, 0, None),
    ];
    let implicit = [
        (ImplicitField::LocalArgOffset(3), 4),
        (ImplicitField::LocalArgOffset(0), 8),
        (ImplicitField::LocalArgOffset(2), 12),
    ];
    let mut k = abi(16, &args, None, &implicit);
    k.static_local_size = 20;
    let values = [
        ArgData::Local(3),
        ArgData::Pod(&[9, 0, 0, 0]),
        ArgData::Local(48),
        ArgData::Local(128),
    ];
    let l = layout_args(&k, &values).unwrap();
    // From 32 (20 rounded up to 16): 32..48 (3 → 16 bytes), 48..96,
    // then 128..256: the region is 256 - 32 bytes.
    assert_eq!(l.local_region, Some(Some(224)));
    let mut push = l.push.clone();
    let r = range(1, [0; 3], [64, 1, 1], [64, 1, 1]);
    write_implicit(&k, &r, &LaunchAddresses::default(), &values, &mut push).unwrap();
    assert_eq!(word(&push, 0), 9);
    assert_eq!(
        [word(&push, 4), word(&push, 8), word(&push, 12)],
        [128, 32, 48]
    );
    // No `__local` arguments: no region.
    let pod = [arg(ArgKind::Pod, 0, 4, None)];
    let l = layout_args(&abi(4, &pod, None, &[]), &[ArgData::Pod(&[1, 2, 3, 4])]).unwrap();
    assert_eq!(l.local_region, None);
    // A size past 32 bits has no region.
    let one = [arg(ArgKind::LocalPointer { align: 16 }, 0, 0, None)];
    let l = layout_args(&abi(0, &one, None, &[]), &[ArgData::Local(1 << 32)]).unwrap();
    assert_eq!(l.local_region, Some(None));
}

#[test]
fn likely_explicit_sizes_respect_the_limits() {
    let r = rules(None, false);
    assert_eq!(
        likely_explicit_local_sizes(1, &r, &LIMITS),
        [[64, 1, 1], [128, 1, 1]]
    );
    assert_eq!(likely_explicit_local_sizes(2, &r, &LIMITS), [[8, 8, 1]]);
    assert!(likely_explicit_local_sizes(3, &r, &LIMITS).is_empty());
    let small = GroupRules { max_size: 100, ..r };
    assert_eq!(
        likely_explicit_local_sizes(1, &small, &LIMITS),
        [[64, 1, 1]]
    );
    let reqd = rules(Some([32, 1, 1]), false);
    assert!(likely_explicit_local_sizes(1, &reqd, &LIMITS).is_empty());
}
