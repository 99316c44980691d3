//! The one clock of ferrocl's profiling: the host's monotonic clock, onto
//! which device timestamps (Vulkan timestamp queries) are mapped.
//!
//! Every profiling value, clGetHostTimer and clGetDeviceAndHostTimer read
//! [`host_now_ns`]. A device timestamp becomes a host time through the
//! device's [`Calibration`]: one (device ticks, host time) pair measured
//! once per device, plus the tick period.
//!
//! Measuring the pair: with VK_EXT_calibrated_timestamps (NVIDIA), the
//! driver reads the device counter and CLOCK_MONOTONIC together and bounds
//! the deviation; no GPU work is involved, so a busy GPU cannot skew it.
//! Without it (Mesa 22.3's lavapipe): a command buffer holding one timestamp write
//! is submitted, the host clock is read just before vkQueueSubmit (t0) and
//! just after the fence wait returns (t1). The device wrote the timestamp
//! somewhere inside [t0, t1], so taking the midpoint is off by at most
//! (t1 - t0) / 2. The tightest of a few tries is kept; its bound is
//! [`Calibration::error_ns`] (tens of microseconds on lavapipe).
//!
//! Drift: a GPU's counter runs on its own oscillator and drifts from the
//! host clock by some parts per million (on the H100, a calibration a few
//! minutes old put a kernel's QUEUED time after a device time read later,
//! CTS profiling_timebase). With VK_EXT_calibrated_timestamps the pair is
//! re-read whenever it is older than [`REFRESH_NS`], and every
//! clGetDeviceAndHostTimer call re-reads it anyway. The probe path keeps
//! its first calibration: lavapipe's counter is the host's monotonic
//! clock.
//!
//! Layer: Vulkan execution (`crate::vk`), below the object model (events
//! read [`host_now_ns`]).

use std::sync::OnceLock;

use ash::vk;

use super::device::Device;
use super::map_vk_err;
use crate::core::error::CLResult;

/// Nanoseconds on the host's monotonic clock (CLOCK_MONOTONIC), counted
/// from the first use in the process, plus one so that no timestamp is
/// ever 0.
pub fn host_now_ns() -> u64 {
    mono_to_host(monotonic_ns())
}

/// CLOCK_MONOTONIC in nanoseconds (what `std::time::Instant` reads on
/// Linux; read directly so that VK_EXT_calibrated_timestamps' host
/// values, in the same clock, map onto `host_now_ns`).
fn monotonic_ns() -> u64 {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_MONOTONIC: i32 = 1;
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a writable timespec (libc's ABI on
    // 64-bit Linux).
    let r = unsafe { clock_gettime(CLOCK_MONOTONIC, &mut ts) };
    debug_assert_eq!(r, 0);
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A CLOCK_MONOTONIC reading on `host_now_ns`'s scale.
fn mono_to_host(mono_ns: u64) -> u64 {
    static ORIGIN: OnceLock<u64> = OnceLock::new();
    let origin = *ORIGIN.get_or_init(monotonic_ns);
    mono_ns.saturating_sub(origin) + 1
}

/// Maps a device's timestamp counter onto [`host_now_ns`].
#[derive(Clone, Copy, Debug)]
pub struct Calibration {
    /// The device counter at `host_ns`.
    ticks: u64,
    host_ns: u64,
    /// Nanoseconds per tick (VkPhysicalDeviceLimits::timestampPeriod).
    period: f64,
    /// The counter's valid bits (VkQueueFamilyProperties::timestampValidBits).
    mask: u64,
    /// How far off the mapping may be, at the time of calibration.
    pub error_ns: u64,
}

impl Calibration {
    /// The host time at which the device counter read `ticks`. A counter
    /// narrower than 64 bits is assumed to have wrapped at most once since
    /// calibration.
    pub fn to_host(&self, ticks: u64) -> u64 {
        let d = ticks.wrapping_sub(self.ticks) & self.mask;
        // A delta in the upper half of the range is a timestamp taken
        // (slightly) before the calibration point.
        let delta = if d > self.mask / 2 {
            d as i128 - self.mask as i128 - 1
        } else {
            d as i128
        };
        let ns = self.host_ns as i128 + (delta as f64 * self.period) as i128;
        ns.clamp(0, u64::MAX as i128) as u64
    }
}

/// How old a calibration read through VK_EXT_calibrated_timestamps may
/// get before it is read again (100 ms: at 10 ppm of drift, 1 µs).
const REFRESH_NS: u64 = 100_000_000;

/// The device's current calibration: measured on first use and, with
/// VK_EXT_calibrated_timestamps, again once it is [`REFRESH_NS`] old.
pub fn calibration(dev: &Device) -> CLResult<Calibration> {
    let mut slot = dev.clock.lock();
    if let Some(c) = *slot {
        if dev.calibrated.is_none() || host_now_ns().saturating_sub(c.host_ns) < REFRESH_NS {
            return Ok(c);
        }
    }
    let first = slot.is_none();
    let c = measure(dev)?;
    if first && std::env::var_os("FERROCL_LOG").is_some() {
        eprintln!(
            "ferrocl: timestamp calibration: +/- {} ns, {} ns/tick",
            c.error_ns, c.period
        );
    }
    *slot = Some(c);
    Ok(c)
}

/// clGetDeviceAndHostTimer: reads the device's timestamp counter once and
/// returns it mapped onto the host clock (the timeline of every profiling
/// value), with the host clock at the middle of the read. With
/// VK_EXT_calibrated_timestamps the two are read together: the reading
/// becomes the device's calibration, and both times are the same instant.
pub fn device_and_host_time(dev: &Device) -> CLResult<(u64, u64)> {
    if dev.calibrated.is_some() {
        let c = measure(dev)?;
        *dev.clock.lock() = Some(c);
        return Ok((c.host_ns, c.host_ns));
    }
    let clock = calibration(dev)?;
    let probe = Probe::new(dev)?;
    let (ticks, t0, t1) = probe.sample()?;
    Ok((clock.to_host(ticks), t0 + (t1 - t0) / 2))
}

/// A command buffer writing one timestamp, with what it needs; destroyed
/// on drop.
struct Probe<'a> {
    dev: &'a Device,
    pool: vk::CommandPool,
    queries: vk::QueryPool,
    fence: vk::Fence,
    cb: vk::CommandBuffer,
    /// A sample's submission was given up on while still pending (the
    /// device was lost): the objects are leaked rather than destroyed
    /// under it.
    abandoned: std::cell::Cell<bool>,
}

impl Drop for Probe<'_> {
    fn drop(&mut self) {
        if self.abandoned.get() {
            return;
        }
        let d = &self.dev.raw;
        // SAFETY: the objects were created on this device; every submission
        // was waited for (or none happened), so none is in use. Destroying
        // a null handle is a no-op.
        unsafe {
            d.destroy_fence(self.fence, None);
            d.destroy_query_pool(self.queries, None);
            d.destroy_command_pool(self.pool, None);
        }
    }
}

impl<'a> Probe<'a> {
    fn new(dev: &'a Device) -> CLResult<Probe<'a>> {
        let d = &dev.raw;
        let mut p = Probe {
            dev,
            pool: vk::CommandPool::null(),
            queries: vk::QueryPool::null(),
            fence: vk::Fence::null(),
            cb: vk::CommandBuffer::null(),
            abandoned: Default::default(),
        };
        let pi = vk::CommandPoolCreateInfo::default().queue_family_index(dev.queue_family);
        // SAFETY: valid device; every object below is owned by `p`.
        p.pool = unsafe { d.create_command_pool(&pi, None) }.map_err(map_vk_err)?;
        let qi = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(1);
        // SAFETY: as above.
        p.queries = unsafe { d.create_query_pool(&qi, None) }.map_err(map_vk_err)?;
        // SAFETY: as above.
        p.fence =
            unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }.map_err(map_vk_err)?;
        let ai = vk::CommandBufferAllocateInfo::default()
            .command_pool(p.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: as above.
        p.cb = unsafe { d.allocate_command_buffers(&ai) }.map_err(map_vk_err)?[0];
        // SAFETY: cb is in the initial state and used only by this thread.
        unsafe {
            d.begin_command_buffer(p.cb, &vk::CommandBufferBeginInfo::default())
                .map_err(map_vk_err)?;
            d.cmd_reset_query_pool(p.cb, p.queries, 0, 1);
            d.cmd_write_timestamp(p.cb, vk::PipelineStageFlags::TOP_OF_PIPE, p.queries, 0);
            d.end_command_buffer(p.cb).map_err(map_vk_err)?;
        }
        Ok(p)
    }

    /// Runs the command buffer: (device ticks, host time before submitting,
    /// host time after the fence wait).
    fn sample(&self) -> CLResult<(u64, u64, u64)> {
        let d = &self.dev.raw;
        let cbs = [self.cb];
        let si = [vk::SubmitInfo::default().command_buffers(&cbs)];
        let t0;
        if self.dev.is_lost() {
            return Err(opencl_sys::CL_OUT_OF_RESOURCES);
        }
        {
            let q = self.dev.queue.lock();
            t0 = host_now_ns();
            // SAFETY: the queue is externally synchronized by its mutex; cb
            // is executable and not pending (earlier samples were waited for).
            unsafe { d.queue_submit(*q, &si, self.fence) }.map_err(|e| self.dev.vk_err(e))?;
        }
        // The submission runs after whatever the queues submitted before:
        // if that never ends, the queue that waits for it marks the device
        // lost (`FERROCL_KERNEL_TIMEOUT_MS`) and this wait gives up too.
        loop {
            // SAFETY: fence from this device, signalled by the submission above.
            match unsafe { d.wait_for_fences(&[self.fence], true, 100_000_000) } {
                Ok(()) => break,
                Err(vk::Result::TIMEOUT) if self.dev.is_lost() => {
                    // Still pending: the probe's objects must outlive it.
                    self.abandoned.set(true);
                    return Err(opencl_sys::CL_OUT_OF_RESOURCES);
                }
                Err(vk::Result::TIMEOUT) => {}
                Err(e) => return Err(self.dev.vk_err(e)),
            }
        }
        let t1 = host_now_ns();
        // SAFETY: as above; not in use any more.
        unsafe { d.reset_fences(&[self.fence]) }.map_err(map_vk_err)?;
        let mut ticks = [0u64; 1];
        // SAFETY: one 64-bit result for the one query, written (fence waited).
        unsafe {
            d.get_query_pool_results(
                self.queries,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(map_vk_err)?;
        Ok((ticks[0], t0, t1))
    }
}

/// VK_EXT_calibrated_timestamps where enabled: (device ticks,
/// CLOCK_MONOTONIC ns, maximum deviation ns) read together.
fn calibrated_sample(dev: &Device) -> CLResult<Option<(u64, u64, u64)>> {
    let Some(fns) = &dev.calibrated else {
        return Ok(None);
    };
    let info = [
        vk::CalibratedTimestampInfoEXT::default().time_domain(vk::TimeDomainEXT::DEVICE),
        vk::CalibratedTimestampInfoEXT::default().time_domain(vk::TimeDomainEXT::CLOCK_MONOTONIC),
    ];
    // SAFETY: the extension is enabled on this device; two valid domains.
    let (t, deviation) = unsafe { fns.get_calibrated_timestamps(&info) }.map_err(map_vk_err)?;
    Ok(Some((t[0], t[1], deviation)))
}

fn measure(dev: &Device) -> CLResult<Calibration> {
    let bits = dev.phys.timestamp_valid_bits.min(64);
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    if let Some((ticks, mono, deviation)) = calibrated_sample(dev)? {
        return Ok(Calibration {
            ticks: ticks & mask,
            host_ns: mono_to_host(mono),
            period: dev.timestamp_period as f64,
            mask,
            error_ns: deviation,
        });
    }
    let probe = Probe::new(dev)?;
    let mut best: Option<Calibration> = None;
    for _ in 0..5 {
        let (ticks, t0, t1) = probe.sample()?;
        let error_ns = (t1 - t0) / 2;
        if best.is_none_or(|b| error_ns < b.error_ns) {
            best = Some(Calibration {
                ticks: ticks & mask,
                host_ns: t0 + error_ns,
                period: dev.timestamp_period as f64,
                mask,
                error_ns,
            });
        }
    }
    best.ok_or(opencl_sys::CL_OUT_OF_RESOURCES)
}
