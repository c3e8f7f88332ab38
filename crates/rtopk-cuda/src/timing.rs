//! GPU timing: CUDA events around the work, with a spin kernel queued ahead so that the
//! host's time to submit the work stays out of the figure.

use cudarc::driver::sys;

use crate::error::driver;
use crate::{CudaError, CudaTopK};

/// How long [`CudaTopK::time_ms`] keeps the GPU busy ahead of the timed work: the first try,
/// then a longer one if the host was still submitting when the first ended.
const SPIN_AHEAD_NS: [u64; 2] = [200_000, 5_000_000];

impl CudaTopK {
    /// Runs `work` between two CUDA events on the stream and returns the elapsed milliseconds
    /// of the GPU's work alone: a spin kernel ahead of the start event keeps the GPU busy
    /// while the host submits `work`, so the host's launch latency (2–3 µs on an H100, over a
    /// tenth of the smallest benchmark shapes' time) stays out of the figure. Fails if the host
    /// took longer than the spin even after a longer retry. Build the units `work` launches
    /// first ([`CudaTopK::prepare`]): a build inside `work` is host time.
    pub fn time_ms(
        &self,
        mut work: impl FnMut() -> Result<(), CudaError>,
    ) -> Result<f64, CudaError> {
        for spin_ns in SPIN_AHEAD_NS {
            self.spin_ahead(spin_ns)?;
            let (ms, queued) = self.time_events(&mut work)?;
            if queued {
                return Ok(ms);
            }
        }
        Err(CudaError::Timing { spin_ms: SPIN_AHEAD_NS[SPIN_AHEAD_NS.len() - 1] as f64 * 1e-6 })
    }

    /// [`CudaTopK::time_ms`] from an idle GPU: the figure includes the host's time to submit
    /// `work` (this crate's benchmarks before 2026-11-21 were timed this way).
    pub fn time_ms_idle_start(
        &self,
        mut work: impl FnMut() -> Result<(), CudaError>,
    ) -> Result<f64, CudaError> {
        self.stream.synchronize().map_err(driver("waiting for the GPU"))?;
        Ok(self.time_events(&mut work)?.0)
    }

    /// Elapsed milliseconds between events around `work`, and whether the start event was still
    /// pending once `work` had been submitted (the GPU never waited for the host).
    fn time_events(
        &self,
        work: &mut impl FnMut() -> Result<(), CudaError>,
    ) -> Result<(f64, bool), CudaError> {
        let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(flags).map_err(driver("recording an event"))?;
        work()?;
        let queued = !start.try_is_complete().map_err(driver("querying an event"))?;
        let end = self.stream.record_event(flags).map_err(driver("recording an event"))?;
        end.synchronize().map_err(driver("waiting for the GPU"))?;
        Ok((f64::from(start.elapsed_ms(&end).map_err(driver("reading an event"))?), queued))
    }

    /// Queues a one-thread kernel that runs for `ns` nanoseconds.
    fn spin_ahead(&self, ns: u64) -> Result<(), CudaError> {
        self.launch_spin(ns)
    }
}
