//! # warp-sim — a deterministic warp simulator, and the RTop-K kernel on it
//!
//! Two rooms:
//!
//! * [`engine`] — the simulator, which knows nothing of top-k: [`Warp`] (the lanes of one
//!   task — a warp, or the 8 or 16 lanes of one row — in lockstep with an active mask,
//!   [`Lanes`] registers with poison, CUDA's `ballot_sync`, `shfl*_sync` with `width`,
//!   `__reduce_*_sync`, `any_sync` / `all_sync`, `popc`, `syncwarp`, `__syncthreads`, atomics,
//!   integer arithmetic at the CUDA widths, uniform values) and [`Machine`] (the launcher: a
//!   deterministic executor of `async` kernels whose seeded schedule switches warps at every
//!   memory operation and barrier; shared memory with a shadow per word and per-lane
//!   `__syncwarp` clocks, which order global accesses within a warp too; global buffers whole
//!   or windowed, of 1-, 2-, 4- or 8-byte elements, inputs made from addresses) and
//!   its [`Diagnostic`]s, never a panic: bad shuffles, masks that do not match the executing
//!   lanes, barrier divergence, shared and global races, out-of-bounds, foreign and misaligned
//!   accesses, uninitialized reads, poisoned values used, values that should be uniform and
//!   are not, index arithmetic that wraps at its CUDA width, failed kernel invariants,
//!   unwritten outputs, oversized shifts. Write your own kernel against it:
//!   `examples/bitonic_sort.rs`, `examples/block_reduce.rs` and `examples/split_count.rs` do.
//! * [`rtopk`] — the RTop-K kernel of docs/kernel.md on the engine, every launch family of the
//!   CUDA kernel with its stage and function names, chosen by the same launch plan
//!   ([`rtopk::plan`]), bit-identical to topk-ref's `Bisect`, and the CUDA launcher's split
//!   rows (chunks, candidates, `rtopk_split_gather`: [`rtopk::split`]); launched over
//!   matrices by [`Simulator`] (and [`check_order_dependence`] under seeded schedules), usable
//!   row-wise as [`SimTopK`]; its seeded bugs ([`Mutant`], [`mutant::catalog`]) and one row's
//!   journey as text and SVG ([`RowTrace`]). Rows of `f32`, `f16`, `bf16`, `i8`, `u8`, `i16`
//!   and `i32` (topk-ref's `Element`) run the kernels of their type: a 16-bit row is packed two
//!   elements per register and searched on its own 16-bit keys (docs/kernel.md, "16-bit
//!   rows"), an integer row keyed as its value shifted, with no value phase ("Integer rows");
//!   `f64` and `i64` rows run the wide rows alone, one warp per row on 64-bit keys ("64-bit
//!   rows"); values come back as the input's bits.
//!
//! The engine imports nothing from the RTop-K room.
//!
//! ```
//! use topk_ref::{Bisect, Mode};
//! use warp_sim::{KernelArgs, SimConfig, launch_rtopk};
//!
//! let x = [0.0f32, 5.0, 1.0, 8.0, 2.0];
//! let args = KernelArgs { n: 1, m: 5, k: 2, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
//! let r = launch_rtopk(&x, &args, SimConfig::default()).unwrap();
//! assert_eq!((r.indices, r.iterations, r.diagnostics_total), (vec![1, 3], vec![1], 0));
//! assert_eq!(r.plan.unit.to_string(), "rtopk_half_rows_1");
//!
//! // The same row in f16: the f16 kernel, the same answer, values in f16.
//! let h: Vec<topk_ref::f16> = x.iter().map(|&v| topk_ref::f16::from_f32(v)).collect();
//! let r = launch_rtopk(&h, &args, SimConfig::default()).unwrap();
//! assert_eq!((r.indices, r.values[1].to_f32()), (vec![1, 3], 8.0));
//! assert_eq!(r.plan.unit.to_string(), "rtopk_half_rows_2_f16"); // two elements per register
//! ```

#![forbid(unsafe_code)]

pub mod engine;
pub mod rtopk;

pub use engine::{
    BufId, DEFAULT_KEPT_DIAGNOSTICS, DiagKind, DiagPolicy, DiagSink, DiagSummary, Diagnostic,
    FULL_MASK, Global, Grid, KindCount, Lanes, Machine, Op, Rows, Schedule, SharedMem, SimError,
    SliceSource, Source, VirtualSource, WARP_SIZE, Warp, WordSource,
};
pub use rtopk::{
    Branch, Coverage, DeviceLimits, ElemType, Family, H100, KernelArgs, LaunchResult, Mutant, Plan,
    Route, RowData, RowTrace, SearchExit, SimConfig, SimTopK, Simulator, Split, Strategy,
    check_order_dependence, launch_parallel, launch_rtopk,
};

/// The kernel's constants and interface under their first path (`warp_sim::kernel::...`),
/// which other crates use; they live in [`rtopk::args`].
pub mod kernel {
    pub use crate::rtopk::args::{
        BLOCK_CAND_CAP, BLOCK_NARROW_MAX_M, BLOCK_NARROW_MIN_M, CAND_CAP, KernelArgs, NARROW_MAX_M,
        NARROW_MIN_M, SearchExit,
    };
}

/// The seeded-bug catalog under its first path (`warp_sim::mutant::...`), which the command
/// line uses; it lives in [`rtopk::mutant`] and [`mod@rtopk::catalog`].
pub mod mutant {
    pub use crate::rtopk::catalog::{
        Caught, MutantReport, catalog, evaluate, found, kinds_found, render_table,
    };
    pub use crate::rtopk::mutant::Mutant;
}
