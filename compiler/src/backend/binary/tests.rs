//! Round trips of ferrocl's program binary format, and its refusal of
//! truncated, corrupted and foreign binaries.

use super::*;
use crate::abi::{
    AccessQualifier, AddressQualifier, Addressing, ArgBuffer, ArgDescriptor, ArgKind,
    DescriptorKind, DescriptorOptions, ImageDescriptor, ImageDim, ImplicitField, KernelArg,
    PrintfArg, PrintfArgKind, PrintfCall,
};
use crate::program::Kernel;

fn caps() -> DeviceCaps {
    DeviceCaps {
        addressing: Addressing::Physical,
        max_push_constant_size: 128,
        fp64: true,
        fp16: false,
        int64_atomics: true,
        subgroup_size: 8,
        khr_subgroups: true,
        subgroup_ops: 0x5b,
        spirv_version: (1, 5),
        images: false,
        read_write_images: false,
        depth_images: false,
        mipmap_image: false,
        mipmap_image_write_args: 0,
        image2d_from_buffer_args: 0,
        fused_fma64: true,
        fused_fma32: true,
        denorms32: false,
        preserve_denorms: Default::default(),
        preserve_inf_nan: Default::default(),
        rmw_ordering: false,
        vulkan_memory_model: false,
        loop_limiter: false,
        soft_int64_division: false,
        wide_narrow_arithmetic: false,
        soft_long_sign_extension: false,
        branch_loop_exits: false,
        split_bitcasts_to_16bit: false,
        inline_functions: false,
        spill_loop_live_outs: false,
        integer_bool_phis: false,
        branch_buffer_selects: false,
        integer_dot_product: false,
        device_clock: false,
        subgroup_clock: false,
        max_num_sub_groups: 0,
        float_atomics: 0,
        descriptor: Default::default(),
    }
}

fn kernel() -> Kernel {
    Kernel {
        name: "k".into(),
        entry_point: "k".into(),
        spirv: vec![0x0723_0203, 0x0001_0500, 0, 10, 0],
        args: vec![
            KernelArg {
                name: "a".into(),
                type_name: "float*".into(),
                address_qualifier: AddressQualifier::Global,
                access_qualifier: AccessQualifier::None,
                type_qualifier: 3,
                kind: ArgKind::Buffer,
                offset: 0,
                size: 8,
                descriptor: None,
            },
            KernelArg {
                name: "l".into(),
                type_name: "int*".into(),
                address_qualifier: AddressQualifier::Local,
                access_qualifier: AccessQualifier::None,
                type_qualifier: 0,
                kind: ArgKind::LocalPointer { align: 128 },
                offset: 0,
                size: 0,
                descriptor: None,
            },
            KernelArg {
                name: "img".into(),
                type_name: "image2d_array_t".into(),
                address_qualifier: AddressQualifier::Global,
                access_qualifier: AccessQualifier::WriteOnly,
                type_qualifier: 0,
                kind: ArgKind::Image {
                    dim: ImageDim::D2Array,
                    descriptor: ImageDescriptor::Storage,
                    binding: 2,
                    buffer_binding: Some(1026),
                    level_binding: Some(4096 + 2 * 15),
                },
                offset: 0,
                size: 0,
                descriptor: None,
            },
            KernelArg {
                name: "s".into(),
                type_name: "sampler_t".into(),
                address_qualifier: AddressQualifier::Private,
                access_qualifier: AccessQualifier::None,
                type_qualifier: 0,
                kind: ArgKind::Sampler { binding: 3 },
                offset: 0,
                size: 0,
                descriptor: None,
            },
        ],
        push_constant_size: 36,
        arg_buffer: Some(ArgBuffer {
            address_offset: 16,
            size: 300,
            implicit: vec![(ImplicitField::ImageChannelOrder(2), 296)],
            descriptor: None,
        }),
        implicit: vec![
            (ImplicitField::GlobalOffset(1), 8),
            (ImplicitField::WorkDim, 12),
            (ImplicitField::GlobalVariables(1), 16),
            (ImplicitField::ImageChannelOrder(2), 20),
            (ImplicitField::SamplerValue(300), 24),
            (ImplicitField::LocalArgOffset(3), 28),
        ],
        reqd_work_group_size: Some([4, 2, 1]),
        compile_num_sub_groups: 3,
        work_group_size_hint: None,
        vec_type_hint: Some("float4".into()),
        attributes: "reqd_work_group_size(4,2,1) vec_type_hint(float4)".into(),
        static_local_size: 64,
        private_size: 16,
        printf: vec![PrintfCall {
            format: "%d %s\n".into(),
            args: vec![
                PrintfArg {
                    kind: PrintfArgKind::Int,
                    bytes: 2,
                    components: 4,
                },
                PrintfArg {
                    kind: PrintfArgKind::String,
                    bytes: 4,
                    components: 1,
                },
            ],
        }],
        printf_strings: b"hi\0".to_vec(),
        descriptor_set: Some(1),
        literal_samplers: vec![0x13],
        addressing: Addressing::Physical,
        global_variables_binding: None,
        printf_binding: None,
        loop_status: false,
    }
}

fn executable() -> Binary {
    Binary {
        options: "-cl-std=CL2.0".into(),
        content: BinaryContent::Executable(Program {
            log: "warning".into(),
            kernels: vec![kernel()],
            global_variables: GlobalVariables {
                size: 12,
                constant_size: 4,
                init: vec![4, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0],
                relocations: vec![0],
            },
        }),
    }
}

/// A descriptor-addressed kernel and caps with descriptor options
/// survive encoding, and other descriptor options refuse the binary.
#[test]
fn round_trip_descriptor() {
    let mut c = caps();
    c.addressing = Addressing::Descriptor;
    c.descriptor = DescriptorOptions {
        pod_ubo: true,
        cluster_pod_args: true,
        sampler_map: vec![0x12, 0x23],
    };
    let mut k = kernel();
    k.addressing = Addressing::Descriptor;
    k.global_variables_binding = Some(7);
    k.printf_binding = Some(9);
    k.loop_status = true;
    c.loop_limiter = true;
    k.implicit.push((ImplicitField::NullBufferArgs(3), 32));
    k.args[0].descriptor = Some(ArgDescriptor {
        set: 1,
        binding: 0,
        offset: 0,
        kind: DescriptorKind::Buffer,
    });
    k.args.push(KernelArg {
        name: "f".into(),
        type_name: "float".into(),
        address_qualifier: AddressQualifier::Private,
        access_qualifier: AccessQualifier::None,
        type_qualifier: 0,
        kind: ArgKind::Pod,
        offset: 4,
        size: 4,
        descriptor: Some(ArgDescriptor {
            set: 1,
            binding: 4,
            offset: 4,
            kind: DescriptorKind::PodUbo,
        }),
    });
    let mut bin = executable();
    let BinaryContent::Executable(p) = &mut bin.content else {
        unreachable!()
    };
    p.kernels = vec![k.clone()];
    let bytes = encode_binary(&bin, &c);
    let b = decode_binary(&bytes, &c).unwrap();
    let BinaryContent::Executable(p) = b.content else {
        panic!("not an executable")
    };
    let d = &p.kernels[0];
    assert_eq!(d.args, k.args);
    assert_eq!(d.implicit, k.implicit);
    assert_eq!(d.addressing, Addressing::Descriptor);
    assert_eq!(d.global_variables_binding, Some(7));
    assert_eq!(d.printf_binding, Some(9));
    assert!(d.loop_status);
    // Without the loop limiter: refused.
    let mut other = c.clone();
    other.loop_limiter = false;
    assert!(decode_binary(&bytes, &other).is_err());
    // Other descriptor options: refused.
    let mut other = c.clone();
    other.descriptor.sampler_map.pop();
    assert!(decode_binary(&bytes, &other).is_err());
    // Every truncation and every flipped byte is refused, never a panic.
    for n in 0..bytes.len() {
        assert!(decode_binary(&bytes[..n], &c).is_err());
    }
    for i in (0..bytes.len()).step_by(7) {
        let mut x = bytes.clone();
        x[i] ^= 0x5a;
        assert!(decode_binary(&x, &c).is_err());
    }
}

#[test]
fn round_trip() {
    let bytes = encode_binary(&executable(), &caps());
    let b = decode_binary(&bytes, &caps()).unwrap();
    assert_eq!(b.options, "-cl-std=CL2.0");
    let BinaryContent::Executable(p) = b.content else {
        panic!("not an executable")
    };
    assert_eq!(p.log, "warning");
    let (k, e) = (&p.kernels[0], kernel());
    assert_eq!(k.spirv, e.spirv);
    assert_eq!(k.args, e.args);
    assert_eq!(k.arg_buffer, e.arg_buffer);
    assert_eq!(k.implicit, e.implicit);
    assert_eq!(k.reqd_work_group_size, e.reqd_work_group_size);
    assert_eq!(k.compile_num_sub_groups, e.compile_num_sub_groups);
    assert_eq!(k.vec_type_hint, e.vec_type_hint);
    assert_eq!(k.attributes, e.attributes);
    assert_eq!((k.static_local_size, k.private_size), (64, 16));
    assert_eq!(k.printf, e.printf);
    assert_eq!(k.printf_strings, e.printf_strings);
    assert_eq!(k.descriptor_set, e.descriptor_set);
    assert_eq!(k.literal_samplers, e.literal_samplers);
    assert!(!k.loop_status);
    assert_eq!(
        p.global_variables,
        GlobalVariables {
            size: 12,
            constant_size: 4,
            init: vec![4, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0],
            relocations: vec![0],
        }
    );

    let lib = Binary {
        options: String::new(),
        content: BinaryContent::Library(vec![1, 2, 3]),
    };
    let b = decode_binary(&encode_binary(&lib, &caps()), &caps()).unwrap();
    assert!(matches!(b.content, BinaryContent::Library(v) if v == [1, 2, 3]));
}

#[test]
fn refuses_bad_input() {
    let bytes = encode_binary(&executable(), &caps());
    // Every truncation and every single flipped byte is refused.
    for n in 0..bytes.len() {
        assert!(decode_binary(&bytes[..n], &caps()).is_err(), "prefix {n}");
        let mut b = bytes.clone();
        b[n] ^= 0x41;
        assert!(decode_binary(&b, &caps()).is_err(), "flip at {n}");
    }
    let mut other = caps();
    other.fp64 = false;
    assert!(decode_binary(&bytes, &other).is_err());
    assert!(decode_binary(b"garbage", &caps()).is_err());
}

/// A binary edited with its checksum recomputed (ferrocl-ilfuzz's
/// mutants): reflection that points outside its blocks is refused, where
/// the runtime used to panic writing an argument at that offset.
#[test]
fn refuses_inconsistent_reflection() {
    type Edit = (&'static str, fn(&mut Kernel));
    let edits: [Edit; 4] = [
        ("implicit offset", |k| k.implicit[0].1 = 0x1000_0000),
        ("argument offset", |k| k.args[0].offset = 296),
        ("push size", |k| k.push_constant_size = 132),
        ("arg-buffer field", |k| {
            k.arg_buffer.as_mut().unwrap().implicit[0].1 = 300
        }),
    ];
    let good = executable();
    assert!(decode_binary(&encode_binary(&good, &caps()), &caps()).is_ok());
    for (what, edit) in edits {
        let mut bin = good.clone();
        let BinaryContent::Executable(p) = &mut bin.content else {
            unreachable!()
        };
        edit(&mut p.kernels[0]);
        let e = decode_binary(&encode_binary(&bin, &caps()), &caps())
            .expect_err(what)
            .0;
        assert!(e.contains("out of range"), "{what}: {e}");
    }
}
