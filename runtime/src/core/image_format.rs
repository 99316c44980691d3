//! OpenCL image formats on Vulkan: the pure conversion table from
//! (cl_channel_order, cl_channel_type) to the Vulkan format that backs the
//! image, the component mapping of its sampled view, its element size, and
//! the host-side packing of a fill colour into one texel
//! (clEnqueueFillImage). No Vulkan calls: only `vk::Format` and
//! `vk::ComponentMapping` values.
//!
//! Memory layout. The image's bytes are always the OpenCL memory layout of
//! its format (a CL_BGRA texel is the bytes B, G, R, A), so reads, writes
//! and copies move bytes unchanged. Orders whose memory order is not a
//! Vulkan format's are backed by the Vulkan format with the same bytes in
//! (R, G, B, A) positions and the *sampled* view swizzles them back
//! (CL_BGRA on R8G8B8A8: view (B, G, R, A)). Storage views cannot swizzle
//! (Vulkan requires the identity mapping), so storage views use the same
//! format unswizzled and the shader applies the swizzle from the channel
//! order (`ferrocl_compiler::abi::ImageDescriptor`).
//!
//! Texel buffers (CL_MEM_OBJECT_IMAGE1D_BUFFER) have no component mapping
//! at all: their views use the same format, and the shader swizzles as for
//! storage images. Formats whose order only the sampled view's mapping
//! gets right ([`FormatInfo::view_only`]) therefore read correctly only
//! through sampled views.
//!
//! Layer: foundation (pure table), used by image support, memory objects
//! and `crate::vk::image`.

// OpenCL's own constant names (CL_sRGBA, CL_Rx) are kept as written.
#![allow(non_upper_case_globals)]

use ash::vk;
use opencl_sys::*;

/// cl_khr_gl_depth_images values (not in opencl-sys): recognised so that
/// their descriptors are valid, never backed.
const CL_DEPTH_STENCIL: cl_channel_order = 0x10BE;
const CL_UNORM_INT24: cl_channel_type = 0x10DF;

/// How an OpenCL format lives in Vulkan.
#[derive(Clone, Copy, Debug)]
pub struct FormatInfo {
    /// The format of the VkImage, its sampled view and its storage view
    /// (and of a storage texel buffer view).
    pub vk: vk::Format,
    /// Component mapping of the sampled view: what the shader sees as
    /// (R, G, B, A) for the OpenCL channel order.
    pub mapping: vk::ComponentMapping,
    /// Only the sampled view's mapping reads this format right: CL_RGB
    /// with CL_UNORM_SHORT_555 / CL_UNORM_INT_101010 (the undefined bits
    /// are Vulkan's alpha, which only the view forces to 1) and CL_sBGRA
    /// (the shader-side swizzles of storage images and texel buffers cover
    /// CL_BGRA, not CL_sBGRA). Storage and texel-buffer reads of them are
    /// not offered.
    pub view_only: bool,
    /// Bytes per image element.
    pub element_size: usize,
    /// sRGB: read-only (sampled) use only; the sampler converts to linear.
    pub srgb: bool,
}

/// Whether (order, data_type) is a valid OpenCL image format descriptor
/// (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR otherwise): known values, packed
/// types only with the orders they are defined for, and "the number of
/// bits per element [...] must be a power of two".
pub fn is_valid(order: cl_channel_order, data_type: cl_channel_type) -> bool {
    let Some(bits) = channel_bits(data_type) else {
        return false;
    };
    let packed = match data_type {
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => Some(16),
        CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2 => Some(32),
        _ => None,
    };
    let order_ok = match data_type {
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010 => {
            matches!(order, CL_RGB | CL_RGBx)
        }
        CL_UNORM_INT_101010_2 => order == CL_RGBA,
        CL_UNORM_INT24 => matches!(order, CL_DEPTH | CL_DEPTH_STENCIL),
        _ => match order {
            CL_R | CL_A | CL_RG | CL_RA | CL_RGBA | CL_Rx => true,
            CL_INTENSITY | CL_LUMINANCE => matches!(
                data_type,
                CL_UNORM_INT8
                    | CL_UNORM_INT16
                    | CL_SNORM_INT8
                    | CL_SNORM_INT16
                    | CL_HALF_FLOAT
                    | CL_FLOAT
            ),
            CL_BGRA | CL_ARGB | CL_ABGR => matches!(
                data_type,
                CL_UNORM_INT8 | CL_SNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8
            ),
            CL_sRGB | CL_sRGBx | CL_sRGBA | CL_sBGRA => data_type == CL_UNORM_INT8,
            CL_DEPTH => matches!(data_type, CL_UNORM_INT16 | CL_FLOAT),
            CL_DEPTH_STENCIL => data_type == CL_FLOAT,
            // Three-channel orders need a packed type (24/48/96 bits are
            // not powers of two), except sRGB which the spec lists.
            CL_RGB | CL_RGx | CL_RGBx => false,
            _ => false,
        },
    };
    if !order_ok {
        return false;
    }
    let total = match packed {
        Some(b) => b,
        None => match channel_count(order) {
            Some(n) => n * bits,
            None => return false,
        },
    };
    total.is_power_of_two() || matches!(order, CL_sRGB)
}

/// Bytes per element of a valid descriptor (backed or not).
pub fn element_size(order: cl_channel_order, data_type: cl_channel_type) -> Option<usize> {
    if !is_valid(order, data_type) {
        return None;
    }
    Some(match data_type {
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 2,
        CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2 => 4,
        t => channel_count(order)? * channel_bits(t)?.div_ceil(8),
    })
}

/// Bits of one channel (packed types: of the whole element).
fn channel_bits(data_type: cl_channel_type) -> Option<usize> {
    Some(match data_type {
        CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 8,
        CL_SNORM_INT16 | CL_UNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => 16,
        CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => 32,
        CL_UNORM_INT24 => 24,
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 16,
        CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2 => 32,
        _ => return None,
    })
}

/// Channels stored per element.
fn channel_count(order: cl_channel_order) -> Option<usize> {
    Some(match order {
        CL_R | CL_A | CL_INTENSITY | CL_LUMINANCE | CL_DEPTH => 1,
        CL_RG | CL_RA | CL_Rx | CL_DEPTH_STENCIL => 2,
        CL_RGB | CL_RGx | CL_sRGB => 3,
        CL_RGBA | CL_BGRA | CL_ARGB | CL_ABGR | CL_RGBx | CL_sRGBA | CL_sBGRA | CL_sRGBx => 4,
        _ => return None,
    })
}

/// The (R, G, B, A) fill-colour component stored in each memory channel,
/// in memory order; `None` for orders without a backing here.
fn memory_channels(order: cl_channel_order) -> Option<&'static [usize]> {
    Some(match order {
        CL_R | CL_INTENSITY | CL_LUMINANCE | CL_DEPTH => &[0],
        CL_A => &[3],
        CL_RG => &[0, 1],
        CL_RA => &[0, 3],
        CL_RGB => &[0, 1, 2],
        CL_RGBA | CL_sRGBA => &[0, 1, 2, 3],
        CL_BGRA | CL_sBGRA => &[2, 1, 0, 3],
        CL_ARGB => &[3, 0, 1, 2],
        CL_ABGR => &[3, 2, 1, 0],
        _ => return None,
    })
}

/// Vulkan formats of 1, 2 and 4 channels of one data type.
fn channel_formats(data_type: cl_channel_type) -> Option<[vk::Format; 3]> {
    use vk::Format as F;
    Some(match data_type {
        CL_UNORM_INT8 => [F::R8_UNORM, F::R8G8_UNORM, F::R8G8B8A8_UNORM],
        CL_SNORM_INT8 => [F::R8_SNORM, F::R8G8_SNORM, F::R8G8B8A8_SNORM],
        CL_UNSIGNED_INT8 => [F::R8_UINT, F::R8G8_UINT, F::R8G8B8A8_UINT],
        CL_SIGNED_INT8 => [F::R8_SINT, F::R8G8_SINT, F::R8G8B8A8_SINT],
        CL_UNORM_INT16 => [F::R16_UNORM, F::R16G16_UNORM, F::R16G16B16A16_UNORM],
        CL_SNORM_INT16 => [F::R16_SNORM, F::R16G16_SNORM, F::R16G16B16A16_SNORM],
        CL_UNSIGNED_INT16 => [F::R16_UINT, F::R16G16_UINT, F::R16G16B16A16_UINT],
        CL_SIGNED_INT16 => [F::R16_SINT, F::R16G16_SINT, F::R16G16B16A16_SINT],
        CL_HALF_FLOAT => [F::R16_SFLOAT, F::R16G16_SFLOAT, F::R16G16B16A16_SFLOAT],
        CL_UNSIGNED_INT32 => [F::R32_UINT, F::R32G32_UINT, F::R32G32B32A32_UINT],
        CL_SIGNED_INT32 => [F::R32_SINT, F::R32G32_SINT, F::R32G32B32A32_SINT],
        CL_FLOAT => [F::R32_SFLOAT, F::R32G32_SFLOAT, F::R32G32B32A32_SFLOAT],
        _ => return None,
    })
}

fn mapping(
    r: vk::ComponentSwizzle,
    g: vk::ComponentSwizzle,
    b: vk::ComponentSwizzle,
    a: vk::ComponentSwizzle,
) -> vk::ComponentMapping {
    vk::ComponentMapping { r, g, b, a }
}

/// The identity mapping (what storage views must use).
pub const IDENTITY: vk::ComponentMapping = vk::ComponentMapping {
    r: vk::ComponentSwizzle::IDENTITY,
    g: vk::ComponentSwizzle::IDENTITY,
    b: vk::ComponentSwizzle::IDENTITY,
    a: vk::ComponentSwizzle::IDENTITY,
};

/// How (order, data_type) is backed, or `None` when ferrocl has no Vulkan
/// format for it (valid descriptors only: see [`is_valid`]).
pub fn format_info(order: cl_channel_order, data_type: cl_channel_type) -> Option<FormatInfo> {
    use vk::ComponentSwizzle as S;
    use vk::Format as F;
    if !is_valid(order, data_type) {
        return None;
    }
    let info = |vk, mapping, view_only, element_size, srgb| {
        Some(FormatInfo {
            vk,
            mapping,
            view_only,
            element_size,
            srgb,
        })
    };
    match (order, data_type) {
        // Packed RGB formats: the CL bit layouts are the Vulkan ones (first
        // channel in the high bits); the unused bits land in Vulkan's alpha,
        // which the view forces to one.
        (CL_RGB, CL_UNORM_SHORT_565) => info(F::R5G6B5_UNORM_PACK16, IDENTITY, false, 2, false),
        (CL_RGB, CL_UNORM_SHORT_555) => info(
            F::A1R5G5B5_UNORM_PACK16,
            mapping(S::IDENTITY, S::IDENTITY, S::IDENTITY, S::ONE),
            true,
            2,
            false,
        ),
        (CL_RGB, CL_UNORM_INT_101010) => info(
            F::A2R10G10B10_UNORM_PACK32,
            mapping(S::IDENTITY, S::IDENTITY, S::IDENTITY, S::ONE),
            true,
            4,
            false,
        ),
        (CL_sRGBA, CL_UNORM_INT8) => info(F::R8G8B8A8_SRGB, IDENTITY, false, 4, true),
        (CL_sBGRA, CL_UNORM_INT8) => info(
            F::R8G8B8A8_SRGB,
            mapping(S::B, S::G, S::R, S::A),
            true,
            4,
            true,
        ),
        _ => {
            let [one, two, four] = channel_formats(data_type)?;
            let bytes = channel_bits(data_type)? / 8;
            let (vk, mapping) = match order {
                CL_R => (one, IDENTITY),
                // cl_khr_depth_images: a single-channel colour format (the
                // kernel's float is the red component; CL_FLOAT and
                // CL_UNORM_INT16 only, `is_valid`). Vulkan's depth formats
                // are not storage formats.
                CL_DEPTH => (one, IDENTITY),
                CL_A => (one, mapping(S::ZERO, S::ZERO, S::ZERO, S::R)),
                CL_INTENSITY => (one, mapping(S::R, S::R, S::R, S::R)),
                CL_LUMINANCE => (one, mapping(S::R, S::R, S::R, S::ONE)),
                CL_RG => (two, IDENTITY),
                CL_RA => (two, mapping(S::R, S::ZERO, S::ZERO, S::G)),
                CL_RGBA => (four, IDENTITY),
                CL_BGRA => (four, mapping(S::B, S::G, S::R, S::A)),
                // Memory A, R, G, B: Vulkan's R holds A, G holds R, ...
                CL_ARGB => (four, mapping(S::G, S::B, S::A, S::R)),
                // Memory A, B, G, R.
                CL_ABGR => (four, mapping(S::A, S::B, S::G, S::R)),
                _ => return None,
            };
            let channels = channel_count(order)?;
            info(vk, mapping, false, channels * bytes, false)
        }
    }
}

/// Every (order, data_type) pair [`format_info`] backs, in the order
/// clGetSupportedImageFormats lists them (the spec's minimum list first).
pub fn all_formats() -> Vec<cl_image_format> {
    const ORDERS: [cl_channel_order; 13] = [
        CL_RGBA,
        CL_BGRA,
        CL_R,
        CL_RG,
        CL_A,
        CL_RA,
        CL_INTENSITY,
        CL_LUMINANCE,
        CL_ARGB,
        CL_ABGR,
        CL_sRGBA,
        CL_sBGRA,
        CL_DEPTH,
    ];
    const TYPES: [cl_channel_type; 12] = [
        CL_UNORM_INT8,
        CL_UNORM_INT16,
        CL_SIGNED_INT8,
        CL_SIGNED_INT16,
        CL_SIGNED_INT32,
        CL_UNSIGNED_INT8,
        CL_UNSIGNED_INT16,
        CL_UNSIGNED_INT32,
        CL_HALF_FLOAT,
        CL_FLOAT,
        CL_SNORM_INT8,
        CL_SNORM_INT16,
    ];
    let mut out = Vec::new();
    for order in ORDERS {
        for t in TYPES {
            if format_info(order, t).is_some() {
                out.push(cl_image_format {
                    image_channel_order: order,
                    image_channel_data_type: t,
                });
            }
        }
    }
    for t in [CL_UNORM_SHORT_565, CL_UNORM_SHORT_555, CL_UNORM_INT_101010] {
        out.push(cl_image_format {
            image_channel_order: CL_RGB,
            image_channel_data_type: t,
        });
    }
    out
}

/// What clEnqueueFillImage's `fill_color` holds for a data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillKind {
    /// float4 (normalized, half and float types).
    Float,
    /// int4 (unnormalized signed integer types).
    Int,
    /// uint4 (unnormalized unsigned integer types).
    Uint,
}

pub fn fill_kind(data_type: cl_channel_type) -> FillKind {
    match data_type {
        CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 => FillKind::Int,
        CL_UNSIGNED_INT8 | CL_UNSIGNED_INT16 | CL_UNSIGNED_INT32 => FillKind::Uint,
        _ => FillKind::Float,
    }
}

/// Round to nearest, ties to even, then saturate to [lo, hi] (NaN → 0):
/// OpenCL C's `convert_<T>_sat_rte`.
fn sat_rte(v: f32, lo: f32, hi: f32) -> i64 {
    if v.is_nan() {
        return 0;
    }
    v.round_ties_even().clamp(lo, hi) as i64
}

/// A float normalized to `max` (255, 65535, 31, ...): `convert_sat_rte(f * max)`.
fn unorm(f: f32, max: u32) -> u32 {
    sat_rte(f * max as f32, 0.0, max as f32) as u32
}

/// Linear → sRGB for one colour channel, then to 8 bits (OpenCL's
/// write_imagef conversion for sRGB images).
fn srgb8(c: f32) -> u32 {
    if c.is_nan() {
        return 0;
    }
    let c = c.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    unorm(s, 255)
}

/// f32 → IEEE half bits, round to nearest even (overflow → infinity).
pub fn f32_to_f16(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        // Inf or NaN (keep a quiet NaN payload bit).
        return sign
            | 0x7c00
            | if man != 0 {
                0x200 | (man >> 13) as u16
            } else {
                0
            };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        // Subnormal half (or zero): shift the full mantissa into place.
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let round = rem > mid || (rem == mid && half & 1 == 1);
        return sign | (half + round as u32) as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    let round = rem > 0x1000 || (rem == 0x1000 && half & 1 == 1);
    // A carry out of the mantissa correctly bumps the exponent (up to inf).
    sign | (half + round as u32) as u16
}

/// The bytes of one texel of (order, data_type) holding `color`: four
/// 32-bit values read as float, int or uint per [`fill_kind`], converted
/// by OpenCL's write-image rules (normalized: round to nearest even and
/// saturate; integers: saturate; half: round to nearest even).
pub fn pack_texel(
    order: cl_channel_order,
    data_type: cl_channel_type,
    color: [u32; 4],
) -> Option<Vec<u8>> {
    let channels = memory_channels(order)?;
    let f = |i: usize| f32::from_bits(color[i]);
    let s = |i: usize| color[i] as i32;
    let u = |i: usize| color[i];
    let mut out = Vec::with_capacity(16);
    match data_type {
        CL_UNORM_SHORT_565 => {
            let v = (unorm(f(0), 31) << 11) | (unorm(f(1), 63) << 5) | unorm(f(2), 31);
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        CL_UNORM_SHORT_555 => {
            let v = (unorm(f(0), 31) << 10) | (unorm(f(1), 31) << 5) | unorm(f(2), 31);
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        CL_UNORM_INT_101010 => {
            let v = (unorm(f(0), 1023) << 20) | (unorm(f(1), 1023) << 10) | unorm(f(2), 1023);
            out.extend_from_slice(&v.to_le_bytes());
        }
        _ => {
            let srgb = matches!(order, CL_sRGBA | CL_sBGRA);
            for &c in channels {
                match data_type {
                    CL_UNORM_INT8 if srgb && c != 3 => out.push(srgb8(f(c)) as u8),
                    CL_UNORM_INT8 => out.push(unorm(f(c), 255) as u8),
                    CL_UNORM_INT16 => {
                        out.extend_from_slice(&(unorm(f(c), 65535) as u16).to_le_bytes())
                    }
                    CL_SNORM_INT8 => out.push(sat_rte(f(c) * 127.0, -128.0, 127.0) as i8 as u8),
                    CL_SNORM_INT16 => out.extend_from_slice(
                        &(sat_rte(f(c) * 32767.0, -32768.0, 32767.0) as i16).to_le_bytes(),
                    ),
                    CL_HALF_FLOAT => out.extend_from_slice(&f32_to_f16(f(c)).to_le_bytes()),
                    CL_FLOAT => out.extend_from_slice(&f(c).to_le_bytes()),
                    CL_SIGNED_INT8 => out.push(s(c).clamp(-128, 127) as i8 as u8),
                    CL_SIGNED_INT16 => {
                        out.extend_from_slice(&(s(c).clamp(-32768, 32767) as i16).to_le_bytes())
                    }
                    CL_SIGNED_INT32 => out.extend_from_slice(&s(c).to_le_bytes()),
                    CL_UNSIGNED_INT8 => out.push(u(c).min(255) as u8),
                    CL_UNSIGNED_INT16 => {
                        out.extend_from_slice(&(u(c).min(65535) as u16).to_le_bytes())
                    }
                    CL_UNSIGNED_INT32 => out.extend_from_slice(&u(c).to_le_bytes()),
                    _ => return None,
                }
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fbits(v: [f32; 4]) -> [u32; 4] {
        v.map(f32::to_bits)
    }

    #[test]
    fn descriptor_validity() {
        assert!(is_valid(CL_RGBA, CL_UNORM_INT8));
        assert!(is_valid(CL_RGB, CL_UNORM_SHORT_565));
        assert!(!is_valid(CL_RGB, CL_UNORM_INT8), "24 bits per element");
        assert!(!is_valid(CL_RGBA, CL_UNORM_SHORT_565));
        assert!(!is_valid(CL_BGRA, CL_FLOAT));
        assert!(!is_valid(CL_INTENSITY, CL_UNSIGNED_INT8));
        assert!(!is_valid(0, CL_FLOAT));
        assert!(!is_valid(CL_RGBA, 0));
        assert!(is_valid(CL_sRGBA, CL_UNORM_INT8));
        assert!(!is_valid(CL_sRGBA, CL_UNORM_INT16));
    }

    #[test]
    fn minimum_list_is_backed() {
        let all = all_formats();
        for t in [
            CL_UNORM_INT8,
            CL_UNORM_INT16,
            CL_SIGNED_INT8,
            CL_SIGNED_INT16,
            CL_SIGNED_INT32,
            CL_UNSIGNED_INT8,
            CL_UNSIGNED_INT16,
            CL_UNSIGNED_INT32,
            CL_HALF_FLOAT,
            CL_FLOAT,
        ] {
            assert!(all
                .iter()
                .any(|f| f.image_channel_order == CL_RGBA && f.image_channel_data_type == t));
        }
        let bgra = format_info(CL_BGRA, CL_UNORM_INT8).unwrap();
        assert_eq!(bgra.vk, vk::Format::R8G8B8A8_UNORM);
        assert!(!bgra.view_only);
        assert!(format_info(CL_sBGRA, CL_UNORM_INT8).unwrap().view_only);
        assert!(format_info(CL_RGB, CL_UNORM_SHORT_555).unwrap().view_only);
        assert_eq!(bgra.element_size, 4);
    }

    #[test]
    fn element_sizes_and_mappings() {
        assert_eq!(element_size(CL_RGBA, CL_UNSIGNED_INT16), Some(8));
        assert_eq!(element_size(CL_RGB, CL_UNORM_SHORT_555), Some(2));
        assert_eq!(element_size(CL_RGB, CL_FLOAT), None);
        use vk::ComponentSwizzle as S;
        assert_eq!(format_info(CL_RGBA, CL_FLOAT).unwrap().element_size, 16);
        assert_eq!(format_info(CL_RG, CL_HALF_FLOAT).unwrap().element_size, 4);
        assert_eq!(
            format_info(CL_RGB, CL_UNORM_INT_101010)
                .unwrap()
                .element_size,
            4
        );
        let a = format_info(CL_A, CL_UNORM_INT8).unwrap();
        assert_eq!((a.mapping.r, a.mapping.a), (S::ZERO, S::R));
        let l = format_info(CL_LUMINANCE, CL_FLOAT).unwrap();
        assert_eq!((l.mapping.g, l.mapping.a), (S::R, S::ONE));
        let argb = format_info(CL_ARGB, CL_UNORM_INT8).unwrap();
        // Memory A,R,G,B: red is Vulkan's G.
        assert_eq!(argb.mapping.r, S::G);
        assert_eq!(argb.mapping.a, S::R);
    }

    #[test]
    fn pack_orders_and_rounding() {
        let c = fbits([1.0, 0.5, 0.0, 0.25]);
        // 0.5 * 255 = 127.5 → 128 (ties to even); 0.25*255 = 63.75 → 64.
        assert_eq!(
            pack_texel(CL_RGBA, CL_UNORM_INT8, c).unwrap(),
            [255, 128, 0, 64]
        );
        assert_eq!(
            pack_texel(CL_BGRA, CL_UNORM_INT8, c).unwrap(),
            [0, 128, 255, 64]
        );
        assert_eq!(
            pack_texel(CL_ARGB, CL_UNORM_INT8, c).unwrap(),
            [64, 255, 128, 0]
        );
        assert_eq!(
            pack_texel(CL_ABGR, CL_UNORM_INT8, c).unwrap(),
            [64, 0, 128, 255]
        );
        assert_eq!(pack_texel(CL_A, CL_UNORM_INT8, c).unwrap(), [64]);
        assert_eq!(pack_texel(CL_RA, CL_UNORM_INT8, c).unwrap(), [255, 64]);
        // Saturation and NaN.
        let c = fbits([2.0, -1.0, f32::NAN, -2.0]);
        assert_eq!(
            pack_texel(CL_RGBA, CL_UNORM_INT8, c).unwrap(),
            [255, 0, 0, 0]
        );
        assert_eq!(
            pack_texel(CL_RGBA, CL_SNORM_INT8, c).unwrap(),
            [127, (-127i8) as u8, 0, (-128i8) as u8]
        );
    }

    #[test]
    fn pack_integers_saturate() {
        let c = [300u32, (-5i32) as u32, 70000, 7];
        assert_eq!(
            pack_texel(CL_RGBA, CL_UNSIGNED_INT8, c).unwrap(),
            [255, 255, 255, 7]
        );
        assert_eq!(
            pack_texel(CL_RGBA, CL_SIGNED_INT8, c).unwrap(),
            [127, (-5i8) as u8, 127, 7]
        );
        let v = pack_texel(CL_R, CL_UNSIGNED_INT32, [0xdead_beef, 0, 0, 0]).unwrap();
        assert_eq!(v, 0xdead_beefu32.to_le_bytes());
    }

    #[test]
    fn pack_packed_formats() {
        let c = fbits([1.0, 0.0, 1.0, 0.0]);
        let v = pack_texel(CL_RGB, CL_UNORM_SHORT_565, c).unwrap();
        assert_eq!(u16::from_le_bytes([v[0], v[1]]), 0xf81f);
        let v = pack_texel(CL_RGB, CL_UNORM_SHORT_555, c).unwrap();
        assert_eq!(u16::from_le_bytes([v[0], v[1]]), 0x7c1f);
        let v = pack_texel(CL_RGB, CL_UNORM_INT_101010, fbits([0.0, 1.0, 0.0, 0.0])).unwrap();
        assert_eq!(u32::from_le_bytes([v[0], v[1], v[2], v[3]]), 1023 << 10);
    }

    #[test]
    fn half_conversion_rounds_to_nearest_even() {
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(-2.0), 0xc000);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00, "rounds up to infinity");
        assert_eq!(f32_to_f16(f32::INFINITY), 0x7c00);
        assert_eq!(f32_to_f16(f32::NAN) & 0x7c00, 0x7c00);
        assert_ne!(f32_to_f16(f32::NAN) & 0x3ff, 0);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
        assert_eq!(f32_to_f16(1.0 + f32::powi(2.0, -11)), 0x3c00);
        assert_eq!(f32_to_f16(1.0 + 3.0 * f32::powi(2.0, -11)), 0x3c02);
        // Smallest subnormal and half of it (ties to even: 0).
        assert_eq!(f32_to_f16(f32::powi(2.0, -24)), 0x0001);
        assert_eq!(f32_to_f16(f32::powi(2.0, -25)), 0x0000);
        assert_eq!(f32_to_f16(3.0 * f32::powi(2.0, -25)), 0x0002);
        assert_eq!(f32_to_f16(f32::powi(2.0, -14)), 0x0400, "smallest normal");
    }

    #[test]
    fn srgb_fill_converts_colour_not_alpha() {
        let v = pack_texel(CL_sRGBA, CL_UNORM_INT8, fbits([0.5, 0.0, 1.0, 0.5])).unwrap();
        // linear 0.5 → sRGB 0.7354 → 187.5 → 188.
        assert_eq!(v, [188, 0, 255, 128]);
        let v = pack_texel(CL_sBGRA, CL_UNORM_INT8, fbits([0.5, 0.0, 1.0, 0.5])).unwrap();
        assert_eq!(v, [255, 0, 188, 128]);
    }
}
