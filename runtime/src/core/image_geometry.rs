//! The geometry of OpenCL image regions: an image's shape
//! ([`ImageDesc`]), origin/region checks, OpenCL coordinates in Vulkan
//! terms, and the packing of host rows into tightly packed staging.
//!
//! OpenCL coordinates: `origin`/`region` index (x, y, z) of 2D and 3D
//! images, (x, layer) of 1D image arrays and (x, y, layer) of 2D image
//! arrays. [`vk_region`] maps them onto Vulkan offsets, extents and array
//! layers.
//!
//! Layer: plain data and pure functions below memory objects (no object,
//! no lock, no device): `super::memory`, `super::image`,
//! `super::residency` and `super::image_transfer` all use it.

use ash::vk;
use opencl_sys::*;

use super::error::CLResult;

/// The image's shape as clGetImageInfo reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    pub image_type: cl_mem_object_type,
    pub width: usize,
    /// 0 for 1D images (as CL_IMAGE_HEIGHT reports).
    pub height: usize,
    /// 0 unless 3D.
    pub depth: usize,
    /// 0 unless an array.
    pub array_size: usize,
    /// CL_IMAGE_ROW_PITCH / CL_IMAGE_SLICE_PITCH: the pitches of the
    /// host memory given at creation, or computed from the width.
    pub row_pitch: usize,
    pub slice_pitch: usize,
    /// CL_IMAGE_NUM_MIP_LEVELS: the descriptor's `num_mip_levels` (0 or 1:
    /// one level; more with cl_khr_mipmap_image).
    pub num_mip_levels: usize,
}

/// An image position of host commands: OpenCL (x, y, z) coordinates (as
/// `ImageDesc::extent` orders them) within mip level `level` (0 unless
/// cl_khr_mipmap_image, which takes it from the origin's last coordinate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    pub pos: [usize; 3],
    pub level: u32,
}

impl From<[usize; 3]> for Origin {
    fn from(pos: [usize; 3]) -> Origin {
        Origin { pos, level: 0 }
    }
}

/// Size of mip level `level` of a dimension of size `size`.
pub fn level_size(size: usize, level: u32) -> usize {
    (size >> level.min(usize::BITS - 1)).max(1)
}

impl ImageDesc {
    /// The number of mip levels of the VkImage.
    pub fn levels(&self) -> u32 {
        self.num_mip_levels.max(1) as u32
    }

    /// [`Self::extent`] of mip level `level`: the spatial sizes halved
    /// `level` times (at least 1), the array size unchanged.
    pub fn level_extent(&self, level: u32) -> [usize; 3] {
        let e = self.extent();
        let l = |v| level_size(v, level);
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => [l(e[0]), e[1], 1],
            CL_MEM_OBJECT_IMAGE2D => [l(e[0]), l(e[1]), 1],
            CL_MEM_OBJECT_IMAGE2D_ARRAY => [l(e[0]), l(e[1]), e[2]],
            CL_MEM_OBJECT_IMAGE3D => [l(e[0]), l(e[1]), l(e[2])],
            _ => [l(e[0]), 1, 1],
        }
    }

    /// The index of the origin coordinate that names the mip level
    /// (cl_khr_mipmap_image): the one after the image's last coordinate.
    pub fn level_coordinate(image_type: cl_mem_object_type) -> usize {
        match image_type {
            CL_MEM_OBJECT_IMAGE1D => 1,
            CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D => 2,
            _ => 3,
        }
    }

    /// (width, height, depth) in the OpenCL index space of origins and
    /// regions: the array size takes the place of height (1D arrays) or
    /// depth (2D arrays); unused dimensions are 1.
    pub fn extent(&self) -> [usize; 3] {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => [self.width, self.array_size, 1],
            CL_MEM_OBJECT_IMAGE2D => [self.width, self.height, 1],
            CL_MEM_OBJECT_IMAGE2D_ARRAY => [self.width, self.height, self.array_size],
            CL_MEM_OBJECT_IMAGE3D => [self.width, self.height, self.depth],
            _ => [self.width, 1, 1],
        }
    }

    /// Bytes between consecutive index-1 lines of host memory with these
    /// pitches: the slice pitch for 1D image arrays (each 1D image is one
    /// slice), the row pitch otherwise.
    pub fn line_pitch(
        image_type: cl_mem_object_type,
        row_pitch: usize,
        slice_pitch: usize,
    ) -> usize {
        if image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY {
            slice_pitch
        } else {
            row_pitch
        }
    }
}

/// An image region of a live map: what the unmap writes back, and the
/// layout of the mapped memory.
#[derive(Clone, Copy, Debug)]
pub struct MappedRegion {
    pub origin: Origin,
    pub region: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

/// An OpenCL (origin, region) of an image of `image_type` in Vulkan terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VkRegion {
    pub offset: vk::Offset3D,
    pub extent: vk::Extent3D,
    pub base_layer: u32,
    pub layers: u32,
}

pub fn vk_region(
    image_type: cl_mem_object_type,
    origin: [usize; 3],
    region: [usize; 3],
) -> VkRegion {
    let o = origin.map(|v| v as i32);
    let r = region.map(|v| v as u32);
    let (offset, extent, base_layer, layers) = match image_type {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => ([o[0], 0, 0], [r[0], 1, 1], origin[1], r[1]),
        CL_MEM_OBJECT_IMAGE2D => ([o[0], o[1], 0], [r[0], r[1], 1], 0, 1),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => ([o[0], o[1], 0], [r[0], r[1], 1], origin[2], r[2]),
        CL_MEM_OBJECT_IMAGE3D => (o, r, 0, 1),
        _ => ([o[0], 0, 0], [r[0], 1, 1], 0, 1),
    };
    VkRegion {
        offset: vk::Offset3D {
            x: offset[0],
            y: offset[1],
            z: offset[2],
        },
        extent: vk::Extent3D {
            width: extent[0],
            height: extent[1],
            depth: extent[2],
        },
        base_layer: base_layer as u32,
        layers,
    }
}

/// The checks every image command makes of its origin and region:
/// "CL_INVALID_VALUE if the region being read or written specified by
/// origin and region is out of bounds or if values in origin and region do
/// not follow the rules described in the argument description for origin
/// and region" (the unused coordinates of 1D and 2D images are 0 in
/// origin and 1 in region; no region value is 0).
///
/// With cl_khr_mipmap_image the level must exist and the region lie in it.
pub fn check_region(desc: &ImageDesc, origin: &Origin, region: &[usize; 3]) -> CLResult<()> {
    if region.contains(&0) || origin.level >= desc.levels() {
        return Err(CL_INVALID_VALUE);
    }
    let extent = desc.level_extent(origin.level);
    for d in 0..3 {
        match origin.pos[d].checked_add(region[d]) {
            Some(end) if end <= extent[d] => {}
            _ => return Err(CL_INVALID_VALUE),
        }
    }
    Ok(())
}

/// Row (index-1 line) offsets of a region of `region` in host memory with
/// these pitches, paired with their offsets in tightly packed memory; each
/// row is `region[0] * element` bytes.
pub fn rows(
    image_type: cl_mem_object_type,
    region: [usize; 3],
    element: usize,
    row_pitch: usize,
    slice_pitch: usize,
) -> impl Iterator<Item = (usize, usize)> {
    let line = ImageDesc::line_pitch(image_type, row_pitch, slice_pitch);
    let row = region[0] * element;
    (0..region[2]).flat_map(move |z| {
        (0..region[1]).map(move |y| (z * slice_pitch + y * line, (z * region[1] + y) * row))
    })
}

/// Bytes of a tightly packed region.
pub fn tight_size(region: &[usize; 3], element: usize) -> usize {
    region[0] * region[1] * region[2] * element
}

/// Copies the host rectangle at `host` (with pitches) into tight memory.
///
/// # Safety
/// `host` must cover the region with those pitches; `tight` must hold
/// [`tight_size`] bytes; no overlap.
pub unsafe fn pack_rows(
    image_type: cl_mem_object_type,
    region: [usize; 3],
    element: usize,
    pitches: (usize, usize),
    host: *const u8,
    tight: *mut u8,
) {
    let row = region[0] * element;
    for (h, t) in rows(image_type, region, element, pitches.0, pitches.1) {
        // SAFETY: caller contract.
        unsafe { std::ptr::copy_nonoverlapping(host.add(h), tight.add(t), row) };
    }
}

/// The reverse of [`pack_rows`].
///
/// # Safety
/// As for [`pack_rows`], with `host` writable.
pub unsafe fn unpack_rows(
    image_type: cl_mem_object_type,
    region: [usize; 3],
    element: usize,
    pitches: (usize, usize),
    tight: *const u8,
    host: *mut u8,
) {
    let row = region[0] * element;
    for (h, t) in rows(image_type, region, element, pitches.0, pitches.1) {
        // SAFETY: caller contract.
        unsafe { std::ptr::copy_nonoverlapping(tight.add(t), host.add(h), row) };
    }
}

/// A tightly packed buffer ↔ image copy of one region.
pub fn buffer_image_copy(
    image_type: cl_mem_object_type,
    buffer_offset: u64,
    origin: Origin,
    region: [usize; 3],
) -> vk::BufferImageCopy {
    let v = vk_region(image_type, origin.pos, region);
    vk::BufferImageCopy {
        buffer_offset,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: origin.level,
            base_array_layer: v.base_layer,
            layer_count: v.layers,
        },
        image_offset: v.offset,
        image_extent: v.extent,
    }
}

/// How index 1 of a region moves through an image type: along y, along
/// array layers, or not at all (a 1D image's region[1] is 1).
fn line_axis_is_layer(image_type: cl_mem_object_type) -> bool {
    image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY
}

/// The vkCmdCopyImage regions copying `region` from `so` of a `st` image
/// to `dor` of a `dt` image. Index 2 (z, or layers) maps onto Vulkan's
/// 3D-depth ↔ array-layer copies; index 1 does too unless one side is a
/// 1D image array (layers) and the other is not (rows): then one region
/// per line.
pub fn image_copies(
    st: cl_mem_object_type,
    src: Origin,
    dt: cl_mem_object_type,
    dst: Origin,
    region: [usize; 3],
) -> Vec<vk::ImageCopy> {
    let (so, dor) = (src.pos, dst.pos);
    let one = |so: [usize; 3], dor: [usize; 3], region: [usize; 3]| {
        let s = vk_region(st, so, region);
        let d = vk_region(dt, dor, region);
        let layers = |level, base, count| vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: level,
            base_array_layer: base,
            layer_count: count,
        };
        vk::ImageCopy {
            src_subresource: layers(src.level, s.base_layer, s.layers),
            src_offset: s.offset,
            dst_subresource: layers(dst.level, d.base_layer, d.layers),
            dst_offset: d.offset,
            extent: vk::Extent3D {
                width: s.extent.width,
                height: s.extent.height.min(d.extent.height),
                depth: s.extent.depth.max(d.extent.depth),
            },
        }
    };
    if line_axis_is_layer(st) == line_axis_is_layer(dt) || region[1] == 1 {
        return vec![one(so, dor, region)];
    }
    (0..region[1])
        .map(|y| {
            one(
                [so[0], so[1] + y, so[2]],
                [dor[0], dor[1] + y, dor[2]],
                [region[0], 1, region[2]],
            )
        })
        .collect()
}

/// Whether two regions of one image share a texel.
pub fn regions_overlap(a: &[usize; 3], b: &[usize; 3], region: &[usize; 3]) -> bool {
    (0..3).all(|d| a[d] < b[d] + region[d] && b[d] < a[d] + region[d])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_of_each_type() {
        let v = vk_region(CL_MEM_OBJECT_IMAGE1D_ARRAY, [3, 2, 0], [5, 4, 1]);
        assert_eq!((v.offset.x, v.offset.y), (3, 0));
        assert_eq!((v.extent.width, v.extent.height), (5, 1));
        assert_eq!((v.base_layer, v.layers), (2, 4));
        let v = vk_region(CL_MEM_OBJECT_IMAGE2D_ARRAY, [1, 2, 3], [4, 5, 6]);
        assert_eq!((v.offset.y, v.offset.z, v.extent.depth), (2, 0, 1));
        assert_eq!((v.base_layer, v.layers), (3, 6));
        let v = vk_region(CL_MEM_OBJECT_IMAGE3D, [1, 2, 3], [4, 5, 6]);
        assert_eq!((v.offset.z, v.extent.depth, v.layers), (3, 6, 1));
    }

    #[test]
    fn copies_between_types() {
        // 2D → slice 2 of a 3D image: one region, depth 1.
        let c = image_copies(
            CL_MEM_OBJECT_IMAGE2D,
            [0, 0, 0].into(),
            CL_MEM_OBJECT_IMAGE3D,
            [1, 1, 2].into(),
            [4, 4, 1],
        );
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].dst_offset.z, c[0].extent.depth), (2, 1));
        // 3D → 2D array: depth ↔ layers.
        let c = image_copies(
            CL_MEM_OBJECT_IMAGE3D,
            [0, 0, 1].into(),
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            [0, 0, 0].into(),
            [4, 4, 3],
        );
        assert_eq!(c.len(), 1);
        assert_eq!(
            (c[0].extent.depth, c[0].dst_subresource.layer_count),
            (3, 3)
        );
        assert_eq!(c[0].src_subresource.layer_count, 1);
        // 1D array (layers) → 2D (rows): one region per line.
        let c = image_copies(
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            [2, 1, 0].into(),
            CL_MEM_OBJECT_IMAGE2D,
            [0, 5, 0].into(),
            [8, 3, 1],
        );
        assert_eq!(c.len(), 3);
        assert_eq!(c[2].src_subresource.base_array_layer, 3);
        assert_eq!((c[2].dst_offset.y, c[2].extent.height), (7, 1));
    }

    #[test]
    fn host_rows_use_the_array_pitch_for_1d_arrays() {
        let r: Vec<_> = rows(CL_MEM_OBJECT_IMAGE1D_ARRAY, [4, 3, 1], 2, 8, 32).collect();
        assert_eq!(r, [(0, 0), (32, 8), (64, 16)]);
        let r: Vec<_> = rows(CL_MEM_OBJECT_IMAGE3D, [2, 2, 2], 4, 16, 64).collect();
        assert_eq!(r, [(0, 0), (16, 8), (64, 16), (80, 24)]);
    }

    #[test]
    fn region_checks() {
        let d = ImageDesc {
            image_type: CL_MEM_OBJECT_IMAGE2D,
            width: 8,
            height: 4,
            depth: 0,
            array_size: 0,
            row_pitch: 32,
            slice_pitch: 0,
            num_mip_levels: 0,
        };
        let check_region =
            |d: &ImageDesc, o: &[usize; 3], r: &[usize; 3]| check_region(d, &Origin::from(*o), r);
        assert!(check_region(&d, &[0, 0, 0], &[8, 4, 1]).is_ok());
        assert_eq!(
            check_region(&d, &[1, 0, 0], &[8, 4, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&d, &[0, 0, 1], &[8, 4, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&d, &[0, 0, 0], &[8, 4, 2]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&d, &[0, 0, 0], &[0, 4, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert!(regions_overlap(&[0, 0, 0], &[3, 3, 0], &[4, 4, 1]));
        assert!(!regions_overlap(&[0, 0, 0], &[4, 0, 0], &[4, 4, 1]));
    }

    #[test]
    fn mip_level_regions() {
        let d = ImageDesc {
            image_type: CL_MEM_OBJECT_IMAGE2D_ARRAY,
            width: 8,
            height: 5,
            depth: 0,
            array_size: 3,
            row_pitch: 32,
            slice_pitch: 160,
            num_mip_levels: 4,
        };
        assert_eq!(d.level_extent(1), [4, 2, 3]);
        assert_eq!(d.level_extent(3), [1, 1, 3]);
        let at = |pos, level| Origin { pos, level };
        assert!(check_region(&d, &at([0, 0, 0], 2), &[2, 1, 3]).is_ok());
        assert_eq!(
            check_region(&d, &at([0, 0, 0], 2), &[3, 1, 3]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&d, &at([0, 0, 0], 4), &[1, 1, 1]),
            Err(CL_INVALID_VALUE)
        );
        let c = buffer_image_copy(CL_MEM_OBJECT_IMAGE2D_ARRAY, 0, at([1, 0, 2], 1), [2, 2, 1]);
        assert_eq!(c.image_subresource.mip_level, 1);
        assert_eq!(c.image_subresource.base_array_layer, 2);
        assert_eq!(ImageDesc::level_coordinate(CL_MEM_OBJECT_IMAGE1D), 1);
        assert_eq!(ImageDesc::level_coordinate(CL_MEM_OBJECT_IMAGE2D), 2);
        assert_eq!(ImageDesc::level_coordinate(CL_MEM_OBJECT_IMAGE3D), 3);
    }
}
