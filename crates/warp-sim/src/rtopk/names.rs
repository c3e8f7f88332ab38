//! The names the simulated kernel shares with the CUDA kernel (`crates/rtopk-cuda/kernels`):
//! each stage and helper in [`SHARED_NAMES`] is a function or struct of that name in both,
//! doing the same thing, so that a reader can hold the two side by side (docs/kernel.md,
//! "Names", maps each to topk-ref's `bisect` too). Every other function or struct the CUDA
//! kernel defines is in [`KERNEL_ONLY`], with where the simulator does its work instead. Tests
//! read both sources and keep the two lists true and whole: a new kernel function is shared
//! (a simulator twin of its name) or listed as the kernel's own. Names the simulator alone
//! has (the engine's mechanics, `KernelArgs`, `RowLanes`, the trace) are in neither.

/// The CUDA kernel's own functions and structs, with where the simulator does their work: PTX
/// and compiler devices, compile-time choices among instantiations (the simulator takes them
/// as arguments), the benchmark utilities, and loops or loads the simulator writes inside a
/// shared function.
pub const KERNEL_ONLY: &[(&str, &str)] = &[
    // the launch's arguments
    (
        "ArgLayout",
        "the argument struct's offsets for the launcher's layout test; the simulator takes KernelArgs",
    ),
    ("offset", "ArgLayout's offset of one argument"),
    (
        "rtopk_args",
        "the entry points' arguments gathered into Params; the simulator builds Params from KernelArgs",
    ),
    (
        "opaque",
        "the row's output pointer hidden from the optimizer, so that a store adds a 32-bit position to it; no simulator meaning",
    ),
    ("ChunkOf", "the struct chunk_of returns; the simulator's chunk_of returns a pair"),
    ("split_candidates", "rtopk-plan's SplitRows::candidates, which the simulator calls"),
    // PTX: the engine's instructions
    (
        "wait_for_previous_step",
        "griddepcontrol.wait; the simulator runs a program's steps one after the other",
    ),
    ("load_relaxed", "ld.relaxed.gpu: the engine's Warp::atomic_load_global"),
    ("cluster_ctarank", "the engine's Warp::cluster_ctarank"),
    ("cluster_nctarank", "the engine's Warp::cluster_size"),
    ("cluster_sync", "the engine's Warp::barrier_cluster"),
    ("cluster_red", "the engine's Warp::red_shared_cluster"),
    ("cluster_store", "the engine's Warp::st_shared_cluster"),
    (
        "ClusterShared",
        "a cluster row's shared memory as one struct: block_smem and cluster_rows.rs's slot words",
    ),
    // compile-time choices, which the simulator's one function takes as arguments
    (
        "RowOf",
        "the row storage of an element type (WarpRow or PackedRow); warp_row_stages is generic over it",
    ),
    ("warp_row_of", "rtopk_warp_row's instantiation for the row's flags"),
    ("cluster_row_of", "rtopk_cluster_row's instantiation for the row's flags"),
    (
        "search_of",
        "search_hinted or search_threshold for a ragged or hinted row: search_threshold takes both as arguments",
    ),
    (
        "value_phase_of",
        "value_phase's instantiation for the search's kind, which value_phase reads from its arguments",
    ),
    (
        "takes_hint",
        "whether a row searches from its hint (HINTED, exact mode); search_threshold decides it from its arguments",
    ),
    (
        "hint_of",
        "where a block row reads its hint; the simulator's search takes it from its arguments",
    ),
    (
        "uncounted_slack",
        "a 16-bit search's mark that no count was asked for, kept in the slack: Search::uncounted",
    ),
    (
        "rtopk_warp_row_ragged",
        "the ragged twin's warp row: rtopk_warp_row with the unit's is_ragged",
    ),
    (
        "rtopk_block_row_ragged",
        "the ragged twin's block row: rtopk_block_row with the unit's is_ragged",
    ),
    (
        "rtopk_cluster_row_ragged",
        "the ragged twin's cluster row: rtopk_cluster_row with the unit's is_ragged",
    ),
    (
        "radix_sample_step",
        "the body of rtopk_radix_sample and its ragged twin, which is rtopk_radix_sample",
    ),
    (
        "radix_digits_step",
        "the body of rtopk_radix_digits and its ragged twin, which is rtopk_radix_digits",
    ),
    (
        "radix_count_step",
        "the body of rtopk_radix_count and its ragged twin, which is rtopk_radix_count",
    ),
    (
        "radix_write_step",
        "the body of rtopk_radix_write and its ragged twin, which is rtopk_radix_write",
    ),
    ("rtopk_radix_sample_ragged", "an entry point: rtopk_radix_sample of a ragged program"),
    ("rtopk_radix_digits_ragged", "an entry point: rtopk_radix_digits of a ragged program"),
    ("rtopk_radix_count_ragged", "an entry point: rtopk_radix_count of a ragged program"),
    ("rtopk_radix_write_ragged", "an entry point: rtopk_radix_write of a ragged program"),
    // loops and loads the simulator writes inside a shared function
    ("key_full_slots", "key_slots's loop over slots all inside the row"),
    ("key_cut_slots", "key_slots's loop over slots the row's end cuts"),
    ("load_pairs16", "load_row's 16-byte loads of a 16-bit row (load_elements)"),
    (
        "load_last_words",
        "PackedRow::load_row's last lane: padding, and the range over the slots inside",
    ),
    (
        "range_of_words",
        "a packed row's min / max, the mode chosen once: range_full_words takes it as an argument",
    ),
    ("count_slots_ge", "count_ge's compares packed into masks (slots_ge) and counted"),
    ("count_words_nan", "a packed row's NaN halves, counted in PackedRow's nan_slots"),
    ("count_nans", "PackedRow's NaN count, which is nan_slots"),
    ("load_group", "load_picks's one-load slot group"),
    ("pick_group", "rtopk-plan's pick_group, which the simulator calls"),
    (
        "bitonic_merge",
        "the warp sort's network unrolled by template recursion; bitonic_network runs it as loops",
    ),
    // the benchmark and conversion utilities, which the simulator does not run
    ("read_bandwidth_probe", "utilities.cu: the benchmarks' read-bandwidth kernel"),
    ("spin_ahead", "utilities.cu: the benchmarks' spin ahead of a timed launch"),
    ("fill_normal", "utilities.cu: the benchmarks' normal values drawn on the device"),
    ("mix32", "utilities.cu: fill_normal's hash"),
    ("round_to16", "utilities.cu: the benchmarks' conversion of f32 values to f16 or bf16"),
    (
        "per_row_words",
        "utilities.cu: a framework's int64 lengths or k as 32-bit words; the simulator reads them as given",
    ),
];

/// `(name, file of src/rtopk that defines it)`, in kernel order.
pub const SHARED_NAMES: &[(&str, &str)] = &[
    // where a row reads and writes
    ("RowPlace", "params.rs"),
    ("place_row", "params.rs"),
    ("chunk_of", "params.rs"),
    ("Params", "params.rs"),
    ("split_row_args", "params.rs"),
    // a ragged row's own width and k (docs/contract.md §5)
    ("per_row_entry", "args.rs"),
    ("row_lengths", "args.rs"),
    ("row_args", "params.rs"),
    ("pad_results", "narrow.rs"),
    // the order
    ("flip_key", "order.rs"),
    ("number_key", "order.rs"),
    ("order_key", "order.rs"),
    ("ordered_value_of_key", "order.rs"),
    ("key_keeps_bits", "order.rs"),
    ("value_of_key", "order.rs"),
    ("midpoint", "order.rs"),
    ("int_key", "order.rs"),
    ("int_of_key", "order.rs"),
    ("hint_key", "order.rs"),
    ("int_hint_key", "order.rs"),
    // 16-bit elements and own keys (docs/kernel.md, "16-bit rows")
    ("float_of16", "order.rs"),
    ("is_nan16", "order.rs"),
    ("key16_of_ordered", "order.rs"),
    ("key16_of_number", "order.rs"),
    ("ordered_of_key16", "order.rs"),
    ("own_key", "order.rs"),
    ("ceil16", "order.rs"),
    ("own_key_at_least", "order.rs"),
    ("ordered_value_of_own_key", "order.rs"),
    // row storage and the row-wide reductions
    ("slots_ge", "rows.rs"),
    ("row_butterfly", "rows.rs"),
    ("row_sum", "rows.rs"),
    ("row_min", "rows.rs"),
    ("row_max", "rows.rs"),
    ("row_scan", "rows.rs"),
    ("WarpRow", "rows.rs"),
    ("CandRow", "rows.rs"),
    ("BlockRow", "rows.rs"),
    ("PackedRow", "rows.rs"),
    ("packed_ge", "rows.rs"),
    ("halves_set", "rows.rs"),
    ("count_words_ge", "rows.rs"),
    ("words_ge", "rows.rs"),
    ("nan_slots", "rows.rs"),
    ("lane_count_ge", "rows.rs"),
    ("count_ge_value", "rows.rs"),
    ("half", "rows.rs"),
    ("count_at_value", "rows.rs"),
    ("slot_key", "rows.rs"),
    ("range_full_words", "rows.rs"),
    ("count_ge_positive", "rows.rs"),
    ("slots_counted", "rows.rs"),
    ("tail_counted", "rows.rs"),
    ("count_above_and_at_least", "rows.rs"),
    ("count_ge", "rows.rs"),
    ("key_at", "rows.rs"),
    ("block_sum", "rows.rs"),
    ("block_prefix", "rows.rs"),
    // stage 1
    ("key_slots", "load.rs"),
    ("row_whole", "load.rs"),
    ("load_row", "load.rs"),
    ("cut_group", "load.rs"),
    ("key_ints", "load.rs"),
    ("load_ints", "load.rs"),
    // stage 2
    ("Search", "search.rs"),
    ("update", "search.rs"),
    ("value_phase", "search.rs"),
    ("finish_exact", "search.rs"),
    ("search_exact", "search.rs"),
    ("search_early_stopping", "search.rs"),
    ("search_threshold", "search.rs"),
    ("hint_test", "search.rs"),
    ("window_tests", "search.rs"),
    ("search_hinted", "search.rs"),
    ("value_of_bracket", "search.rs"),
    ("recall_slack", "search.rs"),
    ("recall_met", "search.rs"),
    // stage 3
    ("Cut", "select.rs"),
    ("cut_of", "select.rs"),
    ("result_value", "select.rs"),
    ("write_result", "select.rs"),
    ("select_chunk", "select.rs"),
    ("classify", "select.rs"),
    ("lowest_bits", "select.rs"),
    ("emit_staged", "select.rs"),
    ("taken", "select.rs"),
    ("select_topk_lanes", "select.rs"),
    ("select_candidates", "select.rs"),
    // narrowing
    ("copy_candidates", "narrow.rs"),
    ("take_candidates", "narrow.rs"),
    ("copy_and_take", "narrow.rs"),
    ("narrow_row", "narrow.rs"),
    ("finish_candidates", "narrow.rs"),
    // a split's floor (docs/kernel.md, "Split rows: the floor")
    ("last_value", "floor.rs"),
    ("floor_of", "floor.rs"),
    ("raise_floor", "floor.rs"),
    ("count_at_floor", "floor.rs"),
    ("floor_cut", "floor.rs"),
    ("pad_below_floor", "floor.rs"),
    // the launch families
    ("rtopk_warp_row", "warp_rows.rs"),
    ("rtopk_warp_rows_impl", "warp_rows.rs"),
    ("block_range", "block_rows.rs"),
    ("load_block_keys16", "block_rows.rs"),
    ("stages_loads", "block_rows.rs"),
    ("stage_slot", "block_rows.rs"),
    ("load_block_staged", "block_rows.rs"),
    ("load_block_slots", "block_rows.rs"),
    ("rtopk_block_row", "block_rows.rs"),
    // cluster rows (docs/kernel.md, "Cluster rows")
    ("ClusterRow", "cluster_rows.rs"),
    ("cluster_sum", "cluster_rows.rs"),
    ("cluster_range", "cluster_rows.rs"),
    ("cluster_before", "cluster_rows.rs"),
    ("gather_candidates", "cluster_rows.rs"),
    ("finish_cluster_candidates", "cluster_rows.rs"),
    ("cluster_sum_pair", "cluster_rows.rs"),
    ("block_part", "cluster_rows.rs"),
    ("guesses", "cluster_rows.rs"),
    ("leaf_of", "cluster_rows.rs"),
    ("leaf_floor", "cluster_rows.rs"),
    ("guess_bracket", "cluster_rows.rs"),
    ("ragged_span", "cluster_rows.rs"),
    ("search_guessed", "cluster_rows.rs"),
    // which rows take the plain searches below (a ragged twin's first entry point too)
    ("plain_search", "block_rows.rs"),
    // 16-bit rows by histograms
    ("histograms", "block_rows.rs"),
    ("kth_bin", "block_rows.rs"),
    ("suffix_sum", "block_rows.rs"),
    ("block_byte_histogram", "block_rows.rs"),
    ("block_histogram_search", "block_rows.rs"),
    ("bracket_of_bins", "block_rows.rs"),
    ("byte_histogram", "cluster_rows.rs"),
    ("histogram_search", "cluster_rows.rs"),
    // f32 block rows by value bins
    ("value_bins", "block_rows.rs"),
    ("kth_bin_of", "block_rows.rs"),
    ("value_bin", "block_rows.rs"),
    ("block_value_search", "block_rows.rs"),
    // a cluster row narrowed within its blocks
    ("ClusterCands", "cluster_rows.rs"),
    ("local_candidates", "cluster_rows.rs"),
    ("ballot_round", "cluster_rows.rs"),
    ("bucket_round", "cluster_rows.rs"),
    ("value_rounds", "cluster_rows.rs"),
    ("finish_local", "cluster_rows.rs"),
    // a hinted cluster row's window about its hint (docs/kernel.md, "Cluster rows")
    ("guesses_from_hint", "cluster_rows.rs"),
    ("window_about", "cluster_rows.rs"),
    ("guess_from_hint", "cluster_rows.rs"),
    ("search_from_hint", "cluster_rows.rs"),
    ("rtopk_cluster_row", "cluster_rows.rs"),
    // the sorted output
    ("sort_rank", "sort.rs"),
    ("sort_rank16", "sort.rs"),
    ("SharedRanks", "sort.rs"),
    ("GlobalResults", "sort.rs"),
    ("bitonic_sort", "sort.rs"),
    ("ascending", "sort.rs"),
    ("bitonic_step", "sort.rs"),
    ("bitonic_network", "sort.rs"),
    ("order", "sort.rs"),
    ("load_results", "sort.rs"),
    ("sorted_results", "sort.rs"),
    ("row_aligned16", "sort.rs"),
    ("store_results", "sort.rs"),
    ("sort_warp_row", "sort.rs"),
    ("store_block_ranks", "sort.rs"),
    ("load_block_ranks", "sort.rs"),
    ("shared_step", "sort.rs"),
    ("block_bitonic_network", "sort.rs"),
    ("sort_block_row", "sort.rs"),
    ("rtopk_sort_rows", "sort.rs"),
    ("sort_rank_lanes", "sort_rank.rs"),
    ("load_ranks", "sort_rank.rs"),
    ("rank_below", "sort_rank.rs"),
    ("sort_rank_row", "sort_rank.rs"),
    ("run_length", "sort_merge.rs"),
    ("load_run", "sort_merge.rs"),
    ("ranks_below", "sort_merge.rs"),
    ("sort_merge_row", "sort_merge.rs"),
    // split rows' last step
    ("rtopk_split_gather", "split.rs"),
    // radix rows (docs/kernel.md, "Radix rows")
    ("RadixRow", "radix.rs"),
    ("radix_row", "radix.rs"),
    ("RadixPart", "radix.rs"),
    ("radix_part", "radix.rs"),
    ("whole_tiles", "radix.rs"),
    ("load_groups", "radix.rs"),
    ("starts_aligned", "radix.rs"),
    ("above_matches", "radix.rs"),
    ("radix_exclusive_sum", "radix.rs"),
    ("radix_sum", "radix.rs"),
    ("count_groups", "radix.rs"),
    ("count_digits", "radix.rs"),
    ("radix_pass", "radix.rs"),
    ("radix_span", "radix.rs"),
    ("RadixList", "radix.rs"),
    ("radix_list", "radix.rs"),
    ("keep_key", "radix.rs"),
    ("keep_place", "radix.rs"),
    ("keep_groups", "radix.rs"),
    ("keep_digits", "radix.rs"),
    ("count_listed", "radix.rs"),
    ("add_histogram", "radix.rs"),
    ("read_bins", "radix.rs"),
    ("choose_digit", "radix.rs"),
    ("keep_counts", "radix.rs"),
    ("take_ticket", "radix.rs"),
    ("sample_digits", "radix.rs"),
    ("choose_floor", "radix.rs"),
    ("rtopk_radix_sample", "radix.rs"),
    ("rtopk_radix_digits", "radix.rs"),
    ("WarpRange", "radix.rs"),
    ("warp_range", "radix.rs"),
    ("count_part", "radix.rs"),
    ("count_candidates", "radix.rs"),
    ("rtopk_radix_count", "radix.rs"),
    ("write_part", "radix.rs"),
    ("write_listed", "radix.rs"),
    ("pad_radix_row", "radix.rs"),
    ("rtopk_radix_write", "radix.rs"),
    // the thresholds (docs/contract.md §5)
    ("threshold_value", "threshold.rs"),
    ("threshold_key", "threshold.rs"),
    ("threshold_min", "threshold.rs"),
    ("threshold_batch", "threshold.rs"),
    ("ThresholdPart", "threshold.rs"),
    ("threshold_part_of", "threshold.rs"),
    ("threshold_group_of", "threshold.rs"),
    ("rtopk_row_threshold", "threshold.rs"),
    // grouped selection (docs/contract.md §8)
    ("load_experts", "grouped.rs"),
    ("group_scores", "grouped.rs"),
    ("choose_groups", "grouped.rs"),
    ("select_experts", "grouped.rs"),
    ("rtopk_grouped_rows_impl", "grouped.rs"),
    // pick rows (docs/kernel.md, "Pick rows")
    ("pick_key", "pick.rs"),
    ("pick_slot16", "pick.rs"),
    ("slot_j", "pick.rs"),
    ("own_keys16x2", "pick.rs"),
    ("load_picks", "pick.rs"),
    ("pick_round", "pick.rs"),
    ("pick_rounds", "pick.rs"),
    ("write_picks", "pick.rs"),
    ("rtopk_pick_rows_impl", "pick.rs"),
    // wide rows: 64-bit elements on 64-bit keys (docs/kernel.md, "64-bit rows")
    ("wide_key", "wide.rs"),
    ("key_of_bits64", "wide.rs"),
    ("bits_of_key64", "wide.rs"),
    ("number_key64", "wide.rs"),
    ("ordered_of_key64", "wide.rs"),
    ("wide_key_keeps_bits", "wide.rs"),
    ("wide_value_of_key", "wide.rs"),
    ("midpoint64", "wide.rs"),
    ("warp_min64", "wide.rs"),
    ("warp_max64", "wide.rs"),
    ("WideRow", "wide.rs"),
    ("count_wide", "wide.rs"),
    ("load_wide", "wide.rs"),
    ("WideSearch", "wide.rs"),
    ("wide_update", "wide.rs"),
    ("wide_recall_met", "wide.rs"),
    ("wide_recall_slack", "wide.rs"),
    ("wide_value_phase", "wide.rs"),
    ("wide_key_phase", "wide.rs"),
    ("wide_early_stopping", "wide.rs"),
    ("search_wide", "wide.rs"),
    ("WideCut", "wide.rs"),
    ("cut_wide", "wide.rs"),
    ("select_chunk_wide", "wide.rs"),
    ("select_wide", "wide.rs"),
    ("wide_before", "wide.rs"),
    ("sort_wide", "wide.rs"),
    ("sort_wide_global", "wide.rs"),
    ("sort_wide_regs", "wide.rs"),
    ("wide_exchange", "wide.rs"),
    ("wide_threshold_value", "wide.rs"),
    ("wide_hint_key", "wide.rs"),
    ("wide_hint_test", "wide.rs"),
    ("wide_window_tests", "wide.rs"),
    ("search_wide_hinted", "wide.rs"),
    ("rtopk_wide_rows_impl", "wide.rs"),
];

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::fs;
    use std::path::Path;

    use super::{KERNEL_ONLY, SHARED_NAMES};

    /// The text without comments of every file in `dir` (relative to this crate) whose
    /// extension is one of `exts`, in name order.
    fn sources(dir: &str, exts: &[&str]) -> String {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut files: Vec<_> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no {exts:?} file in {}", dir.display());
        files.iter().map(|f| strip_comments(&fs::read_to_string(f).expect("a source"))).collect()
    }

    /// The CUDA sources' text without comments, every `.cu` and `.cuh` of the kernels folder.
    fn cuda_sources() -> String {
        sources("../rtopk-cuda/kernels", &["cu", "cuh"])
    }

    /// `src` without `//` and `/* */` comments.
    fn strip_comments(src: &str) -> String {
        let mut out = String::new();
        let mut rest = src;
        while let Some(i) = rest.find('/') {
            out.push_str(&rest[..i]);
            let tail = &rest[i..];
            if tail.starts_with("//") {
                rest = tail.find('\n').map_or("", |e| &tail[e..]);
            } else if let Some(body) = tail.strip_prefix("/*") {
                rest = body.find("*/").map_or("", |e| &body[e + 2..]);
            } else {
                out.push('/');
                rest = &tail[1..];
            }
        }
        out + rest
    }

    /// Identifiers and single punctuation characters.
    fn tokens(src: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in src.char_indices() {
            let ident = c.is_ascii_alphanumeric() || c == '_';
            match (ident, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    out.push(&src[s..i]);
                    start = None;
                }
                _ => {}
            }
            if !ident && !c.is_whitespace() {
                out.push(&src[i..i + c.len_utf8()]);
            }
        }
        if let Some(s) = start {
            out.push(&src[s..]);
        }
        out
    }

    /// The structs the CUDA source defines, and the functions: in a declaration that says
    /// `__device__` or `__global__`, the first name followed by `(` (attributes such as
    /// `__launch_bounds__(...)` apart).
    fn cuda_definitions(src: &str) -> BTreeSet<String> {
        let toks = tokens(src);
        let mut names = BTreeSet::new();
        let (mut device, mut named) = (false, false);
        for (i, &t) in toks.iter().enumerate() {
            let next = toks.get(i + 1).copied();
            match t {
                ";" | "{" | "}" => (device, named) = (false, false),
                "__device__" | "__global__" => device = true,
                "struct" => {
                    if let Some(n) = next {
                        names.insert(n.to_string());
                    }
                }
                _ if device && !named && next == Some("(") && !t.starts_with("__") => {
                    names.insert(t.to_string());
                    named = true;
                }
                _ => {}
            }
        }
        names
    }

    #[test]
    fn the_tokenizer_finds_definitions_not_calls_or_comments() {
        let src = "// __device__ u32 in_comment(u32 x);\n\
                   template <int N>\n__device__ __forceinline__ u32 row_sum(u32 lanes, u32 v) {\n\
                   return helper(v); }\nstruct Cut { u32 a; };\n/* struct Gone {} */\n\
                   extern \"C\" __global__ void __launch_bounds__(256, 8) rtopk_x(int a) { f(a); }\n\
                   __device__\nSearch\nsearch_threshold(const Row& row);";
        let found = cuda_definitions(&strip_comments(src));
        let want: BTreeSet<String> =
            ["row_sum", "Cut", "rtopk_x", "search_threshold"].map(String::from).into();
        assert_eq!(found, want);
    }

    /// Every `.rs` of src/rtopk, without comments.
    fn simulator_sources() -> String {
        sources("src/rtopk", &["rs"])
    }

    /// Whether `src` defines a function or struct `name`.
    fn defines(src: &str, name: &str) -> bool {
        [
            format!("fn {name}("),
            format!("fn {name}<"),
            format!("struct {name} "),
            format!("struct {name}<"),
        ]
        .iter()
        .any(|d| src.contains(d.as_str()))
    }

    #[test]
    fn every_cuda_definition_is_shared_or_listed_as_the_kernels_own() {
        let cuda = cuda_definitions(&cuda_sources());
        let sim = simulator_sources();
        let shared: BTreeSet<&str> = SHARED_NAMES.iter().map(|&(n, _)| n).collect();
        let mut own = BTreeSet::new();
        for &(name, why) in KERNEL_ONLY {
            assert!(own.insert(name), "{name} is listed twice in KERNEL_ONLY");
            assert!(!why.is_empty(), "{name}: say where the simulator does its work");
            assert!(!shared.contains(name), "{name} is in SHARED_NAMES and KERNEL_ONLY");
            assert!(cuda.contains(name), "the CUDA kernel defines no function or struct {name}");
            assert!(!defines(&sim, name), "the simulator defines {name}: move it to SHARED_NAMES");
        }
        let unlisted: Vec<&String> = cuda
            .iter()
            .filter(|n| !shared.contains(n.as_str()) && !own.contains(n.as_str()))
            .collect();
        assert!(
            unlisted.is_empty(),
            "the CUDA kernel defines {unlisted:?}: give each a simulator twin of its name \
             (SHARED_NAMES) or say in KERNEL_ONLY where the simulator does its work"
        );
    }

    #[test]
    fn every_shared_name_is_defined_in_the_cuda_kernel_and_the_simulator() {
        let cuda = cuda_definitions(&cuda_sources());
        let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rtopk");
        let mut seen = BTreeSet::new();
        for &(name, file) in SHARED_NAMES {
            assert!(seen.insert(name), "{name} is listed twice");
            assert!(cuda.contains(name), "the CUDA kernel defines no function or struct {name}");
            let sim = fs::read_to_string(here.join(file)).expect("a simulator source");
            assert!(defines(&sim, name), "src/rtopk/{file} defines no fn or struct {name}");
        }
    }
}
