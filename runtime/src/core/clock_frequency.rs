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
//!
//! Layer: foundation (files of the operating system, no objects).
//!
//! Gaps: NVIDIA's driver publishes no clock in sysfs, and NVML is not
//! used, so an NVIDIA GPU gets `None` (reported as 0); measuring the
//! shader clock (OpReadClockKHR ticks over a host-timed kernel) is the
//! planned way there.

use std::path::Path;

/// The maximum clock of the device in MHz, where the system says.
/// `pci`: domain, bus, device, function (VK_EXT_pci_bus_info).
pub fn max_clock_mhz(cpu: bool, pci: Option<[u32; 4]>) -> Option<u32> {
    if cpu {
        return cpu_max_mhz();
    }
    let [domain, bus, dev, func] = pci?;
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
