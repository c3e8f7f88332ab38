//! # rtopk-tools — what is built around the `rtopk` library, outside its door
//!
//! The `rtopk` command line uses these; a program that only selects needs none of them (and
//! none of their dependencies: plotting, progress bars, clocks).
//!
//! * [`npy`]: `.npy` input (read in blocks of rows) and outputs written all or nothing, never
//!   over the input.
//! * [`bench`](mod@bench): the CPU benchmark harness — timing, checking every answer against
//!   the oracle, the comparison grids of the seed papers, JSON reports and SVG charts, progress
//!   bars.
//! * [`gpu_bench`]: the GPU benchmark harness (the paper's case grids and the split, vector
//!   and wide regimes, inputs rotated past L2, CUDA-event timing), the first call's breakdown
//!   and NVRTC's time per unit.
//! * [`verify`]: the GPU kernel against the CPU references and the warp simulator.
//! * [`stats`]: iteration-count statistics of generated rows, a matrix or a `.npy` file.
//! * [`recall`](mod@recall): the recall rule's achieved recall and iterations per input family,
//!   width, k and target.

#![forbid(unsafe_code)]

pub mod bench;
pub mod error;
pub mod gpu_bench;
pub mod npy;
pub mod recall;
pub mod stats;
pub mod verify;

pub use error::Error;

/// What the GPU tools name of the CUDA crate: the device, its kernels' units and sources, the
/// launch strategies, the compile cache.
pub mod gpu {
    pub use rtopk_cuda::kernels::{Family, KernelFiles, Unit, UnitSource};
    pub use rtopk_cuda::{
        CacheUse, CudaError, CudaTopK, ElemType, Strategy, UnitReport, nvrtc_version,
    };
}
