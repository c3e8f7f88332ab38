//! # The RTop-K kernel on the engine
//!
//! The kernel of docs/kernel.md written against [`crate::engine`], family for family, stage
//! for stage and name for name with the CUDA kernel (`crates/rtopk-cuda/kernels`;
//! [`names::SHARED_NAMES`] lists the names both use, and a test reads the CUDA sources to keep
//! it true):
//!
//! | file | what | CUDA kernel |
//! |---|---|---|
//! | [`plan`] | the launch plan: family, lanes per row, keys per lane, grid, sort | rtopk-cuda's `plan` |
//! | [`args`] | [`KernelArgs`], [`SearchExit`], the narrowing constants | `Params`, `EXIT_*`, `CAND_CAP` |
//! | `order.rs` | `order_key`, `number_key`, `midpoint`, ... with the GPU's float semantics; 16-bit elements' own keys: `own_key`, `key16_of_ordered`, `ceil16`, `own_key_at_least`, `ordered_value_of_own_key` | `order.cuh` |
//! | `rows.rs` | `WarpRow`, `PackedRow` (a 16-bit row, two elements per register: `lane_count_ge`, `count_words_ge`, `halves_set`), `CandRow`, `BlockRow`, `count_ge`, `slots_ge`, `slot_key`, `row_sum` / `row_min` / `row_max` (`row_butterfly`, `__reduce_*_sync`), `row_scan`, `block_sum`, `block_prefix` | `rows.cuh` |
//! | `load.rs` | stage 1: `load_row` (an f32 row's keys, or a `PackedRow`), `key_slots` | `load.cuh` |
//! | `search.rs` | stage 2: `Search`, `update`, `search_threshold`, `search_exact`, `search_hinted` (`hint_test`, `window_tests`), `finish_exact`, `value_phase`, `search_early_stopping` | `search.cuh` |
//! | `select.rs` | stage 3: `Cut`, `cut_of`, `classify`, `taken`, `emit_staged`, `select_topk_lanes`, `select_chunk`, `select_candidates`, `write_result` | `select.cuh` |
//! | `narrow.rs` | `narrow_row`, `copy_and_take`, `copy_candidates`, `take_candidates`, `finish_candidates` | `narrow.cuh` |
//! | `floor.rs` | a split's floor: `floor_of`, `count_at_floor`, `floor_cut`, `pad_below_floor` (`last_value`), `raise_floor` | `floor.cuh` |
//! | `warp_rows.rs` | `rtopk_warp_rows_impl`, `rtopk_warp_row`: quarter, half and whole-warp rows | `warp_rows.cu` |
//! | `block_rows.rs` | `rtopk_block_row`, `load_block_staged`, `load_block_keys16`, `block_range`, the block narrowing's hand-off | `block_rows.cu` |
//! | `sort.rs` | `sort_warp_row` (`bitonic_step`), `rtopk_sort_rows` (`sort_block_row`: `block_bitonic_network`, `shared_step` over `SharedRanks`; `bitonic_sort` over `GlobalResults`) | `sort.cuh`, `sort_*.cu` |
//! | `params.rs` | `Params`, `RowPlace`, `place_row`: where a row (or a split row's chunk) reads and writes | `Params`, `place_row` in `common.cuh` |
//! | [`split`] | split rows' last step: `rtopk_split_gather`, and the check that a gathered index names its element | `split_rows.cu` |
//! | `radix.rs` | radix rows: `rtopk_radix_sample` (`sample_digits`, the last block's `choose_floor`), `rtopk_radix_digits` (`radix_pass`; `count_digits`, the keeping pass's `keep_digits` (`keep_key`, `keep_place`, `keep_groups`) and `keep_counts`, a later one's `count_listed` over a block's `RadixList` (`radix_list`); `add_histogram`, `take_ticket`, the last block's `choose_digit`), `rtopk_radix_count` (`count_part`, or `count_candidates`), `rtopk_radix_write` (`write_listed`, or `write_part`), over `RadixPart`s (`radix_part`) and `WarpRange`s (`warp_range`, `radix_span`), with `radix_exclusive_sum` and `radix_sum` | `radix_rows.cu` |
//! | `grouped.rs` | grouped selection (docs/contract.md §8): `rtopk_grouped_rows_impl`, `load_experts`, `group_scores`, `choose_groups`, `select_experts` ([`Simulator::grouped_rows`]) | `grouped_rows.cu` |
//! | `pick.rs` | pick rows: `rtopk_pick_rows_impl`, `load_picks`, `pick_round`, `pick_rounds`, `write_picks` — k rounds of the row's best element, for small k without counts | `pick_rows.cu` |
//! | `wide.rs` | wide rows (64-bit elements: f64, i64): `rtopk_wide_rows_impl`, `load_wide`, `search_wide` (`wide_value_phase`, `wide_key_phase`, `wide_early_stopping`), `select_wide` (`cut_wide`, `select_chunk_wide`), `sort_wide`; the ragged twins' `search_wide_hinted` (`wide_hint_key`, `wide_hint_test`, `wide_window_tests`) — topk-ref's bisect on 64-bit keys, one warp per row | `wide_rows.cu`, `wide.cuh` |
//! | `threshold.rs` | the `row_threshold` step: `rtopk_row_threshold`, `threshold_key`, `threshold_min`, `threshold_value` (docs/contract.md §5; 64-bit keys on 64-bit rows) | `threshold.cu` |
//! | `execute.rs` | the executor of the launch program (rtopk-plan's `program`): its steps (`select_rows`, `select_chunks`, `select_last_chunks`, `sort_rows`, `gather_indices`, `row_threshold`, `radix_sample`, `radix_digits`, `radix_count`, `radix_write`) in order, and the program's invariants | rtopk-cuda's `run_program` (`src/launch.rs`) |
//!
//! Around the kernel: [`launch`] runs it over matrices ([`Simulator`]) by executing the launch
//! program (`execute.rs`, the same steps as the CUDA launcher's; docs/kernel.md, "The launch
//! program"), in windows of rows or whole where it splits rows; [`coverage`] is what a run
//! reports it exercised ([`Coverage`]);
//! [`record`] is what it tells a [`Recorder`], and [`trace`] keeps and draws one row's
//! journey ([`RowTrace`]); [`mutant`] holds its seeded bugs ([`Mutant`]) and [`mod@catalog`]
//! shows how each is caught; [`rowtopk`] puts it behind topk-ref's row-wise trait
//! ([`SimTopK`]).
//!
//! Files import downwards only: `plan`, `args`, `mutant`, `record` and `params` import no
//! stage; the stages import them and each other in the order `order` → `rows` → `load` →
//! `search` → `select` → `narrow` → `warp_rows` → `block_rows` → `sort`, with `pick` and
//! `wide` (families of their own stages) after `narrow`; then `trace` /
//! `svg`, `launch`, `execute` and `split` / `radix`, `rowtopk` and `catalog` (`coverage` imports only
//! `plan`).

pub mod args;
mod block_rows;
pub mod catalog;
mod cluster_rows;
pub mod coverage;
mod execute;
mod floor;
mod grouped;
pub mod launch;
mod load;
pub mod mutant;
pub mod names;
mod narrow;
mod order;
mod params;
mod pick;
pub mod plan;
mod radix;
pub mod record;
mod rows;
pub mod rowtopk;
mod search;
mod select;
mod sort;
mod sort_merge;
mod sort_rank;
pub mod split;
pub mod svg;
mod threshold;
pub mod trace;
mod warp_rows;
mod wide;

pub use args::{
    BLOCK_CAND_CAP, BLOCK_NARROW_MAX_M, BLOCK_NARROW_MIN_M, CAND_CAP, KernelArgs, NARROW_MAX_M,
    NARROW_MIN_M, RowData, SearchExit,
};
pub use catalog::{Caught, MutantReport, catalog, evaluate, render_table};
pub use coverage::{Branch, Coverage};
pub use execute::SPLIT_MAX_WORDS;
pub use launch::{
    H100, LaunchResult, SimConfig, Simulator, check_order_dependence, launch_parallel, launch_rtopk,
};
pub use mutant::Mutant;
pub use plan::{DeviceLimits, ElemType, Family, Plan, Route, Split, Strategy};
pub use record::{Moved, Phase, Recorder, TraceChunk, TraceCut, TraceStep};
pub use rowtopk::SimTopK;
pub use trace::RowTrace;
