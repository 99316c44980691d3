//! The one ferrocl platform: created on first use, it probes Vulkan and
//! makes one CL device per suitable physical device.
//!
//! Layer: platform and devices, the bottom of the object model.

use std::sync::{Arc, OnceLock};

use opencl_sys::*;

use super::device::Device;
use super::object::{tag, Base, ClObject};
use crate::vk::instance::Instance;

#[repr(C)]
pub struct Platform {
    base: Base,
    pub devices: Vec<Arc<Device>>,
    /// Why Vulkan devices were not exposed (logged with FERROCL_LOG).
    pub rejected: Vec<String>,
}

impl ClObject for Platform {
    const TAG: u32 = tag(b"PLAT");
    const INVALID: cl_int = CL_INVALID_PLATFORM;
    fn base(&self) -> &Base {
        &self.base
    }
}

pub const PLATFORM_NAME: &str = "ferrocl";
pub const PLATFORM_VENDOR: &str = "ferrocl";

/// CL_PLATFORM_VERSION / CL_DEVICE_VERSION of OpenCL `version`:
/// "OpenCL <major>.<minor> ferrocl <crate version>".
pub fn version_string((major, minor, _): (u32, u32, u32)) -> String {
    format!(
        "OpenCL {major}.{minor} ferrocl {}",
        env!("CARGO_PKG_VERSION")
    )
}
pub const ICD_SUFFIX: &str = "FRC";

/// Extensions of the platform, with versions (cl_khr_extended_versioning).
pub const PLATFORM_EXTENSIONS: &[(&str, (u32, u32, u32))] = &[
    ("cl_khr_icd", (2, 0, 0)),
    ("cl_khr_extended_versioning", (1, 0, 0)),
];

static PLATFORM: OnceLock<Arc<Platform>> = OnceLock::new();

pub fn log_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("FERROCL_LOG").is_some())
}

/// `FERROCL_DEVICE_REPLICAS=N` (testing switch, 1..=16, default 1): each
/// suitable Vulkan physical device is exposed N times, as N separate CL
/// devices, each with its own VkDevice, queues and memory. A machine with
/// one GPU (or CI with only lavapipe) then runs the multi-device code
/// paths for real: separate storage per device and migration between
/// them. Replicas report the same name and UUID (one physical device);
/// only the first device of the platform is CL_DEVICE_TYPE_DEFAULT. Read
/// once, when the platform is first used.
pub fn device_replicas() -> usize {
    static N: OnceLock<usize> = OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("FERROCL_DEVICE_REPLICAS")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .map_or(1, |n: usize| n.clamp(1, 16))
    })
}

impl Platform {
    /// CL_PLATFORM_NUMERIC_VERSION: the newest version a device of the
    /// platform meets (`Device::opencl_version`), 3.0 without devices. What
    /// OpenCL 3.1 asks of the platform itself (zero-size `__local`
    /// arguments, clGetKernelSuggestedLocalWorkSize) works whatever it is;
    /// clSetKernelArg's zero-size check follows this version, as the spec
    /// words it.
    pub fn version(&self) -> (u32, u32, u32) {
        self.devices
            .iter()
            .map(|d| d.opencl_version())
            .max()
            .unwrap_or((3, 0, 0))
            .max((3, 0, 0))
    }

    /// The platform singleton (devices probed on first call).
    pub fn get() -> &'static Arc<Platform> {
        PLATFORM.get_or_init(|| {
            let mut rejected = Vec::new();
            let mut devices = Vec::new();
            match Instance::new() {
                Ok(inst) => {
                    super::exit::watch();
                    let (phys, why) = inst.probe_devices();
                    rejected = why;
                    // GPUs first so the first device (CL_DEVICE_TYPE_DEFAULT) is the GPU.
                    let mut phys: Vec<_> = phys.into_iter().map(Arc::new).collect();
                    phys.sort_by_key(|p| p.is_cpu());
                    let replicas = device_replicas();
                    for p in phys {
                        for _ in 0..replicas {
                            let first = devices.is_empty();
                            devices.push(Arc::new(Device::new(p.clone(), first)));
                        }
                    }
                }
                Err(e) => rejected.push(format!("Vulkan unavailable: {e:?}")),
            }
            if log_enabled() {
                for r in &rejected {
                    eprintln!("ferrocl: {r}");
                }
                for d in &devices {
                    let p = &d.phys;
                    eprintln!(
                        "ferrocl: {}: float controls: denormals preserved {:?}, signed zero/inf/NaN preserved {:?} (bits: 16, 32, 64)",
                        p.name(),
                        p.shader_fp_denorm_preserve,
                        p.shader_fp_inf_nan_preserve
                    );
                }
            }
            // The platform is never released: the extra Arc held by the
            // static keeps it alive for the life of the process.
            Arc::new(Platform {
                base: Base::new(Self::TAG),
                devices,
                rejected,
            })
        })
    }
}
