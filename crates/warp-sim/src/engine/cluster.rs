//! sm_90 thread-block clusters: the operations of a distributed-shared-memory reduction.
//!
//! The blocks of a cluster ([`crate::engine::Grid::cluster`]) are resident together and may
//! reduce into each other's shared memory ([`crate::engine::Warp::red_shared_cluster`]) and
//! meet at a cluster barrier ([`crate::engine::Warp::barrier_cluster`]). What is checked:
//! a reduction and a plain access of the owning block in one cluster phase (between cluster
//! barriers) race ([`crate::engine::DiagKind::ClusterRace`]); a rank outside the cluster
//! ([`crate::engine::DiagKind::ClusterRank`]); a block that returned while its shared
//! memory is reduced into ([`crate::engine::DiagKind::ClusterExited`]); a reduction into
//! another block before the cluster's first barrier
//! ([`crate::engine::DiagKind::ClusterUnsynced`]).

/// The operation of `red.shared::cluster.{op}.u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterRed {
    /// Wrapping `u32` addition.
    Add,
    /// `u32` minimum.
    Min,
    /// `u32` maximum.
    Max,
}

impl ClusterRed {
    /// The word's new value from its `old` one and the operand `v`.
    #[inline]
    pub fn apply(self, old: u32, v: u32) -> u32 {
        match self {
            ClusterRed::Add => old.wrapping_add(v),
            ClusterRed::Min => old.min(v),
            ClusterRed::Max => old.max(v),
        }
    }
}
