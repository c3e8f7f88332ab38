//! The kernels' table: the constants the launcher, the CUDA kernels and the simulator share,
//! the warp-row instantiations (keys per lane, warps per block, launch bounds), the launch
//! families and their entry points ([`Unit`]). rtopk-cuda generates each unit's source from
//! these tables; the plan ([`crate::plan()`]) and warp-sim read the same ones.

use std::fmt;

use serde::{Serialize, Serializer};

/// The elements per lane of the warp rows whose unit has a floor entry
/// ([`Unit::has_floor_entry`]): a split's narrowest chunks (`crate::split::MIN_CHUNK`).
pub const FLOOR_EPL: usize = 64;

/// Most candidates a whole-warp row narrows to (`narrow_row`): 4 per lane; with their indices
/// they fill the row's share of the selection stage (256 words with 8 warps per block).
pub const CAND_CAP: usize = 128;
/// Keys per lane of the one warp that goes on with a narrowed block row's candidates.
pub const BLOCK_CAND_KEYS: usize = 16;
/// Most candidates a block row narrows to: [`BLOCK_CAND_KEYS`] per lane of one warp; with
/// their indices they fill the block's selection stage.
pub const BLOCK_CAND_CAP: usize = 32 * BLOCK_CAND_KEYS;
/// Keys per thread the block kernels keep in registers: shorter rows get fewer threads per
/// block, so more rows are in flight per SM; rows up to 32768 wide are held in registers
/// entirely.
pub const BLOCK_EPL: usize = 32;
/// Selected indices staged per chunk before they are written: per block of the warp-row
/// kernels (split between its rows).
pub const WARP_STAGE: usize = 2048;
/// Selected indices staged per chunk of a block row (where a row narrows, the stage holds its
/// candidates and their indices instead).
pub const BLOCK_STAGE: usize = 1024;
/// Static shared memory of the block kernels, in bytes: the block sums' and the range's slots
/// (128 words), the selection's chunk counts (64) and the stage. The launch plan gives the
/// rest of the device's opt-in limit to the row's keys; the loader checks the figure against
/// the compiled kernel's.
pub const BLOCK_STATIC_SHARED: usize = 4 * (128 + 64 + BLOCK_STAGE);

/// Dynamic shared memory a block row's warp stages its 16-byte loads through (its 32 threads'
/// `BLOCK_EPL` f32 keys, 4 KB): the kernel's `load_block_staged` reads each warp's span with
/// loads of 512 consecutive bytes and hands the chunks to their owners through it
/// (docs/kernel.md, "Stage 1 — load"). The cached keys use the same memory after the load.
pub const BLOCK_LOAD_STAGE_WARP: usize = 32 * BLOCK_EPL * 4;

/// The type the kernels write indices in (`idx_t` in `kernels/`): 32-bit by default (the
/// command line widens them on the host), 64-bit for frameworks whose index type it is
/// (torch.topk's `int64`), written by the kernel itself rather than by a conversion pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexType {
    /// `unsigned int`.
    #[default]
    U32,
    /// `long long` (int64).
    I64,
}

impl IndexType {
    /// The C type `idx_t` stands for.
    pub fn c_type(self) -> &'static str {
        match self {
            IndexType::U32 => "unsigned int",
            IndexType::I64 => "long long",
        }
    }

    /// The unit name's suffix.
    pub fn suffix(self) -> &'static str {
        match self {
            IndexType::U32 => "",
            IndexType::I64 => "_i64",
        }
    }

    /// Bytes per index.
    pub fn bytes(self) -> usize {
        match self {
            IndexType::U32 => 4,
            IndexType::I64 => 8,
        }
    }
}

/// The element type a unit reads and writes values in (`elem_t` in `kernels/`; docs/kernel.md,
/// "16-bit rows" and "Integer rows"): f32; IEEE binary16 / bfloat16, whose warp rows hold the
/// elements packed two per register; or an integer of at most 32 bits, held as one 32-bit
/// key per element (the integer's value shifted, docs/contract.md §3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    /// `float`.
    #[default]
    F32,
    /// `__half` (IEEE binary16).
    F16,
    /// `__nv_bfloat16`.
    Bf16,
    /// `signed char` (int8).
    I8,
    /// `unsigned char` (uint8).
    U8,
    /// `short` (int16).
    I16,
    /// `int` (int32).
    I32,
    /// `double` (IEEE binary64): 64-bit keys, the wide rows only ([`Family::WideRows`]).
    F64,
    /// `long long` (int64): 64-bit keys, the wide rows only ([`Family::WideRows`]).
    I64,
}

impl ElemType {
    /// The seven, in the order of [`Unit::all`].
    pub const ALL: [ElemType; 7] = [
        ElemType::F32,
        ElemType::F16,
        ElemType::Bf16,
        ElemType::I8,
        ElemType::U8,
        ElemType::I16,
        ElemType::I32,
    ];

    /// The 64-bit types: one 64-bit key per element, held by the wide rows
    /// ([`Family::WideRows`]) alone, and not among [`ElemType::ALL`] (the 32-bit-key units').
    pub const WIDE: [ElemType; 2] = [ElemType::F64, ElemType::I64];

    /// The float types, the ones a grouped selection (docs/contract.md §8) takes.
    pub const FLOATS: [ElemType; 3] = [ElemType::F32, ElemType::F16, ElemType::Bf16];

    /// numpy's and torch's name of the type (`float32`, `bfloat16`, `int8`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ElemType::F32 => "float32",
            ElemType::F16 => "float16",
            ElemType::Bf16 => "bfloat16",
            ElemType::I8 => "int8",
            ElemType::U8 => "uint8",
            ElemType::I16 => "int16",
            ElemType::I32 => "int32",
            ElemType::F64 => "float64",
            ElemType::I64 => "int64",
        }
    }

    /// The type called `name` ([`ElemType::name`]), if the kernels take it.
    pub fn from_name(name: &str) -> Option<ElemType> {
        ElemType::ALL.into_iter().chain(ElemType::WIDE).find(|e| e.name() == name)
    }

    /// The unit name's suffix.
    pub fn suffix(self) -> &'static str {
        match self {
            ElemType::F32 => "",
            ElemType::F16 => "_f16",
            ElemType::Bf16 => "_bf16",
            ElemType::I8 => "_i8",
            ElemType::U8 => "_u8",
            ElemType::I16 => "_i16",
            ElemType::I32 => "_i32",
            ElemType::F64 => "_f64",
            ElemType::I64 => "_i64",
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> usize {
        match self {
            ElemType::I8 | ElemType::U8 => 1,
            ElemType::F16 | ElemType::Bf16 | ElemType::I16 => 2,
            ElemType::F32 | ElemType::I32 => 4,
            ElemType::F64 | ElemType::I64 => 8,
        }
    }

    /// A 16-bit float, whose warp rows keep the elements packed two per register.
    pub fn packed16(self) -> bool {
        matches!(self, ElemType::F16 | ElemType::Bf16)
    }

    /// An integer type: no value phase, the search runs on its keys (docs/contract.md §3).
    pub fn integer(self) -> bool {
        matches!(self, ElemType::I8 | ElemType::U8 | ElemType::I16 | ElemType::I32 | ElemType::I64)
    }

    /// A 64-bit type ([`ElemType::WIDE`]): its rows run as wide rows.
    pub fn wide(self) -> bool {
        matches!(self, ElemType::F64 | ElemType::I64)
    }

    /// Elements per 32-bit register of a warp row: two for a 16-bit float (the 16-bit kernels
    /// keep them packed in pairs), else one (an f32's key, or an integer's 32-bit key).
    pub fn per_word(self) -> usize {
        if self.packed16() { 2 } else { 1 }
    }

    fn ordinal(self) -> usize {
        match self {
            ElemType::F32 => 0,
            ElemType::F16 => 1,
            ElemType::Bf16 => 2,
            ElemType::I8 => 3,
            ElemType::U8 => 4,
            ElemType::I16 => 5,
            ElemType::I32 => 6,
            ElemType::F64 => 7,
            ElemType::I64 => 8,
        }
    }
}

/// One instantiation of the warp-row template (`rtopk_warp_rows_impl<EPL, LANES, WARPS>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowWidth {
    /// Registers per lane that hold the row: `epl` keys of an f32 row, `2 epl` elements of a
    /// 16-bit row (two per register, [`ElemType::per_word`]); the instantiation holds rows of
    /// up to `lanes * epl * per_word`.
    pub epl: usize,
    /// Warps per block.
    pub warps: u32,
    /// The launch bound's blocks per SM: registers are capped so that that many blocks fit an
    /// SM (65536 registers).
    pub min_blocks: u32,
}

const fn width(epl: usize, warps: u32, min_blocks: u32) -> RowWidth {
    RowWidth { epl, warps, min_blocks }
}

impl RowWidth {
    /// The launch bound's blocks per SM of a whole-warp row's ragged twin
    /// (`rtopk_warp_rows_ragged_<EPL>`): one fewer than the plain unit's from 12 to 24 keys per
    /// lane, where the row's own width, k and place take registers that the plain bound leaves
    /// none for (ptxas, sm_90, f32 rows: 136 to 432 bytes of spill loads under the plain bound,
    /// at most 68 under this one). On an H200 the twin's kernel took 0.87× its time at 24 keys
    /// and 0.94× at 16; at 32 keys (144 bytes) it took 1.03×, so 28 and 32 keep the plain bound
    /// (docs/performance.md, "The ragged rows' place").
    pub const fn ragged_min_blocks(&self) -> u32 {
        if self.epl >= 12 && self.epl <= 24 && self.min_blocks > 1 {
            self.min_blocks - 1
        } else {
            self.min_blocks
        }
    }
}

/// `rtopk_warp_rows_<EPL>`, one row per warp. Blocks of 8 warps up to 32 keys: 8 blocks per SM
/// (full occupancy) up to 8 keys per lane, fewer for wider rows (5 at 24 keys, where 47
/// registers suffice: faster at M = 768 than 4). Rows of 1025 to 3072 (48 to 96 keys, taken
/// when k <= M / 8) in blocks of 4 or 2 warps, so that several blocks still fit an SM at the
/// register counts these need. A few words spill in some (the part-warp kernels up to 16 keys,
/// the 64- and 96-key warp kernels).
pub const WARP_ROWS: [RowWidth; 13] = [
    width(1, 8, 8),
    width(2, 8, 8),
    width(4, 8, 8),
    width(8, 8, 8),
    width(12, 8, 6),
    width(16, 8, 6),
    width(20, 8, 5),
    width(24, 8, 5),
    width(28, 8, 4),
    width(32, 8, 4),
    width(48, 4, 6),
    width(64, 4, 5),
    width(96, 2, 7),
];

/// `rtopk_half_rows_<EPL>` (two rows per warp) and `rtopk_quarter_rows_<EPL>` (four): up to
/// 32 keys per lane, blocks of 8 warps.
pub const PART_ROWS: [RowWidth; 10] = [
    width(1, 8, 8),
    width(2, 8, 8),
    width(4, 8, 8),
    width(8, 8, 8),
    width(12, 8, 6),
    width(16, 8, 6),
    width(20, 8, 5),
    width(24, 8, 4),
    width(28, 8, 4),
    width(32, 8, 4),
];

/// Positions of the warp sorts (`rtopk_sort_warp_rows_<W>`): a row of k <= W results is
/// sorted in registers by the lanes [`sort_warp_shape`] gives it.
pub const SORT_WARP_WIDTHS: [usize; 8] = [8, 16, 32, 64, 128, 256, 512, 1024];

/// `(lanes, results per lane)` of the warp sort of `width` positions: 8 lanes up to 128
/// positions, then 16 lanes of 16, 32 of 16 and 32 of 32. Fewer lanes put more of the
/// network's steps in a lane's own registers (its partners closer than the lane's results),
/// which cost no shuffle: on an H200 a stand-alone probe sorted 2^20 rows of 128 results in
/// 1.08 ms on 8 lanes of 16 against 1.27 ms on 32 lanes of 4, and rows of 16 in 0.09 ms on 8
/// lanes against 0.29 ms on a warp padded to 32 positions (the engine of the simulator runs
/// part-warp tasks of 8 lanes or more; results/cuda/2026-11-30-warp-sorts-h200/probe/).
pub const fn sort_warp_shape(width: usize) -> (usize, usize) {
    let lanes = if width <= 128 {
        8
    } else if width <= 256 {
        16
    } else {
        32
    };
    (lanes, width / lanes)
}

/// Most positions a warp sort's network is unrolled for (kernels/sort.cuh, `bitonic_network`):
/// the widest, 1024, runs its steps in loops, whose code stays small.
pub const SORT_UNROLLED_MAX: usize = 512;
/// Warps per block of the warp sorts (their launch bound).
pub const SORT_WARPS: u32 = 8;
/// `rtopk_block_rows`: blocks of up to 1024 threads, one per SM at that size.
pub const BLOCK_ROWS_BOUNDS: (u32, u32) = (1024, 1);
/// `rtopk_cluster_rows`: blocks of up to 1024 threads, one per SM at that size.
pub const CLUSTER_ROWS_BOUNDS: (u32, u32) = (1024, 1);
/// `rtopk_block_rows_narrow`: blocks of at most 256 threads (rows of at most 8192 in
/// registers), 4 per SM.
pub const BLOCK_ROWS_NARROW_BOUNDS: (u32, u32) = (256, 4);

/// The grouped selection's instantiations (docs/contract.md §8): experts per lane, one warp
/// per row of up to `32 * width` experts.
pub const GROUPED_WIDTHS: [usize; 5] = [2, 4, 8, 16, 32];

/// The pick rows' instantiations (`rtopk_pick_rows_<W>`, crate::pick): the widest row each
/// holds, on [`Unit::pick_lanes`] lanes of `W / lanes` elements each.
pub const PICK_WIDTHS: [usize; 7] = [8, 16, 32, 64, 128, 256, 512];
/// Lanes per row of `rtopk_pick_rows_<W>` past [`pick_narrow_max_row`]: four rows per warp,
/// whose k rounds each cost a pass over the lane's slots and a reduction of three shuffles.
pub const PICK_LANES: usize = 8;
/// Lanes per row of `rtopk_pick_rows_<W>` up to [`pick_narrow_max_row`]: eight rows per warp,
/// a reduction of two shuffles a round, two picks a lane for k > 4.
pub const PICK_NARROW_LANES: usize = 4;

/// Widest `rtopk_pick_rows_<W>` of `elem` on [`PICK_NARROW_LANES`] lanes a row (64 for f16
/// and bf16, 16 for f32). On an H100, with sorted output and the same loads, four lanes a row
/// took 0.64-0.78 of eight lanes' time on 16-bit rows of 8 to 32 at every k they serve (k >= 3
/// at 8 and 16), 0.95-0.97 at 64, 1.08-1.09 at 128 and 1.14-1.24 at 256; on f32 rows 0.71-0.81
/// at 8 and 16, 0.94-1.06 at 32 and 0.98-1.13 at 64 (results/cuda/2026-12-05-pick-groups-h100,
/// call b: p7 over p6). Only 64 rows of 256 took 1.28x on four lanes (less in flight).
pub fn pick_narrow_max_row(elem: ElemType) -> usize {
    if elem == ElemType::F32 { 16 } else { 64 }
}
/// The one-lane pick rows' instantiations (`rtopk_pick_lane_rows_<W>`, crate::pick): one lane
/// holds a row of up to `W`, 32 rows per warp, so that a round is a pass over the lane's slots
/// alone and a warp's instructions serve 32 rows where they served four.
pub const PICK_LANE_WIDTHS: [usize; 2] = [8, 16];

/// Warps per block of the pick units.
pub const PICK_WARPS: u32 = 8;

/// The wide rows' instantiations (`rtopk_wide_rows_<EPL>`, crate::wide): 64-bit keys per lane
/// in registers, one warp per row, so rows of up to `32 * epl` held whole (past the widest, the
/// rest re-keyed from the input on each pass). Two registers a key: 8 keys (rows of 256) take
/// 16, 32 keys (rows of 1024) 64.
pub const WIDE_WIDTHS: [usize; 4] = [8, 16, 24, 32];

/// A launch family: the kernels that hold a row the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// One row per warp, `rtopk_warp_rows_<EPL>`.
    WarpRows,
    /// Two rows per warp (16 lanes each), `rtopk_half_rows_<EPL>`.
    HalfRows,
    /// Four rows per warp (8 lanes each), `rtopk_quarter_rows_<EPL>`.
    QuarterRows,
    /// One block per row, `rtopk_block_rows`.
    BlockRows,
    /// One block per row that narrows to its candidates, `rtopk_block_rows_narrow`.
    BlockRowsNarrow,
    /// The sorted output, 8, 16 or 32 lanes per row, `rtopk_sort_warp_rows_<W>`.
    SortWarpRows,
    /// The sorted output, one block per row, `rtopk_sort_rows`.
    SortRows,
    /// A split row's last step, `rtopk_split_gather`: positions among the row's chunk results
    /// back to the row's indices.
    SplitGather,
    /// `read_bandwidth_probe`, `spin_ahead`, `fill_normal` and `round_to16` (benchmarks and
    /// timing), and `per_row_words` (a caller's int64 per-row arrays as the kernels' words).
    Utilities,
    /// Each row's threshold off its values output (docs/contract.md §5),
    /// `rtopk_row_threshold`, one warp per row.
    RowThreshold,
    /// Grouped selection (docs/contract.md §8), `rtopk_grouped_rows_<EPL>`, one warp per row
    /// of up to `32 * EPL` experts ([`GROUPED_WIDTHS`]): float rows only.
    GroupedRows,
    /// The exact top k of short rows in k rounds of the row's best element (crate::pick),
    /// `rtopk_pick_rows_<W>`, [`PICK_LANES`] lanes per row of up to `W` ([`PICK_WIDTHS`]), or
    /// `rtopk_pick_lane_rows_<W>`, one lane per row ([`PICK_LANE_WIDTHS`]): float rows,
    /// k <= [`crate::pick::PICK_MAX_K`], no iteration counts.
    PickRows,
    /// Rows of 64-bit elements (f64, i64: [`ElemType::WIDE`]), `rtopk_wide_rows_<EPL>`, one
    /// warp per row with `EPL` 64-bit keys per lane ([`WIDE_WIDTHS`], crate::wide): the whole
    /// search, selection and sorted output.
    WideRows,
    /// One thread-block cluster per row (compute capability 9.0 and newer; crate::cluster),
    /// `rtopk_cluster_rows`: each block holds [`BLOCK_EPL`] keys a thread of its part of the
    /// row in registers, and the counts meet in distributed shared memory.
    ClusterRows,
    /// The radix select (crate::radix), `rtopk_radix_digits`, `rtopk_radix_count` and
    /// `rtopk_radix_write`: f32, f16 and bf16 rows, several blocks each.
    RadixRows,
    /// Cluster rows that narrow to their candidates in block 0 (crate::cluster,
    /// `rtopk_cluster_rows_narrow`): f32 rows, exact, small k.
    ClusterRowsNarrow,
}

impl Family {
    /// Whether the family's kernels select the top k of rows (the warp-row and block-row
    /// families; not the sorts, the gather or the utilities).
    pub fn selects(self) -> bool {
        matches!(
            self,
            Family::WarpRows
                | Family::HalfRows
                | Family::QuarterRows
                | Family::BlockRows
                | Family::BlockRowsNarrow
        )
    }

    /// Lanes per row of the warp-row families and the wide rows (a pick unit's are its own:
    /// [`Unit::pick_lanes`], `Plan::row_lanes`).
    pub fn lanes(self) -> Option<usize> {
        match self {
            Family::WarpRows => Some(32),
            Family::HalfRows => Some(16),
            Family::QuarterRows => Some(8),
            Family::WideRows => Some(32),
            _ => None,
        }
    }

    /// The instantiations of a warp-row family.
    pub fn widths(self) -> &'static [RowWidth] {
        match self {
            Family::WarpRows => &WARP_ROWS,
            Family::HalfRows | Family::QuarterRows => &PART_ROWS,
            _ => &[],
        }
    }

    /// The entry points' name prefix (`rtopk_warp_rows` for `rtopk_warp_rows_<EPL>`).
    pub fn prefix(self) -> &'static str {
        match self {
            Family::WarpRows => "rtopk_warp_rows",
            Family::HalfRows => "rtopk_half_rows",
            Family::QuarterRows => "rtopk_quarter_rows",
            Family::BlockRows => "rtopk_block_rows",
            Family::BlockRowsNarrow => "rtopk_block_rows_narrow",
            Family::SortWarpRows => "rtopk_sort_warp_rows",
            Family::SortRows => "rtopk_sort_rows",
            Family::SplitGather => "rtopk_split_gather",
            Family::Utilities => "utilities",
            Family::RowThreshold => "rtopk_row_threshold",
            Family::GroupedRows => "rtopk_grouped_rows",
            Family::PickRows => "rtopk_pick_rows",
            Family::WideRows => "rtopk_wide_rows",
            Family::ClusterRows => "rtopk_cluster_rows",
            Family::RadixRows => "rtopk_radix",
            Family::ClusterRowsNarrow => "rtopk_cluster_rows_narrow",
        }
    }
}

/// The utilities' entry points, in the order `CudaTopK` looks them up.
pub const UTILITIES: [&str; 5] =
    ["read_bandwidth_probe", "spin_ahead", "fill_normal", "round_to16", "per_row_words"];

/// The radix select's entry points (crate::radix), in the order of its steps, then their
/// ragged twins in the same order (rows of their own length and k: the steps whose
/// [`crate::program::Radix::rows`] are some).
pub const RADIX_ENTRIES: [&str; 8] = [
    "rtopk_radix_sample",
    "rtopk_radix_digits",
    "rtopk_radix_count",
    "rtopk_radix_write",
    "rtopk_radix_sample_ragged",
    "rtopk_radix_digits_ragged",
    "rtopk_radix_count_ragged",
    "rtopk_radix_write_ragged",
];

/// What is compiled and loaded as one module: one entry point (a family and, for the warp-row
/// families and the warp sorts, its width: keys per lane or positions per row; and the type it
/// writes indices in), or the utilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unit {
    family: Family,
    width: usize,
    index: IndexType,
    elem: ElemType,
    /// Rows of their own length and k (docs/contract.md §5): a twin of a top-k unit compiled
    /// with its kernels' `RAGGED` flag, so that plain launches keep the code without it.
    ragged: bool,
    /// A pick unit of one lane per row ([`PICK_LANE_WIDTHS`]); false for every other unit.
    one_lane: bool,
}

impl Unit {
    /// The warp-row family's instantiation `which` (an index into [`Family::widths`]).
    pub fn row(family: Family, which: usize) -> Self {
        Self {
            family,
            width: family.widths()[which].epl,
            index: IndexType::U32,
            elem: ElemType::F32,
            ragged: false,
            one_lane: false,
        }
    }

    /// A family of a single entry point.
    pub fn single(family: Family) -> Self {
        Self {
            family,
            width: 0,
            index: IndexType::U32,
            elem: ElemType::F32,
            ragged: false,
            one_lane: false,
        }
    }

    /// The warp sort of `width` positions ([`SORT_WARP_WIDTHS`]).
    pub fn sort_warp(width: usize) -> Self {
        Self {
            family: Family::SortWarpRows,
            width,
            index: IndexType::U32,
            elem: ElemType::F32,
            ragged: false,
            one_lane: false,
        }
    }

    /// The threshold unit of rows of `elem` (its indices' type does not matter: it reads
    /// none).
    pub fn threshold(elem: ElemType) -> Self {
        Self { elem, ..Self::single(Family::RowThreshold) }
    }

    /// The radix-select unit of rows of `elem` (a float type), writing 32-bit indices
    /// ([`Unit::with_index`]).
    pub fn radix(elem: ElemType) -> Self {
        Self { elem, ..Self::single(Family::RadixRows) }
    }

    /// The grouped-selection unit of `epl` experts per lane (one of [`GROUPED_WIDTHS`]) on
    /// rows of `elem` (a float type), writing indices as `index`.
    pub fn grouped(elem: ElemType, index: IndexType, epl: usize) -> Self {
        Self { elem, index, width: epl, ..Self::single(Family::GroupedRows) }
    }

    /// The pick-rows unit of rows up to `width` (one of [`PICK_WIDTHS`], [`PICK_LANES`] lanes
    /// a row), writing 32-bit indices (others: [`Unit::with_index`]; its element type:
    /// [`Unit::with_elem`]).
    pub fn pick(width: usize) -> Self {
        Self { width, ..Self::single(Family::PickRows) }
    }

    /// The one-lane pick-rows unit of rows up to `width` (one of [`PICK_LANE_WIDTHS`]).
    pub fn pick_one_lane(width: usize) -> Self {
        Self { one_lane: true, ..Self::pick(width) }
    }

    /// Lanes per row of a pick unit: one, [`PICK_NARROW_LANES`] up to
    /// [`pick_narrow_max_row`] of its element type, else [`PICK_LANES`].
    pub fn pick_lanes(self) -> usize {
        if self.one_lane {
            1
        } else if self.width <= pick_narrow_max_row(self.elem) {
            PICK_NARROW_LANES
        } else {
            PICK_LANES
        }
    }

    /// The wide-rows unit of `epl` keys per lane (one of [`WIDE_WIDTHS`]) on rows of `elem`
    /// (a 64-bit type), writing indices as `index`.
    pub fn wide(elem: ElemType, index: IndexType, epl: usize) -> Self {
        Self { elem, index, width: epl, ..Self::single(Family::WideRows) }
    }

    /// This unit's twin for rows of their own length and k (docs/contract.md §5) where it is
    /// a top-k unit; `ragged == false`, or a unit of another family: itself (the sorts and
    /// the gather read the per-row arrays where given, at a cost no plain launch notices).
    pub fn with_ragged(self, ragged: bool) -> Self {
        let twins = self.family.selects()
            || matches!(
                self.family,
                Family::WideRows | Family::ClusterRows | Family::ClusterRowsNarrow
            );
        Self { ragged: ragged && twins, ..self }
    }

    /// Whether this is a ragged twin ([`Unit::with_ragged`]).
    pub fn is_ragged(self) -> bool {
        self.ragged
    }

    /// This unit writing indices as `index` (the utilities write none).
    pub fn with_index(self, index: IndexType) -> Self {
        match self.family {
            Family::Utilities | Family::RowThreshold => self,
            _ => Self { index, ..self },
        }
    }

    /// The type the unit writes indices in.
    pub fn index_type(self) -> IndexType {
        self.index
    }

    /// This unit reading and writing values as `elem` (the utilities and the gather touch no
    /// values of the input's type).
    pub fn with_elem(self, elem: ElemType) -> Self {
        match self.family {
            Family::Utilities | Family::SplitGather => self,
            _ => Self { elem, ..self },
        }
    }

    /// The type the unit reads and writes values in.
    pub fn elem_type(self) -> ElemType {
        self.elem
    }

    /// Every unit, in a fixed order (the order of [`Unit::index`]): for each element type and
    /// then each index type, the units of one (f32 and 32-bit indices: the gather too), then
    /// the utilities, then the ragged twins of the top-k units in the same order, then the
    /// threshold units of every element type, then the grouped-selection units of the float
    /// types, each for both index types, then the pick-rows units likewise.
    pub fn all() -> Vec<Unit> {
        let base = Self::all_u32();
        let mut out = Vec::with_capacity(UNIT_COUNT);
        let sets =
            || ElemType::ALL.into_iter().flat_map(|e| [(e, IndexType::U32), (e, IndexType::I64)]);
        for (elem, index) in sets() {
            out.extend(base.iter().filter(|u| u.family != Family::Utilities).map(|u| Unit {
                index,
                elem,
                ..*u
            }));
        }
        out.push(Unit::single(Family::Utilities));
        for (elem, index) in sets() {
            out.extend(base.iter().filter(|u| u.family.selects()).map(|u| Unit {
                index,
                elem,
                ragged: true,
                ..*u
            }));
        }
        out.extend(ElemType::ALL.map(Unit::threshold));
        for elem in ElemType::FLOATS {
            for index in [IndexType::U32, IndexType::I64] {
                out.extend(GROUPED_WIDTHS.map(|epl| Unit::grouped(elem, index, epl)));
            }
        }
        for elem in ElemType::FLOATS {
            for index in [IndexType::U32, IndexType::I64] {
                out.extend(PICK_WIDTHS.map(|w| Unit { elem, index, ..Unit::pick(w) }));
                out.extend(PICK_LANE_WIDTHS.map(|w| Unit {
                    elem,
                    index,
                    ..Unit::pick_one_lane(w)
                }));
            }
        }
        for elem in ElemType::WIDE {
            for index in [IndexType::U32, IndexType::I64] {
                for ragged in [false, true] {
                    out.extend(
                        WIDE_WIDTHS.map(|epl| Unit::wide(elem, index, epl).with_ragged(ragged)),
                    );
                }
            }
        }
        out.extend(ElemType::WIDE.map(Unit::threshold));
        for ragged in [false, true] {
            for elem in ElemType::ALL {
                for index in [IndexType::U32, IndexType::I64] {
                    out.push(Unit { elem, index, ragged, ..Unit::single(Family::ClusterRows) });
                }
            }
        }
        for elem in ElemType::FLOATS {
            for index in [IndexType::U32, IndexType::I64] {
                out.push(Unit { index, ..Unit::radix(elem) });
            }
        }
        for ragged in [false, true] {
            for index in [IndexType::U32, IndexType::I64] {
                out.push(Unit { index, ragged, ..Unit::single(Family::ClusterRowsNarrow) });
            }
        }
        out
    }

    /// Every unit but the ragged twins: what a plain request can run.
    pub fn all_plain() -> Vec<Unit> {
        Self::all().into_iter().filter(|u| !u.ragged).collect()
    }

    /// The units of one element and index type, and the utilities.
    fn all_u32() -> Vec<Unit> {
        let mut out = Vec::with_capacity(BASE_UNITS);
        for family in [Family::WarpRows, Family::HalfRows, Family::QuarterRows] {
            out.extend((0..family.widths().len()).map(|w| Unit::row(family, w)));
        }
        out.push(Unit::single(Family::BlockRows));
        out.push(Unit::single(Family::BlockRowsNarrow));
        out.extend(SORT_WARP_WIDTHS.iter().map(|&w| Unit::sort_warp(w)));
        out.push(Unit::single(Family::SortRows));
        out.push(Unit::single(Family::SplitGather));
        out.push(Unit::single(Family::Utilities));
        out
    }

    /// The unit's place in [`Unit::all`].
    pub fn index(self) -> usize {
        if self.family == Family::ClusterRowsNarrow {
            let set = 2 * usize::from(self.ragged) + usize::from(self.index == IndexType::I64);
            return BEFORE_CLUSTER + 2 * SETS + 2 * ElemType::FLOATS.len() + set;
        }
        if self.family == Family::RadixRows {
            let set = 2 * self.elem.ordinal() + usize::from(self.index == IndexType::I64);
            return BEFORE_CLUSTER + 2 * SETS + set;
        }
        if self.family == Family::ClusterRows {
            let set = 2 * self.elem.ordinal() + usize::from(self.index == IndexType::I64);
            return BEFORE_CLUSTER + SETS * usize::from(self.ragged) + set;
        }
        if self.family == Family::Utilities {
            return PLAIN_UNITS - 1;
        }
        if self.family == Family::RowThreshold && self.elem.wide() {
            return BEFORE_CLUSTER - ElemType::WIDE.len() + self.elem.ordinal()
                - ElemType::ALL.len();
        }
        if self.family == Family::RowThreshold {
            return PLAIN_UNITS + SETS * RAGGED_BASE + self.elem.ordinal();
        }
        if self.family == Family::GroupedRows {
            let set = 2 * self.elem.ordinal() + usize::from(self.index == IndexType::I64);
            let width = GROUPED_WIDTHS.iter().position(|&w| w == self.width).unwrap_or(0);
            return PLAIN_UNITS
                + SETS * RAGGED_BASE
                + ElemType::ALL.len()
                + set * GROUPED_WIDTHS.len()
                + width;
        }
        if self.family == Family::PickRows {
            let set = 2 * self.elem.ordinal() + usize::from(self.index == IndexType::I64);
            let width = if self.one_lane {
                PICK_WIDTHS.len()
                    + PICK_LANE_WIDTHS.iter().position(|&w| w == self.width).unwrap_or(0)
            } else {
                PICK_WIDTHS.iter().position(|&w| w == self.width).unwrap_or(0)
            };
            return BEFORE_CLUSTER - WIDE_UNITS - PICK_UNITS + set * PICK_SET + width;
        }
        if self.family == Family::WideRows {
            let wide = self.elem.ordinal().saturating_sub(ElemType::ALL.len());
            let set =
                4 * wide + 2 * usize::from(self.index == IndexType::I64) + usize::from(self.ragged);
            let width = WIDE_WIDTHS.iter().position(|&w| w == self.width).unwrap_or(0);
            return BEFORE_CLUSTER - WIDE_UNITS + set * WIDE_WIDTHS.len() + width;
        }
        let set = 2 * self.elem.ordinal()
            + match self.index {
                IndexType::U32 => 0,
                IndexType::I64 => 1,
            };
        if self.ragged {
            // the top-k units come first in the base order
            return PLAIN_UNITS + set * RAGGED_BASE + self.base_index();
        }
        set * (BASE_UNITS - 1) + self.base_index()
    }

    /// The place of the unit's 32-bit-index twin.
    fn base_index(self) -> usize {
        let row = || self.family.widths().iter().position(|w| w.epl == self.width).unwrap_or(0);
        let sort = || SORT_WARP_WIDTHS.iter().position(|&w| w == self.width).unwrap_or(0);
        let (warp, part, sorts) = (WARP_ROWS.len(), PART_ROWS.len(), SORT_WARP_WIDTHS.len());
        match self.family {
            Family::WarpRows => row(),
            Family::HalfRows => warp + row(),
            Family::QuarterRows => warp + part + row(),
            Family::BlockRows => warp + 2 * part,
            Family::BlockRowsNarrow => warp + 2 * part + 1,
            Family::SortWarpRows => warp + 2 * part + 2 + sort(),
            Family::SortRows => warp + 2 * part + 2 + sorts,
            Family::SplitGather => warp + 2 * part + 3 + sorts,
            Family::Utilities => warp + 2 * part + 4 + sorts,
            // placed by `index` itself
            Family::RowThreshold
            | Family::GroupedRows
            | Family::PickRows
            | Family::WideRows
            | Family::ClusterRows
            | Family::RadixRows
            | Family::ClusterRowsNarrow => 0,
        }
    }

    /// The unit's family.
    pub fn family(self) -> Family {
        self.family
    }

    /// Registers per lane (warp-row families: [`RowWidth::epl`]), positions per row (warp
    /// sorts: [`SORT_WARP_WIDTHS`]), experts per lane (grouped selection), else 0.
    pub fn width(self) -> usize {
        self.width
    }

    /// A warp-row unit's elements per lane, its kernels' `EPL`: [`Unit::width`] registers of
    /// one f32 or two 16-bit elements each ([`ElemType::per_word`]).
    pub fn elems_per_lane(self) -> usize {
        self.width * self.elem.per_word()
    }

    /// Whether the unit has a second entry point, `<name>_floor`, that reads and raises a
    /// split's floor (docs/kernel.md, "Split rows: the floor"): the plain units of f32, f16
    /// and bf16 rows that a split's chunks run — warp rows of [`FLOOR_EPL`] elements per lane
    /// and block rows. Its own instantiation, so that every other launch runs code without it
    /// (the floor's tests in the kernels slowed rows of 256 to 768 by 4-10 % on an H200:
    /// results/cuda/2026-11-30-split-floor-h200).
    pub fn has_floor_entry(self) -> bool {
        let floats = matches!(self.elem, ElemType::F32 | ElemType::F16 | ElemType::Bf16);
        let rows = match self.family {
            Family::WarpRows => self.elems_per_lane() == FLOOR_EPL,
            Family::BlockRows | Family::BlockRowsNarrow => true,
            _ => false,
        };
        floats && rows && !self.ragged
    }

    /// Whether the unit has a second entry point, `<name>_hinted`, whose rows start their
    /// search at the caller's threshold hints (docs/contract.md §5; docs/kernel.md, "Threshold
    /// hints"): every ragged twin ([`Unit::with_ragged`]; the radix rows, which take no hints,
    /// have none). Its own instantiation, so that a ragged launch without hints runs code
    /// without the hint search (held beside the plain search, it made the twins spill
    /// registers and run up to 1.33x the plain units' time on an H200:
    /// results/cuda/2026-12-03-ragged-twins-h200).
    pub fn has_hinted_entry(self) -> bool {
        self.ragged
    }

    /// The unit's entry points (one module each: the 64-bit-index twin's entry point has the
    /// same name as the 32-bit one's); the floor's or the hints' second
    /// ([`Unit::has_floor_entry`], [`Unit::has_hinted_entry`]: never both).
    pub fn entry_points(self) -> Vec<String> {
        match self.family {
            Family::Utilities => UTILITIES.iter().map(|s| s.to_string()).collect(),
            Family::RadixRows => RADIX_ENTRIES.iter().map(|s| s.to_string()).collect(),
            _ if self.has_floor_entry() => {
                vec![self.entry_name(), format!("{}_floor", self.entry_name())]
            }
            _ if self.has_hinted_entry() => {
                vec![self.entry_name(), format!("{}_hinted", self.entry_name())]
            }
            _ => vec![self.entry_name()],
        }
    }

    /// The entry point's name: the family's prefix and, where it has one, the elements per lane
    /// (warp rows, grouped rows, wide rows), positions per row (warp sorts) or the widest row
    /// (pick rows).
    pub fn entry_name(self) -> String {
        let ragged = if self.ragged { "_ragged" } else { "" };
        match self.family {
            Family::WarpRows | Family::HalfRows | Family::QuarterRows => {
                format!("{}{ragged}_{}", self.family.prefix(), self.elems_per_lane())
            }
            Family::SortWarpRows | Family::GroupedRows => {
                format!("{}_{}", self.family.prefix(), self.width)
            }
            Family::PickRows if self.one_lane => format!("rtopk_pick_lane_rows_{}", self.width),
            Family::PickRows => format!("{}_{}", self.family.prefix(), self.width),
            Family::WideRows => format!("{}{ragged}_{}", self.family.prefix(), self.width),
            _ => format!("{}{ragged}", self.family.prefix()),
        }
    }
}

/// How many units write 32-bit indices, the utilities included.
const BASE_UNITS: usize = WARP_ROWS.len() + 2 * PART_ROWS.len() + SORT_WARP_WIDTHS.len() + 5;
/// How many top-k units (the families that [`Family::selects`]) write 32-bit indices.
const RAGGED_BASE: usize = WARP_ROWS.len() + 2 * PART_ROWS.len() + 2;
/// How many (element type, index type) sets of units there are.
const SETS: usize = 2 * ElemType::ALL.len();
/// How many plain units there are: each but the utilities for both index types and every
/// element type (the gather's other places stay unused: [`Unit::with_elem`] keeps it f32).
const PLAIN_UNITS: usize = SETS * (BASE_UNITS - 1) + 1;
/// How many pick-rows units a float type and index type has: the eight-lane ones, then the
/// one-lane ones.
const PICK_SET: usize = PICK_WIDTHS.len() + PICK_LANE_WIDTHS.len();
/// How many pick-rows units there are: each width for both index types of each float type.
const PICK_UNITS: usize = 2 * ElemType::FLOATS.len() * PICK_SET;
/// How many wide-rows units there are: each width for both index types of each 64-bit type,
/// plain and ragged, then the 64-bit types' threshold units.
const WIDE_UNITS: usize = 4 * ElemType::WIDE.len() * WIDE_WIDTHS.len() + ElemType::WIDE.len();
/// How many units come before the cluster rows': the plain ones, the ragged twins of the
/// top-k units, the threshold units of every element type, the grouped-selection and the
/// pick-rows units of the float types, the wide-rows units of the 64-bit types.
const BEFORE_CLUSTER: usize = PLAIN_UNITS
    + SETS * RAGGED_BASE
    + ElemType::ALL.len()
    + 2 * ElemType::FLOATS.len() * GROUPED_WIDTHS.len()
    + PICK_UNITS
    + WIDE_UNITS;
/// How many units there are: those before the cluster rows', then the cluster rows' of every
/// element type of at most 32 bits, for both index types, plain and then ragged, the radix
/// units of the float types, and the narrowing cluster rows' (f32: both index types, plain and
/// then ragged).
pub const UNIT_COUNT: usize = BEFORE_CLUSTER + 2 * SETS + 2 * ElemType::FLOATS.len() + 4;

/// A unit is written as its name (`rtopk_warp_rows_12_f16`).
impl Serialize for Unit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.entry_name(), self.elem.suffix(), self.index.suffix())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_unit_has_its_place_and_a_distinct_name() {
        let all = Unit::all();
        assert_eq!(all.len(), UNIT_COUNT);
        let names: HashSet<String> = all.iter().map(|u| u.to_string()).collect();
        assert_eq!(names.len(), all.len());
        for (i, u) in all.iter().enumerate() {
            assert_eq!(u.index(), i, "{u}");
        }
        assert!(names.contains("rtopk_warp_rows_96") && names.contains("rtopk_quarter_rows_1"));
        assert!(names.contains("rtopk_sort_warp_rows_1024") && names.contains("utilities"));
        assert!(!names.contains("rtopk_sort_warp_rows_4"));
        assert!(
            names.contains("rtopk_warp_rows_16_bf16_i64") && names.contains("rtopk_block_rows_f16")
        );
        // 16-bit warp rows are named by elements per lane, two per register
        assert!(
            names.contains("rtopk_warp_rows_192_f16") && names.contains("rtopk_half_rows_2_bf16")
        );
        assert!(!names.contains("rtopk_half_rows_1_f16"));
        assert!(
            names.contains("rtopk_warp_rows_ragged_96")
                && names.contains("rtopk_block_rows_ragged_bf16_i64")
        );
        assert!(!names.contains("rtopk_sort_rows_ragged"));
        let wide_ragged = 2 * ElemType::WIDE.len() * WIDE_WIDTHS.len();
        let ragged = SETS * RAGGED_BASE + wide_ragged + SETS + 2;
        assert_eq!(Unit::all_plain().len() + ragged, UNIT_COUNT);
        assert!(
            names.contains("rtopk_cluster_rows") && names.contains("rtopk_cluster_rows_bf16_i64")
        );
        let cluster = Unit::single(Family::ClusterRows);
        assert_eq!(cluster.with_ragged(true).to_string(), "rtopk_cluster_rows_ragged");
        assert!(names.contains("rtopk_cluster_rows_ragged_i8_i64"));
        let narrow = Unit::single(Family::ClusterRowsNarrow);
        assert_eq!(narrow.with_ragged(true).to_string(), "rtopk_cluster_rows_narrow_ragged");
        assert!(names.contains("rtopk_cluster_rows_narrow_i64"));
        assert!(!names.contains("rtopk_cluster_rows_narrow_bf16"));
        // the threshold units: one per element type, whatever the index type asked
        assert!(
            names.contains("rtopk_row_threshold") && names.contains("rtopk_row_threshold_bf16")
        );
        let t = Unit::threshold(ElemType::F16);
        assert_eq!(t.with_index(IndexType::I64), t);
        assert_eq!(
            Unit::all()[BEFORE_CLUSTER - WIDE_UNITS - PICK_UNITS - 30 - ElemType::ALL.len() + 1],
            t
        );
        assert!(
            names.contains("rtopk_pick_rows_8") && names.contains("rtopk_pick_rows_512_bf16_i64")
        );
        assert!(
            names.contains("rtopk_pick_lane_rows_8")
                && names.contains("rtopk_pick_lane_rows_16_f16_i64")
        );
        assert!(!names.contains("rtopk_pick_rows_8_i32"));
        assert!(
            names.contains("rtopk_grouped_rows_8")
                && names.contains("rtopk_grouped_rows_32_bf16_i64")
        );
        let half = Unit::row(Family::HalfRows, 9).with_elem(ElemType::F16);
        assert_eq!((half.width(), half.elems_per_lane()), (32, 64));
        // integer rows: one 32-bit key per element, whatever the integer's width
        for e in ElemType::ALL {
            assert_eq!(ElemType::from_name(e.name()), Some(e));
        }
        // 64-bit types: the wide rows alone, both index types
        for e in ElemType::WIDE {
            assert_eq!(ElemType::from_name(e.name()), Some(e));
            assert!(e.wide() && !ElemType::ALL.contains(&e));
        }
        assert_eq!(ElemType::from_name("float128"), None);
        assert!(
            names.contains("rtopk_wide_rows_8_f64") && names.contains("rtopk_wide_rows_32_i64_i64")
        );
        let wide = |u: &&Unit| u.family() == Family::WideRows;
        assert_eq!(all.iter().filter(wide).count(), WIDE_UNITS - ElemType::WIDE.len());
        assert!(
            names.contains("rtopk_wide_rows_ragged_24_i64")
                && names.contains("rtopk_row_threshold_f64")
        );
        // 64-bit rows: the wide rows and their threshold units alone
        let threshold = |u: &Unit| u.family() == Family::RowThreshold;
        assert!(all.iter().all(|u| (wide(&u) || threshold(u)) || !u.elem_type().wide()));
        assert!(all.iter().filter(wide).all(|u| u.elem_type().wide()));
        let int8 = Unit::row(Family::HalfRows, 9).with_elem(ElemType::I8);
        assert_eq!((int8.width(), int8.elems_per_lane()), (32, 32));
        assert!(
            names.contains("rtopk_warp_rows_96_i32") && names.contains("rtopk_block_rows_u8_i64")
        );
        assert!(
            names.contains("rtopk_row_threshold_i16") && !names.contains("rtopk_warp_rows_192_i8")
        );
    }
}
