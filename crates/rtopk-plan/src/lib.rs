//! # rtopk-plan — how a row-wise top-k is launched
//!
//! The launch plan of the RTop-K kernels ([`plan()`]) and the launch program ([`program()`]:
//! the kernel launches of a top-k, in order, that the GPU and the simulator each execute):
//! which launch family (quarter-, half- or whole-warp rows, block rows, narrowing or not),
//! which instantiation, grid and shared memory run a top-k, and how its results are sorted — a pure function of the shape,
//! the search, the device's limits ([`DeviceLimits`]) and a [`Strategy`]; and the tables it
//! reads ([`units`]: the shared constants, the warp-row widths, the families and their entry
//! points).
//!
//! Both the CUDA launcher (rtopk-cuda, which reads the limits from the device and generates
//! each unit's source from the tables) and the warp simulator (warp-sim, which runs each
//! family as the CUDA kernel does) take their plans from here, so `--algo sim` and
//! `--algo cuda` run the same family for a shape. No CUDA is needed to build or test it.

#![forbid(unsafe_code)]

pub mod cluster;
mod error;
pub mod grouped;
pub mod pick;
pub mod plan;
pub mod program;
pub mod radix;
pub mod split;
pub mod strategy;
pub mod units;
pub mod wide;

pub use cluster::{
    CLUSTER_CAND_CAP, CLUSTER_CAND_KEYS, CLUSTER_GUESS_K_PER, CLUSTER_GUESS_LEVELS,
    CLUSTER_LOCAL_CAP, CLUSTER_MAX_ROW, CLUSTER_MIN_ROW, CLUSTER_NARROW_MAX_K,
    CLUSTER_NARROW_MIN_ROW, CLUSTER_ROUND_LEVELS, CLUSTER_SPAN, CLUSTER_WIDE_K_PER,
    CLUSTER_WIDE_LOCAL_CAP, CLUSTER_WIDE_ROUND_LEVELS, ClusterRows, PORTABLE_CLUSTER,
    SHORT_CLUSTER_MIN_ROW, WIDE_CLUSTER, WIDE_CLUSTER_ROWS, WIDE_CLUSTER_SHARED_THREADS,
    WIDE_PLAIN_MIN_ROW, cluster_plan, clusters,
};
pub use error::PlanError;
pub use grouped::{GROUPED_MAX_BLOCKS, GROUPED_WARPS, GroupedLaunch, grouped_launch};
pub use pick::{
    PICK_LANE_MAX_K, PICK_LOAD_BYTES, PICK_MAX_K, PICK_MAX_ROW, pick_group, pick_plan, picks,
};
pub use plan::{
    ClusterSlots, DeviceLimits, Launch, PRESETS, Plan, SortPlan, SortShape, Strategy, plan,
};
pub use program::{
    Buffer, BufferId, BufferRole, Content, GATHER_BLOCKS_PER_SM, GATHER_THREADS, Gather, Grid,
    Kernel, Program, Radix, Ragged, Region, RowArgs, Select, Sort, SplitRows, Step, StepKind,
    program, program_ragged,
};
pub use radix::{RadixPlan, radix_plan, takes_radix};
pub use split::{BLOCK_REGISTER_ROW, Route, Split, ragged_route, route};
pub use units::{
    BLOCK_CAND_CAP, BLOCK_CAND_KEYS, BLOCK_EPL, BLOCK_LOAD_STAGE_WARP, BLOCK_ROWS_BOUNDS,
    BLOCK_ROWS_NARROW_BOUNDS, BLOCK_STAGE, BLOCK_STATIC_SHARED, CAND_CAP, CLUSTER_ROWS_BOUNDS,
    ElemType, Family, GROUPED_WIDTHS, IndexType, PART_ROWS, PICK_LANE_WIDTHS, PICK_LANES,
    PICK_NARROW_LANES, PICK_WARPS, PICK_WIDTHS, RADIX_ENTRIES, RowWidth, SORT_UNROLLED_MAX,
    SORT_WARP_WIDTHS, SORT_WARPS, UNIT_COUNT, UTILITIES, Unit, WARP_ROWS, WARP_STAGE, WIDE_WIDTHS,
    pick_narrow_max_row, sort_warp_shape,
};
pub use wide::{WIDE_WARPS, wide_plan};
