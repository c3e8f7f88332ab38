//! The seeded bugs of the RTop-K kernel: each [`Mutant`] is a switch the kernel reads at the
//! exact line a realistic mistake would change ([`crate::rtopk::args::KernelArgs::mutant`]),
//! in one of the launch families. How the simulator catches each is
//! [`mod@crate::rtopk::catalog`].

/// A seeded bug of the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mutant {
    /// `select_chunk`'s ballots pass a mask naming only the lanes that hold an element, while
    /// every lane calls them (narrowed rows, block rows past their registers).
    BallotPartialMask,
    /// In `select_chunk`, lanes past the row (or the candidates) return before the ballots.
    EarlyExitBeforeBallot,
    /// Lanes whose slots all lie past M return at the start; the row's reductions then name
    /// lanes that no longer run.
    IdleLanesExitEarly,
    /// `select_chunk`'s output position uses `(1 << (lane + 1)) - 1`: a shift by 32 in lane 31.
    PrefixMaskShift32,
    /// Off by one when cutting the band at `band_left` (`taken` and `select_chunk`).
    CutOffByOne,
    /// `place_row`'s output offset uses the input's row stride: `row_id * ld` (M for whole
    /// rows) instead of `row_id * out_ld` (k).
    OutputStrideM,
    /// `load_row` loads every slot without the `first + j < M` test: past the row.
    LoadPastM,
    /// `block_sum` reuses one half of its slots for every sum: a fast warp overwrites a slot a
    /// slow warp has not read yet.
    BlockSumOneHalf,
    /// `row_butterfly` uses offsets `LANES, LANES/2, ..., 2` instead of `LANES/2, ..., 1`:
    /// lanes `2j`, `2j+1` never meet.
    WrongShuffleOffset,
    /// `select_topk_lanes` broadcasts the row's totals from the row's first lane instead of
    /// its last (whose inclusive scan holds them).
    BroadcastFromWrongLane,
    /// The search's counts test `key > t` instead of `key >= t`.
    CountGreaterThan,
    /// No `__syncwarp()` between `narrow_row`'s copies and `take_candidates`.
    MissingSyncwarpAfterNarrow,
    /// No `__syncwarp(lanes)` between staging the selected indices and writing them out
    /// (`emit_staged`).
    MissingSyncwarpInEmit,
    /// `emit_staged` of a part-warp row syncs the whole warp (`__syncwarp()`) instead of the
    /// row's lanes.
    EmitFullWarpSync,
    /// `row_scan` of a part-warp row shuffles with width 32 instead of the row's lanes.
    PartRowScanWidth32,
    /// `row_sum` of a part-warp row uses the whole-warp `__reduce_add_sync(FULL_MASK)`.
    PartRowFullMaskReduce,
    /// A part-warp row's lane mask is `(1 << LANES) - 1`, not shifted to the row's lanes.
    SegmentMaskUnshifted,
    /// The rows of a warp share one stage (`s_stage + warp * cap`, not `+ row * cap`).
    RowsShareStage,
    /// Every narrowing row of a block copies its candidates to the start of the block's stage
    /// (one candidate buffer for all warps).
    WarpsShareCandidates,
    /// `row_id * M` computed in 32 bits (`place_row`'s `row_id * ld`, the sort's `row_id * m`):
    /// the row offset wraps from N·M = 2^32 on.
    RowOffset32Bit,
    /// `order_key` forgets to merge -0.0 into +0.0 (`v * sign` without `+ 0.0`).
    NegativeZeroKey,
    /// `block_sum` has no `__syncthreads()` between the warps' slot writes and their reads.
    BlockSumMissingBarrier,
    /// `block_range` reads the warps' slots before the `__syncthreads()`.
    BlockRangeBarrierMisplaced,
    /// The block narrowing hands its candidates to the first warp without the
    /// `__syncthreads()`.
    BlockNarrowMissingBarrier,
    /// A block row's selection past the registers reuses `s_chunk` without the barrier that
    /// waits for the previous chunk's readers.
    BlockTailMissingBarrier,
    /// A block row writes its cached keys over the load's staging without the
    /// `__syncthreads()` that waits for every warp's reads of it (`load_block_staged`).
    StagedLoadsMissingBarrier,
    /// `load_block_staged` reads its chunks back without the `__syncwarp()` after the other
    /// lanes' stores.
    StagedLoadsMissingSyncwarp,
    /// The block sort leaves out its barriers between steps: `bitonic_sort` (in shared or
    /// global memory) the `__syncthreads()` after each merge's first step,
    /// `block_bitonic_network` the one after each `shared_step`.
    BitonicMissingBarrier,
    /// The rank sort leaves out `sort_rank_row`'s cluster barrier: a block writes its results
    /// over positions another block of the row has not read yet.
    RankSortNoClusterSync,
    /// The merge sort leaves out `sort_merge_row`'s second cluster barrier: a block writes its
    /// results over a run another block of the row is still reading.
    MergeSortNoClusterSync,
    /// `sort_warp_row` loads all `LANES E` positions without the `j < k` test: past the row's
    /// results.
    SortWarpReadsPastK,
    /// `store_results` writes 16 bytes at a time without `row_aligned16`'s test: rows whose
    /// width in bytes is not a multiple of 16 start misaligned.
    SortStoresUnaligned,
    /// A narrowed row's count leaves out the warp's `__reduce_add_sync`: each lane returns its
    /// own count.
    CountWithoutRowSum,
    /// 16-byte loads chosen for rows of half as many elements as a load reads (`M % 2 == 0`
    /// instead of `M % 4 == 0` for f32, `M % 4` instead of `M % 8` for 16-bit): misaligned rows.
    Vec4UnalignedRows,
    /// `count_ge` of whole-warp rows sums through a shared counter with a plain `+=` and no
    /// barrier.
    SharedCounterNoBarrier,
    /// `emit_staged` skips its trailing `__syncwarp` / `__syncthreads` after the last chunk.
    /// *Equivalent*: nothing reuses the stage after it.
    SkipLastEmitSync,
    /// `place_row` steps a split row's chunks by the row's stride: chunk `c` at
    /// `r * ld + c * ld` instead of `r * ld + c * m`.
    ChunkOffsetUsesLd,
    /// `chunk_of` takes a chunk launch's rows row-major (chunk `row_id % chunks` of row
    /// `row_id / chunks`) where the launch lays them chunk-major: a chunk reads and writes
    /// another row's elements.
    ChunkRowMajor,
    /// `floor_of` and `raise_floor` find a chunk's row row-major (`row_id / chunks`) where the
    /// launch lays the chunks chunk-major: a chunk reads and raises another row's floor.
    FloorRowMajor,
    /// The launch over a split row's last chunks reads one element fewer than the chunk holds
    /// (`m = last - 1`): the row's last element is never a candidate.
    LastChunkDropsOne,
    /// `rtopk_split_gather` forgets the chunk's start: the index within the chunk is taken for
    /// the row's.
    SplitGatherNoChunkStart,
    /// A 16-bit row's count turns its threshold into a 16-bit value rounded to nearest instead
    /// of up (`ceil16`): a threshold between two 16-bit values may round below it.
    Ceil16Nearest,
    /// A 16-bit row's count in smallest mode counts NaN as largest mode does (`set.geu`, not
    /// `set.ge`): NaN, the lowest of all there, is counted above every threshold.
    Nan16CountedSmallest,
    /// `sort_wide`'s comparator (`wide_before`) breaks ties of keys by the higher index: equal
    /// values come out in descending index order.
    WideSortTiesHighIndex,
    /// `sort_wide` leaves out the `__syncwarp()` after each step of its network: a lane reads
    /// a result another lane has just swapped, with no barrier between.
    WideSortMissingSyncwarp,
    /// `cluster_sum` reads its block's slot without the cluster barrier: before every block of
    /// the cluster has added its count into it.
    ClusterSumMissingBarrier,
    /// `cluster_before` reads the counts of the blocks before without the cluster barrier.
    ClusterBeforeMissingBarrier,
    /// A cluster row's first reduction into another block's shared memory comes without the
    /// cluster barrier that makes sure every block has started (and set its slots).
    ClusterStartMissingBarrier,
    /// `choose_digit` holds the histogram's bins from the bottom up: the digit chosen is the
    /// row's `left`-th smallest key's, not its largest.
    RadixChooseFromBottom,
    /// `rtopk_radix_digits` leaves out `if (!last) return;`: every block of the row chooses
    /// the digit from the histogram as it stands, and clears it.
    RadixEveryBlockChooses,
    /// `count_candidates` skips the candidates at T as it does those below (`if (key <= T)
    /// continue;`), counting only those above: the ties at T left out, the row's results fall
    /// short of k.
    RadixCandidatesWithoutTies,
    /// `write_listed` counts the entries before each one in its shared list's order (`b < a`)
    /// instead of by index (`idx[b] < mine`): the list's order is the gather's atomics', so
    /// the results come out of index order, and the ties taken are not the first by index.
    RadixWriteInListOrder,
}

impl Mutant {
    /// Every mutant, in catalog order.
    pub const ALL: [Mutant; 52] = [
        Mutant::BallotPartialMask,
        Mutant::EarlyExitBeforeBallot,
        Mutant::IdleLanesExitEarly,
        Mutant::PrefixMaskShift32,
        Mutant::CutOffByOne,
        Mutant::OutputStrideM,
        Mutant::LoadPastM,
        Mutant::BlockSumOneHalf,
        Mutant::WrongShuffleOffset,
        Mutant::BroadcastFromWrongLane,
        Mutant::CountGreaterThan,
        Mutant::MissingSyncwarpAfterNarrow,
        Mutant::MissingSyncwarpInEmit,
        Mutant::EmitFullWarpSync,
        Mutant::PartRowScanWidth32,
        Mutant::PartRowFullMaskReduce,
        Mutant::SegmentMaskUnshifted,
        Mutant::RowsShareStage,
        Mutant::WarpsShareCandidates,
        Mutant::RowOffset32Bit,
        Mutant::NegativeZeroKey,
        Mutant::BlockSumMissingBarrier,
        Mutant::BlockRangeBarrierMisplaced,
        Mutant::BlockNarrowMissingBarrier,
        Mutant::BlockTailMissingBarrier,
        Mutant::StagedLoadsMissingBarrier,
        Mutant::StagedLoadsMissingSyncwarp,
        Mutant::BitonicMissingBarrier,
        Mutant::RankSortNoClusterSync,
        Mutant::MergeSortNoClusterSync,
        Mutant::SortWarpReadsPastK,
        Mutant::SortStoresUnaligned,
        Mutant::CountWithoutRowSum,
        Mutant::Vec4UnalignedRows,
        Mutant::SharedCounterNoBarrier,
        Mutant::SkipLastEmitSync,
        Mutant::ChunkOffsetUsesLd,
        Mutant::ChunkRowMajor,
        Mutant::FloorRowMajor,
        Mutant::LastChunkDropsOne,
        Mutant::SplitGatherNoChunkStart,
        Mutant::Ceil16Nearest,
        Mutant::Nan16CountedSmallest,
        Mutant::WideSortTiesHighIndex,
        Mutant::WideSortMissingSyncwarp,
        Mutant::ClusterSumMissingBarrier,
        Mutant::ClusterBeforeMissingBarrier,
        Mutant::ClusterStartMissingBarrier,
        Mutant::RadixChooseFromBottom,
        Mutant::RadixEveryBlockChooses,
        Mutant::RadixCandidatesWithoutTies,
        Mutant::RadixWriteInListOrder,
    ];

    /// A short kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            Mutant::BallotPartialMask => "ballot-partial-mask",
            Mutant::EarlyExitBeforeBallot => "early-exit-before-ballot",
            Mutant::IdleLanesExitEarly => "idle-lanes-exit-early",
            Mutant::PrefixMaskShift32 => "prefix-mask-shift-32",
            Mutant::CutOffByOne => "cut-off-by-one",
            Mutant::OutputStrideM => "output-stride-m",
            Mutant::LoadPastM => "load-past-m",
            Mutant::BlockSumOneHalf => "block-sum-one-half",
            Mutant::WrongShuffleOffset => "wrong-shuffle-offset",
            Mutant::BroadcastFromWrongLane => "broadcast-from-wrong-lane",
            Mutant::CountGreaterThan => "count-greater-than",
            Mutant::MissingSyncwarpAfterNarrow => "missing-syncwarp-after-narrow",
            Mutant::MissingSyncwarpInEmit => "missing-syncwarp-in-emit",
            Mutant::EmitFullWarpSync => "emit-full-warp-sync",
            Mutant::PartRowScanWidth32 => "part-row-scan-width-32",
            Mutant::PartRowFullMaskReduce => "part-row-full-mask-reduce",
            Mutant::SegmentMaskUnshifted => "segment-mask-unshifted",
            Mutant::RowsShareStage => "rows-share-stage",
            Mutant::WarpsShareCandidates => "warps-share-candidates",
            Mutant::RowOffset32Bit => "row-offset-32-bit",
            Mutant::NegativeZeroKey => "negative-zero-key",
            Mutant::BlockSumMissingBarrier => "block-sum-missing-barrier",
            Mutant::BlockRangeBarrierMisplaced => "block-range-barrier-misplaced",
            Mutant::BlockNarrowMissingBarrier => "block-narrow-missing-barrier",
            Mutant::BlockTailMissingBarrier => "block-tail-missing-barrier",
            Mutant::StagedLoadsMissingBarrier => "staged-loads-missing-barrier",
            Mutant::StagedLoadsMissingSyncwarp => "staged-loads-missing-syncwarp",
            Mutant::BitonicMissingBarrier => "bitonic-missing-barrier",
            Mutant::RankSortNoClusterSync => "rank-sort-no-cluster-sync",
            Mutant::MergeSortNoClusterSync => "merge-sort-no-cluster-sync",
            Mutant::SortWarpReadsPastK => "sort-warp-reads-past-k",
            Mutant::SortStoresUnaligned => "sort-stores-unaligned",
            Mutant::CountWithoutRowSum => "count-without-row-sum",
            Mutant::Vec4UnalignedRows => "vec4-unaligned-rows",
            Mutant::SharedCounterNoBarrier => "shared-counter-no-barrier",
            Mutant::SkipLastEmitSync => "skip-last-emit-sync",
            Mutant::ChunkOffsetUsesLd => "chunk-offset-uses-ld",
            Mutant::ChunkRowMajor => "chunk-row-major",
            Mutant::FloorRowMajor => "floor-row-major",
            Mutant::LastChunkDropsOne => "last-chunk-drops-one",
            Mutant::SplitGatherNoChunkStart => "split-gather-no-chunk-start",
            Mutant::Ceil16Nearest => "ceil16-nearest",
            Mutant::Nan16CountedSmallest => "nan16-counted-smallest",
            Mutant::WideSortTiesHighIndex => "wide-sort-ties-high-index",
            Mutant::WideSortMissingSyncwarp => "wide-sort-missing-syncwarp",
            Mutant::ClusterSumMissingBarrier => "cluster-sum-missing-barrier",
            Mutant::ClusterBeforeMissingBarrier => "cluster-before-missing-barrier",
            Mutant::ClusterStartMissingBarrier => "cluster-start-missing-barrier",
            Mutant::RadixChooseFromBottom => "radix-choose-from-bottom",
            Mutant::RadixEveryBlockChooses => "radix-every-block-chooses",
            Mutant::RadixCandidatesWithoutTies => "radix-candidates-without-ties",
            Mutant::RadixWriteInListOrder => "radix-write-in-list-order",
        }
    }

    /// The mutant named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// `true` for a mutant that cannot change any execution of this kernel (so it must *not*
    /// be reported — the simulator has no false positive on it).
    pub fn is_equivalent(self) -> bool {
        self == Mutant::SkipLastEmitSync
    }

    /// The launch families the bug lives in (for the catalog's table).
    pub fn families(self) -> &'static str {
        match self {
            Mutant::BallotPartialMask
            | Mutant::EarlyExitBeforeBallot
            | Mutant::PrefixMaskShift32 => "narrowed rows, block rows",
            Mutant::IdleLanesExitEarly | Mutant::LoadPastM | Mutant::Vec4UnalignedRows => {
                "quarter, half, warp rows"
            }
            Mutant::CutOffByOne
            | Mutant::OutputStrideM
            | Mutant::CountGreaterThan
            | Mutant::RowOffset32Bit
            | Mutant::NegativeZeroKey
            | Mutant::SkipLastEmitSync => "all",
            Mutant::WrongShuffleOffset
            | Mutant::EmitFullWarpSync
            | Mutant::PartRowScanWidth32
            | Mutant::PartRowFullMaskReduce
            | Mutant::SegmentMaskUnshifted
            | Mutant::RowsShareStage => "quarter, half rows",
            Mutant::BroadcastFromWrongLane | Mutant::MissingSyncwarpInEmit => {
                "quarter, half, warp rows"
            }
            Mutant::MissingSyncwarpAfterNarrow
            | Mutant::WarpsShareCandidates
            | Mutant::SharedCounterNoBarrier => "warp rows",
            Mutant::CountWithoutRowSum => "narrowed rows",
            Mutant::BlockSumOneHalf
            | Mutant::BlockSumMissingBarrier
            | Mutant::BlockRangeBarrierMisplaced
            | Mutant::BlockTailMissingBarrier
            | Mutant::StagedLoadsMissingBarrier
            | Mutant::StagedLoadsMissingSyncwarp => "block rows",
            Mutant::BlockNarrowMissingBarrier => "block rows (narrowing)",
            Mutant::BitonicMissingBarrier => "block sort",
            Mutant::RankSortNoClusterSync => "rank sort",
            Mutant::MergeSortNoClusterSync => "merge sort",
            Mutant::SortWarpReadsPastK | Mutant::SortStoresUnaligned => "warp sort",
            Mutant::ChunkOffsetUsesLd
            | Mutant::ChunkRowMajor
            | Mutant::FloorRowMajor
            | Mutant::LastChunkDropsOne
            | Mutant::SplitGatherNoChunkStart => "split rows",
            Mutant::Ceil16Nearest | Mutant::Nan16CountedSmallest => "16-bit warp rows",
            Mutant::WideSortTiesHighIndex | Mutant::WideSortMissingSyncwarp => "wide rows (sorted)",
            Mutant::ClusterSumMissingBarrier
            | Mutant::ClusterBeforeMissingBarrier
            | Mutant::ClusterStartMissingBarrier => "cluster rows",
            Mutant::RadixChooseFromBottom
            | Mutant::RadixEveryBlockChooses
            | Mutant::RadixCandidatesWithoutTies
            | Mutant::RadixWriteInListOrder => "radix rows",
        }
    }
}
