//! What the GPU benchmark harness (rtopk-tools' `gpu_bench`) needs of the driver that only
//! this crate may do: the read-bandwidth probe and the normal-value generator (kernel
//! launches), the L2 size, and NVRTC's time per unit (the compiler is this crate's).

use std::time::Instant;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg, sys};

use crate::compile::{self, Target};
use crate::error::driver;
use crate::kernels::{Family, KernelFiles, Unit, UnitSource};
use crate::{CudaError, CudaTopK};

impl CudaTopK {
    /// Reads `x` (at least 4 values) once per launch, `reps` times after a warm-up, and
    /// returns the median read bandwidth in GB/s — the ceiling the top-k kernel is held to.
    pub fn read_bandwidth_gbps(&self, x: &CudaSlice<f32>, reps: usize) -> Result<f64, CudaError> {
        let n4 = (x.len() / 4) as u64;
        let mut sink = self.stream.alloc_zeros::<f32>(1).map_err(driver("allocating"))?;
        let probe = self.utility("read_bandwidth_probe")?;
        let cfg = LaunchConfig {
            grid_dim: (self.grid_per_sm(16), 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut times = Vec::with_capacity(reps);
        for rep in 0..=reps {
            let ms = self.time_ms(|| {
                let mut b = self.stream.launch_builder(probe);
                b.arg(x).arg(&n4).arg(&mut sink);
                // SAFETY: read_bandwidth_probe(const float4*, u64, float*): x holds 4 * n4
                // floats (float4-aligned: cudarc allocations are 256-byte aligned); sink 1.
                unsafe { b.launch(cfg) }.map(|_| ()).map_err(driver("launching the probe"))
            })?;
            if rep > 0 {
                times.push(ms);
            }
        }
        times.sort_by(f64::total_cmp);
        let ms = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
        Ok((n4 * 16) as f64 / (ms * 1e-3) / 1e9)
    }

    /// Fills `x` with standard-normal values generated on the device from `seed`.
    pub fn fill_normal(&self, x: &mut CudaSlice<f32>, seed: u64) -> Result<(), CudaError> {
        let n = x.len() as u64;
        let fill = self.utility("fill_normal")?;
        let cfg = LaunchConfig {
            grid_dim: (self.grid_per_sm(32), 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = self.stream.launch_builder(fill);
        b.arg(x).arg(&n).arg(&seed);
        // SAFETY: fill_normal(float*, u64, u64) writes exactly the n elements of x.
        unsafe { b.launch(cfg) }.map(|_| ()).map_err(driver("launching the generator"))
    }

    /// `per_sm` blocks for each of the device's SMs (the grid-stride utilities' grids).
    fn grid_per_sm(&self, per_sm: usize) -> u32 {
        u32::try_from(self.limits.sm_count.saturating_mul(per_sm)).unwrap_or(u32::MAX)
    }

    /// The device's L2 cache size in bytes (benchmarks rotate inputs past it).
    pub fn l2_bytes(&self) -> Result<usize, CudaError> {
        let l2 = self
            .ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
            .map_err(driver("reading the L2 size"))?;
        Ok(l2.max(0) as usize)
    }
}

/// NVRTC's work on one unit, without a GPU.
#[derive(Clone, Debug)]
pub struct CompileRow {
    /// The unit.
    pub unit: Unit,
    /// Bytes of generated source.
    pub source_bytes: usize,
    /// Milliseconds to PTX only (the virtual architecture: front end and NVVM).
    pub ptx_ms: f64,
    /// Bytes of PTX.
    pub ptx_bytes: usize,
    /// Milliseconds straight to SASS (the real architecture: PTX and ptxas).
    pub cubin_ms: f64,
    /// Bytes of cubin.
    pub cubin_bytes: usize,
}

/// Compiles every unit (or those of `families`, if any) for `sm_<cc>` twice, one unit at a
/// time: to PTX for `compute_<cc>` and to a cubin for `sm_<cc>`, timing each. Needs NVRTC,
/// not a GPU; bypasses every cache.
pub fn compile_table(
    cc: u32,
    families: &[Family],
    files: &KernelFiles,
) -> Result<Vec<CompileRow>, CudaError> {
    crate::check_nvrtc()?;
    let (ptx, cubin) =
        (Target::named(&format!("compute_{cc}"), true), Target::named(&format!("sm_{cc}"), false));
    let mut out = Vec::new();
    for unit in Unit::all() {
        if !families.is_empty() && !families.contains(&unit.family()) {
            continue;
        }
        let source = unit.source(files)?;
        let name = unit.to_string();
        let t = Instant::now();
        let p = compile::compile(&name, &source, &ptx)?;
        let ptx_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let c = compile::compile(&name, &source, &cubin)?;
        let cubin_ms = t.elapsed().as_secs_f64() * 1e3;
        out.push(CompileRow {
            unit,
            source_bytes: source.len(),
            ptx_ms,
            ptx_bytes: p.len(),
            cubin_ms,
            cubin_bytes: c.len(),
        });
    }
    Ok(out)
}
