//! What a run exercised: the program's steps (rtopk-plan's `program`) and, inside them, the
//! branches the kernel took — so that a user validating a kernel change can see whether the
//! inputs reached narrowing, block rows past their registers, split rows, the sorts, the
//! 16-bit paths or the search's fallback to key bisection. Counting costs a counter increment
//! per row (kernel branches) or per launch (the rest).

use std::cell::Cell;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::rtopk::plan::Program;

/// A branch a run may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Branch {
    /// Rows of four per warp (`rtopk_quarter_rows_*`).
    QuarterRows,
    /// Rows of two per warp (`rtopk_half_rows_*`).
    HalfRows,
    /// Rows of one warp (`rtopk_warp_rows_*`).
    WarpRows,
    /// Rows of one block (`rtopk_block_rows`).
    BlockRows,
    /// Rows of one block that may narrow (`rtopk_block_rows_narrow`).
    BlockRowsNarrow,
    /// Rows of 16-bit elements (f16, bf16), two per register.
    Elem16,
    /// Rows of integers (i8, u8, i16, i32, i64), one key per element, no value phase.
    ElemInt,
    /// Rows read 16 bytes at a time.
    Vec4Loads,
    /// Block rows whose 16-byte loads reached their threads through shared memory
    /// (`load_block_staged`).
    StagedLoads,
    /// A row of a narrowing kernel that narrowed to its candidates.
    Narrowed,
    /// A row of a narrowing kernel that did not narrow.
    NotNarrowed,
    /// A search that ended on a count of exactly k.
    ExitHit,
    /// A search whose bracket could not shrink.
    ExitConverged,
    /// A search that stopped at its precision.
    ExitPrecision,
    /// A search that stopped at its recall target.
    ExitRecall,
    /// An early-stopping search (Algorithm 2).
    EarlyStop,
    /// A search that bisected keys (the value phase could not go on, or never applied).
    KeyPhase,
    /// A 16-bit search without counts whose value phase ended at adjacent keys
    /// (`value_phase`'s `UNCOUNTED`).
    AdjacentKeys,
    /// A block row with keys in shared memory past its registers.
    SharedKeys,
    /// A block row re-keyed from the input past shared memory.
    Rekeyed,
    /// Split rows: a chunk launch.
    SplitRows,
    /// A split row's last chunk, narrower or wider than the others.
    LastChunk,
    /// The warp sort (`rtopk_sort_warp_rows_*`).
    SortWarp,
    /// The block sort in shared memory.
    SortShared,
    /// The block sort in global memory.
    SortGlobal,
    /// The rank sort: a cluster of blocks a row (`sort_rank_row`).
    SortRank,
    /// The merge sort: a cluster of blocks a row, a run each (`sort_merge_row`).
    SortMerge,
    /// Rows picked in k rounds (`rtopk_pick_rows_*`).
    PickRows,
    /// Rows of 64-bit elements on 64-bit keys (`rtopk_wide_rows_*`).
    WideRows,
    /// A split's chunk whose keys at or above its row's floor were its selection (floor.rs).
    FloorCut,
    /// A split's chunk that searched and raised its row's floor.
    FloorRaised,
    /// A radix select's row whose candidates the second pass kept, every block's fitting (the
    /// passes after the second and the count read them: `count_listed`, `count_candidates`).
    RadixCandidates,
    /// Of those, a row whose candidates the first pass kept, from the sample's floor digit
    /// (the row read once).
    RadixKeptFirst,
    /// A radix select's row whose first pass kept keys from the sample's floor digit, which
    /// the row then read again: the floor above the k-th key's first digit, or a block's keys
    /// past its capacity.
    RadixFloorMissed,
    /// A radix select's row whose candidates the second pass kept, a block's past its
    /// capacity: the passes after the second and the count read the row.
    RadixOverflow,
    /// A radix select's row whose candidates the second pass did not keep (the first found
    /// more than `m / RADIX_KEEP_SHARE`): every pass and the count read the row.
    RadixNotKept,
    /// A radix select's block, its row's candidates kept and every block's fitting, that wrote
    /// its results from them (`write_listed`: at most `RADIX_WRITE_LIST` keys of its part at
    /// or above T).
    RadixListedWrite,
    /// A radix select's block, its row's candidates kept and every block's fitting, that read
    /// its part for its results (`write_part`): more than `RADIX_WRITE_LIST` keys of it at or
    /// above T.
    RadixWriteOverList,
    /// A cluster row that narrowed to its candidates in block 0 (`finish_cluster_candidates`).
    ClusterNarrowed,
    /// A cluster row that narrowed within its blocks and searched several steps a round
    /// (`value_rounds`).
    ClusterRounds,
    /// A wide cluster's row that searched several steps a round by warp ballots
    /// (`ballot_round`).
    ClusterBallotRounds,
    /// A cluster row whose search started from a guessed bracket (`search_guessed`).
    ClusterGuess,
    /// A hinted cluster row whose search started from a window about its hint
    /// (`search_from_hint`).
    ClusterHintGuess,
    /// A 16-bit cluster row whose search took two histograms of its keys' bytes
    /// (`histogram_search`).
    ClusterHistograms,
    /// A 16-bit block row whose search took two histograms of its keys' bytes
    /// (`block_histogram_search`).
    BlockHistograms,
    /// An f32 block row whose search started from a histogram of its values
    /// (`block_value_search`).
    BlockValueBins,
    /// Not rows: the cluster barriers the run's launches completed, each counted once per
    /// cluster — a cluster row's rounds (its first barrier, the range, each count or round of
    /// its search, the selection's placing), summed over the run's clusters.
    ClusterBarriers,
}

impl Branch {
    /// Every branch.
    pub const ALL: [Branch; 47] = [
        Branch::QuarterRows,
        Branch::HalfRows,
        Branch::WarpRows,
        Branch::BlockRows,
        Branch::BlockRowsNarrow,
        Branch::Elem16,
        Branch::ElemInt,
        Branch::Vec4Loads,
        Branch::StagedLoads,
        Branch::Narrowed,
        Branch::NotNarrowed,
        Branch::ExitHit,
        Branch::ExitConverged,
        Branch::ExitPrecision,
        Branch::ExitRecall,
        Branch::EarlyStop,
        Branch::KeyPhase,
        Branch::AdjacentKeys,
        Branch::SharedKeys,
        Branch::Rekeyed,
        Branch::SplitRows,
        Branch::LastChunk,
        Branch::SortWarp,
        Branch::SortShared,
        Branch::SortGlobal,
        Branch::SortRank,
        Branch::SortMerge,
        Branch::PickRows,
        Branch::WideRows,
        Branch::FloorCut,
        Branch::FloorRaised,
        Branch::RadixCandidates,
        Branch::RadixKeptFirst,
        Branch::RadixFloorMissed,
        Branch::RadixOverflow,
        Branch::RadixNotKept,
        Branch::RadixListedWrite,
        Branch::RadixWriteOverList,
        Branch::ClusterNarrowed,
        Branch::ClusterRounds,
        Branch::ClusterBallotRounds,
        Branch::ClusterGuess,
        Branch::ClusterHintGuess,
        Branch::ClusterHistograms,
        Branch::BlockHistograms,
        Branch::BlockValueBins,
        Branch::ClusterBarriers,
    ];

    /// The branch's name.
    pub fn name(self) -> &'static str {
        match self {
            Branch::QuarterRows => "quarter_rows",
            Branch::HalfRows => "half_rows",
            Branch::WarpRows => "warp_rows",
            Branch::BlockRows => "block_rows",
            Branch::BlockRowsNarrow => "block_rows_narrow",
            Branch::Elem16 => "elem16",
            Branch::ElemInt => "elem_int",
            Branch::Vec4Loads => "vec4_loads",
            Branch::StagedLoads => "staged_loads",
            Branch::Narrowed => "narrowed",
            Branch::NotNarrowed => "not_narrowed",
            Branch::ExitHit => "exit_hit",
            Branch::ExitConverged => "exit_converged",
            Branch::ExitPrecision => "exit_precision",
            Branch::ExitRecall => "exit_recall",
            Branch::EarlyStop => "early_stop",
            Branch::KeyPhase => "key_phase",
            Branch::AdjacentKeys => "adjacent_keys",
            Branch::SharedKeys => "shared_keys",
            Branch::Rekeyed => "rekeyed",
            Branch::SplitRows => "split_rows",
            Branch::LastChunk => "last_chunk",
            Branch::SortWarp => "sort_warp",
            Branch::SortShared => "sort_shared",
            Branch::SortGlobal => "sort_global",
            Branch::SortRank => "sort_rank",
            Branch::SortMerge => "sort_merge",
            Branch::PickRows => "pick_rows",
            Branch::WideRows => "wide_rows",
            Branch::FloorCut => "floor_cut",
            Branch::FloorRaised => "floor_raised",
            Branch::RadixCandidates => "radix_candidates",
            Branch::RadixKeptFirst => "radix_kept_first",
            Branch::RadixFloorMissed => "radix_floor_missed",
            Branch::RadixOverflow => "radix_overflow",
            Branch::RadixNotKept => "radix_not_kept",
            Branch::RadixListedWrite => "radix_listed_write",
            Branch::RadixWriteOverList => "radix_write_over_list",
            Branch::ClusterNarrowed => "cluster_narrowed",
            Branch::ClusterRounds => "cluster_rounds",
            Branch::ClusterBallotRounds => "cluster_ballot_rounds",
            Branch::ClusterGuess => "cluster_guess",
            Branch::ClusterHintGuess => "cluster_hint_guess",
            Branch::ClusterHistograms => "cluster_histograms",
            Branch::BlockHistograms => "block_histograms",
            Branch::BlockValueBins => "block_value_bins",
            Branch::ClusterBarriers => "cluster_barriers",
        }
    }

    /// The branch named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    fn ordinal(self) -> usize {
        Self::ALL.iter().position(|&b| b == self).unwrap_or(0)
    }
}

/// What a run exercised: each step of its program (launches of it) and each branch taken
/// (rows, or launches for the sorts and split rows), by name, and the cluster barriers its
/// launches completed; branches not taken are absent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// Launches per step name (`select_rows`, `select_chunks`, ...).
    pub steps: BTreeMap<String, u64>,
    /// Rows (or launches) per branch name ([`Branch::name`]); under `cluster_barriers`, the
    /// run's cluster barriers ([`Branch::ClusterBarriers`]), a count of another unit.
    pub branches: BTreeMap<String, u64>,
}

impl Coverage {
    /// The steps of `program`, each counted once per launch of it; no branches yet.
    pub fn of_program(program: &Program) -> Self {
        let mut steps = BTreeMap::new();
        for s in &program.steps {
            *steps.entry(s.name.name().to_string()).or_default() += 1;
        }
        Self { steps, branches: BTreeMap::new() }
    }

    /// Whether the run took `branch`.
    pub fn reached(&self, branch: Branch) -> bool {
        self.branches.get(branch.name()).is_some_and(|&n| n > 0)
    }

    /// Whether the run ran the step named `step`.
    pub fn ran(&self, step: &str) -> bool {
        self.steps.get(step).is_some_and(|&n| n > 0)
    }

    /// Adds `other`'s branch counts (the steps are the program's: kept).
    pub fn merge_branches(&mut self, other: &Coverage) {
        for (name, n) in &other.branches {
            *self.branches.entry(name.clone()).or_default() += n;
        }
    }
}

/// The counters a run's kernels increment (one per branch).
#[derive(Debug)]
pub(crate) struct Tally {
    counts: [Cell<u64>; Branch::ALL.len()],
}

// by hand: the standard library derives `Default` for arrays of at most 32
impl Default for Tally {
    fn default() -> Self {
        Self { counts: std::array::from_fn(|_| Cell::new(0)) }
    }
}

impl Tally {
    /// Counts `n` of `branch`.
    pub(crate) fn add(&self, branch: Branch, n: u64) {
        let c = &self.counts[branch.ordinal()];
        c.set(c.get().saturating_add(n));
    }

    /// Adds the counts to `cov`'s branches.
    pub(crate) fn into_coverage(self, cov: &mut Coverage) {
        for (b, c) in Branch::ALL.iter().zip(self.counts) {
            if c.get() > 0 {
                *cov.branches.entry(b.name().to_string()).or_default() += c.get();
            }
        }
    }
}
