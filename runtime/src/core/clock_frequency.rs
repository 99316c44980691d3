//! CL_DEVICE_MAX_CLOCK_FREQUENCY (MHz), which Vulkan does not expose: read
//! from the operating system for the device behind the Vulkan device
//! (`max_clock_mhz`).
//!
//! * A CPU device (lavapipe, llvmpipe): the CPU's maximum frequency,
//!   `/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq` (kHz), or,
//!   where the kernel has no cpufreq driver (virtual machines), the
//!   highest `cpu MHz` of `/proc/cpuinfo`.
//! * A GPU with PCI bus information: its DRM device in sysfs
//!   (`/sys/bus/pci/devices/DDDD:BB:DD.F/drm/card*/`): Intel's
//!   `gt_max_freq_mhz`, or AMD's highest `pp_dpm_sclk` level
//!   (`/sys/bus/pci/devices/.../pp_dpm_sclk`).
//! * An NVIDIA GPU (its driver publishes no clock in sysfs): NVML, the
//!   library every NVIDIA driver installs (`libnvidia-ml.so.1`, loaded at
//!   the first query, unloaded after it): the maximum SM clock of the
//!   device at that PCI address (`nvmlDeviceGetMaxClockInfo`, what
//!   `nvidia-smi -q -d CLOCK` shows as Max Clocks / SM).
//!
//! Layer: foundation (files and libraries of the operating system, no
//! objects).
//!
//! Gaps: a device none of these describe (no cpufreq or cpuinfo, no PCI
//! information, an NVIDIA GPU without NVML) gets `None`, reported as 0.

use std::path::Path;

/// The maximum clock of the device in MHz, where the system says.
/// `pci`: domain, bus, device, function (VK_EXT_pci_bus_info).
pub fn max_clock_mhz(cpu: bool, pci: Option<[u32; 4]>) -> Option<u32> {
    if cpu {
        return cpu_max_mhz();
    }
    let [domain, bus, dev, func] = pci?;
    if let Some(mhz) = nvml_max_sm_clock(&format!("{domain:04x}:{bus:02x}:{dev:02x}.{func:x}")) {
        return Some(mhz);
    }
    let dir = format!("/sys/bus/pci/devices/{domain:04x}:{bus:02x}:{dev:02x}.{func:x}");
    let dir = Path::new(&dir);
    if let Some(mhz) = read(&dir.join("pp_dpm_sclk")).and_then(|t| highest_dpm_level(&t)) {
        return Some(mhz);
    }
    let cards = std::fs::read_dir(dir.join("drm")).ok()?;
    cards
        .flatten()
        .filter_map(|c| read(&c.path().join("gt_max_freq_mhz")))
        .find_map(|t| t.trim().parse().ok())
}

/// NVML's `nvmlDevice_t`.
type NvmlDevice = *mut std::ffi::c_void;
/// `NVML_CLOCK_SM` of `nvmlClockType_t`.
const NVML_CLOCK_SM: u32 = 1;

/// The maximum SM clock (MHz) NVML gives for the GPU at PCI address
/// `bus_id` ("dddd:bb:dd.f"), if NVML is installed and knows it.
fn nvml_max_sm_clock(bus_id: &str) -> Option<u32> {
    type Init = unsafe extern "C" fn() -> i32;
    type ByBusId = unsafe extern "C" fn(*const std::ffi::c_char, *mut NvmlDevice) -> i32;
    type MaxClock = unsafe extern "C" fn(NvmlDevice, u32, *mut u32) -> i32;
    let id = std::ffi::CString::new(bus_id).ok()?;
    // SAFETY: loading NVML runs its initializers only; the symbols have
    // the C signatures of nvml.h (every NVML since 2013), each returning
    // nvmlReturn_t (0 = NVML_SUCCESS); the library stays loaded while the
    // functions are called and nvmlShutdown balances nvmlInit_v2.
    unsafe {
        let lib = libloading::Library::new("libnvidia-ml.so.1").ok()?;
        let init: libloading::Symbol<Init> = lib.get(b"nvmlInit_v2\0").ok()?;
        let shutdown: libloading::Symbol<Init> = lib.get(b"nvmlShutdown\0").ok()?;
        let by_bus: libloading::Symbol<ByBusId> =
            lib.get(b"nvmlDeviceGetHandleByPciBusId_v2\0").ok()?;
        let max_clock: libloading::Symbol<MaxClock> =
            lib.get(b"nvmlDeviceGetMaxClockInfo\0").ok()?;
        if init() != 0 {
            return None;
        }
        let mut dev: NvmlDevice = std::ptr::null_mut();
        let mut mhz = 0u32;
        let ok = by_bus(id.as_ptr(), &mut dev) == 0
            && max_clock(dev, NVML_CLOCK_SM, &mut mhz) == 0
            && mhz > 0;
        shutdown();
        ok.then_some(mhz)
    }
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

fn cpu_max_mhz() -> Option<u32> {
    if let Some(khz) = read(Path::new(
        "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
    ))
    .and_then(|t| t.trim().parse::<u64>().ok())
    {
        return Some((khz / 1000) as u32);
    }
    cpuinfo_max_mhz(&read(Path::new("/proc/cpuinfo"))?)
}

/// The highest `cpu MHz` of `/proc/cpuinfo` text, rounded.
fn cpuinfo_max_mhz(text: &str) -> Option<u32> {
    text.lines()
        .filter(|l| l.starts_with("cpu MHz"))
        .filter_map(|l| l.split(':').nth(1)?.trim().parse::<f64>().ok())
        .map(|m| m.round() as u32)
        .filter(|&m| m > 0)
        .max()
}

/// The highest level of AMD's `pp_dpm_sclk` ("0: 500Mhz\n1: 2100Mhz *").
fn highest_dpm_level(text: &str) -> Option<u32> {
    text.lines()
        .filter_map(|l| {
            let v = l.split(':').nth(1)?.trim();
            let digits: String = v.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .filter(|&m: &u32| m > 0)
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cpuinfo_and_dpm_levels() {
        let c = "processor\t: 0\ncpu MHz\t\t: 2599.998\nprocessor\t: 1\ncpu MHz\t\t: 3100.2\n";
        assert_eq!(cpuinfo_max_mhz(c), Some(3100));
        assert_eq!(cpuinfo_max_mhz("processor : 0\n"), None);
        assert_eq!(
            highest_dpm_level("0: 500Mhz\n1: 1800Mhz\n2: 2100Mhz *\n"),
            Some(2100)
        );
        assert_eq!(highest_dpm_level(""), None);
    }
}
