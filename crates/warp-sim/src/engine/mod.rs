//! # The engine: a deterministic warp and block simulator
//!
//! Nothing here knows RTop-K: write *your* kernel against it and validate its logic without a
//! GPU (`examples/bitonic_sort.rs`, `examples/block_reduce.rs` and
//! `examples/split_count.rs` do, and show the diagnostics that catch their planted bugs).
//!
//! * [`lanes`]: [`Lanes`], one warp register — 32 values and a poison mask.
//! * [`warp`]: [`Warp`], the lanes of one task (a warp, or one row's 8 or 16 lanes) in
//!   lockstep with an active mask: CUDA's `ballot_sync`, `shfl*_sync` (with `width`),
//!   `__reduce_*_sync`, `any_sync` / `all_sync`, `syncwarp`, `__syncthreads`, shared and global
//!   loads and stores, atomics, integer arithmetic at the CUDA widths, uniform values, each
//!   checked as it executes.
//! * [`machine`]: [`Machine`], the launcher and its deterministic executor: kernels are
//!   `async` functions, every memory operation and barrier a point where a seeded schedule may
//!   switch to another warp ([`Grid`], [`Schedule`]).
//! * [`shared`] and [`global`]: a block's [`SharedMem`] with a shadow per word and the lanes'
//!   `__syncwarp` clocks; [`Global`] buffers (whole, or a window of a grid too large to hold)
//!   and read-only inputs ([`Source`]: a slice, or a [`VirtualSource`] made from addresses).
//! * [`cluster`]: sm_90 thread-block clusters ([`Grid::cluster`]): blocks of a cluster are
//!   resident together, reduce into each other's shared memory ([`Warp::red_shared_cluster`],
//!   [`ClusterRed`]) and meet at cluster barriers ([`Warp::barrier_cluster`]); misuse is
//!   reported ([`DiagKind::ClusterRace`], [`DiagKind::ClusterRank`],
//!   [`DiagKind::ClusterExited`], [`DiagKind::ClusterUnsynced`]).
//! * [`schedule`]: in order or a seeded shuffle ([`Schedule`]).
//! * [`diag`], [`sink`] and [`summary`]: the findings ([`Diagnostic`]), where they go
//!   ([`DiagSink`]) and their summary by kind ([`DiagSummary`]), never a panic; [`error`]:
//!   [`SimError`].

mod block;
pub mod cluster;
pub mod diag;
pub mod error;
pub mod global;
pub mod lanes;
pub mod machine;
pub mod schedule;
pub mod shared;
pub mod sink;
pub mod summary;
pub mod warp;

pub use block::DEFAULT_KEPT_DIAGNOSTICS;
pub use cluster::ClusterRed;
pub use diag::{DiagKind, DiagPolicy, Diagnostic, Op};
pub use error::SimError;
pub use global::{Global, SliceSource, Source, VirtualSource, WordSource};
pub use lanes::{FULL_MASK, Lanes, WARP_SIZE, lanes_below, lanes_of};
pub use machine::{Grid, Machine, Rows};
pub use schedule::Schedule;
pub use shared::SharedMem;
pub use sink::DiagSink;
pub use summary::{DiagSummary, KindCount};
pub use warp::{BufId, Warp};
