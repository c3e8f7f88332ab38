//! The kernel sources (`kernels/`, one header per stage and one file per launch family) and the
//! table of their entry points.
//!
//! Each [`Unit`] — one entry point, or the utilities together — is compiled as a module
//! of its own (`compile.rs`), so that a launch builds and loads only what it runs. A unit's
//! source is generated here: the constants the launcher and the kernels share as `#define`s,
//! then its family's `.cu` file with the headers it includes (each once), then its entry
//! point, written from the kernels' table. Widths, block sizes and launch bounds are written
//! once, in rtopk-plan's table (re-exported here), which the launch plan and warp-sim read
//! too.

use std::collections::HashSet;

pub use rtopk_plan::units::{
    BLOCK_CAND_CAP, BLOCK_CAND_KEYS, BLOCK_EPL, BLOCK_LOAD_STAGE_WARP, BLOCK_ROWS_BOUNDS,
    BLOCK_ROWS_NARROW_BOUNDS, BLOCK_STAGE, BLOCK_STATIC_SHARED, CAND_CAP, CLUSTER_ROWS_BOUNDS,
    ElemType, Family, IndexType, PART_ROWS, RADIX_ENTRIES, RowWidth, SORT_UNROLLED_MAX, SORT_WARPS,
    UNIT_COUNT, UTILITIES, Unit, WARP_ROWS, WARP_STAGE, sort_warp_shape,
};

use crate::CudaError;
use rtopk_plan::radix::{
    RADIX_BLOCKS_PER_SM, RADIX_DIGIT_BITS, RADIX_ITEMS, RADIX_KEEP_SHARE, RADIX_SAMPLE_EVERY,
    RADIX_SAMPLE_MARGIN, RADIX_SAMPLE_SLACK, RADIX_THREADS, RADIX_WRITE_LIST,
};
use rtopk_plan::{
    CLUSTER_CAND_KEYS, CLUSTER_GUESS_K_PER, CLUSTER_GUESS_LEVELS, CLUSTER_LOCAL_CAP,
    CLUSTER_ROUND_LEVELS, CLUSTER_WIDE_LOCAL_CAP, CLUSTER_WIDE_ROUND_LEVELS, GROUPED_WARPS,
    PICK_LOAD_BYTES, PICK_MAX_K, PICK_WARPS, WIDE_CLUSTER, WIDE_WARPS,
};

/// The `#define`s ahead of every unit's source.
fn shared_constants() -> String {
    format!(
        "#define CAND_CAP {CAND_CAP}u\n\
         #define BLOCK_CAND_KEYS {BLOCK_CAND_KEYS}\n\
         #define BLOCK_CAND_CAP (32u * BLOCK_CAND_KEYS)\n\
         #define CLUSTER_CAND_KEYS {CLUSTER_CAND_KEYS}\n\
         #define CLUSTER_CAND_CAP (32u * CLUSTER_CAND_KEYS)\n\
         #define CLUSTER_LOCAL_CAP {CLUSTER_LOCAL_CAP}u\n\
         #define CLUSTER_ROUND_LEVELS {CLUSTER_ROUND_LEVELS}\n\
         #define CLUSTER_WIDE_LOCAL_CAP {CLUSTER_WIDE_LOCAL_CAP}u\n\
         #define CLUSTER_WIDE_ROUND_LEVELS {CLUSTER_WIDE_ROUND_LEVELS}\n\
         #define CLUSTER_GUESS_K_PER {CLUSTER_GUESS_K_PER}u\n\
         #define CLUSTER_GUESS_LEVELS {CLUSTER_GUESS_LEVELS}\n\
         #define WIDE_CLUSTER {WIDE_CLUSTER}u\n\
         #define BLOCK_EPL {BLOCK_EPL}\n\
         #define WARP_STAGE {WARP_STAGE}u\n\
         #define BLOCK_STAGE {BLOCK_STAGE}u\n\
         #define BLOCK_LOAD_STAGE_WARP {BLOCK_LOAD_STAGE_WARP}u\n\
         #define GROUPED_WARPS {GROUPED_WARPS}\n\
         #define PICK_MAX_K {PICK_MAX_K}u\n\
         #define PICK_LOAD_BYTES {PICK_LOAD_BYTES}u\n\
         #define PICK_WARPS {PICK_WARPS}\n\
         #define WIDE_WARPS {WIDE_WARPS}\n\
         #define RADIX_DIGIT_BITS {RADIX_DIGIT_BITS}u\n\
         #define RADIX_THREADS {RADIX_THREADS}u\n\
         #define RADIX_ITEMS {RADIX_ITEMS}u\n\
         #define RADIX_BLOCKS_PER_SM {RADIX_BLOCKS_PER_SM}\n\
         #define RADIX_KEEP_SHARE {RADIX_KEEP_SHARE}u\n\
         #define RADIX_WRITE_LIST {RADIX_WRITE_LIST}u\n\
         #define RADIX_SAMPLE_EVERY {RADIX_SAMPLE_EVERY}u\n\
         #define RADIX_SAMPLE_MARGIN {RADIX_SAMPLE_MARGIN}u\n\
         #define RADIX_SAMPLE_SLACK {RADIX_SAMPLE_SLACK}u\n\
         {}",
        hint_window_defines()
    )
}

/// topk-ref's window tests after a hint test (`HINT_WINDOW_SHIFTS`, narrowest first) as the
/// kernels read them: `HINT_WINDOWS` tests, the w-th `HINT_WINDOW_SHIFT(w)` (a select chain:
/// the loop over them is not unrolled).
fn hint_window_defines() -> String {
    let shifts = topk_ref::bisect::HINT_WINDOW_SHIFTS;
    let [rest @ .., last] = shifts;
    let chain: String =
        rest.iter().enumerate().map(|(w, s)| format!("(w) == {w} ? {s} : ")).collect();
    format!("#define HINT_WINDOWS {}\n#define HINT_WINDOW_SHIFT(w) ({chain}{last})\n", shifts.len())
}

/// A unit's generated source (the kernels' table says what each entry point instantiates).
pub trait UnitSource {
    /// The entry point's definition, from the tables.
    fn entry_line(self) -> Option<String>;

    /// The unit's whole source: the shared constants, its family's file with the headers it
    /// includes, and its entry point.
    fn source(self, files: &KernelFiles) -> Result<String, CudaError>;
}

impl UnitSource for Unit {
    fn entry_line(self) -> Option<String> {
        // the unit's entry point, and its second where it has one: the floor's
        // (`Unit::has_floor_entry`: the same kernel with FLOOR, named `<name>_floor`) or the
        // hints' (`Unit::has_hinted_entry`: with HINTED, named `<name>_hinted`). `second`
        // says which of the two an entry is.
        let entries: &[bool] = if self.has_floor_entry() || self.has_hinted_entry() {
            &[false, true]
        } else {
            &[false]
        };
        let name = |second: bool| match second {
            true => self.entry_points().swap_remove(1),
            false => self.entry_name(),
        };
        let each = |entry: &dyn Fn(bool) -> String| {
            entries.iter().map(|&f| entry(f)).collect::<Vec<_>>().join("\n")
        };
        // the kernel's last template flags: FLOOR for the floor entry, HINTED for the hints'
        let flags = |second: bool, floor_then_hinted: &str| match second {
            false => String::new(),
            true if self.has_floor_entry() => ", true".to_string(),
            true => floor_then_hinted.to_string(),
        };
        let rows = |bounds: (u32, u32), narrows: bool| {
            let entry = |second: bool| {
                format!(
                    "extern \"C\" __global__ void __launch_bounds__({}, {}) {}(RTOPK_ARGS) \
                     {{ wait_for_previous_step(); rtopk_block_row{}<{narrows}{}>(RTOPK_PARAMS); }}",
                    bounds.0,
                    bounds.1,
                    name(second),
                    if self.is_ragged() { "_ragged" } else { "" },
                    flags(second, ", true")
                )
            };
            each(&entry)
        };
        match self.family() {
            Family::WarpRows | Family::HalfRows | Family::QuarterRows => {
                let lanes = self.family().lanes().unwrap_or(32);
                let w = self.family().widths().iter().find(|w| w.epl == self.width())?;
                let ragged_warp = self.is_ragged() && self.family() == Family::WarpRows;
                let min_blocks = if ragged_warp { w.ragged_min_blocks() } else { w.min_blocks };
                let entry = |second: bool| {
                    format!(
                        "extern \"C\" __global__ void __launch_bounds__({}, {}) {}(RTOPK_ARGS) \
                         {{ wait_for_previous_step(); rtopk_warp_rows_impl<{}, {lanes}, {}, {}{}>(RTOPK_PARAMS); }}",
                        w.warps * 32,
                        min_blocks,
                        name(second),
                        self.elems_per_lane(),
                        w.warps,
                        self.is_ragged(),
                        flags(second, ", false, true")
                    )
                };
                Some(each(&entry))
            }
            Family::BlockRows => Some(rows(BLOCK_ROWS_BOUNDS, false)),
            Family::BlockRowsNarrow => Some(rows(BLOCK_ROWS_NARROW_BOUNDS, true)),
            Family::ClusterRows | Family::ClusterRowsNarrow => {
                let entry = |second: bool| {
                    format!(
                        "extern \"C\" __global__ void __launch_bounds__({}, {}) {}(RTOPK_ARGS) \
                         {{ wait_for_previous_step(); rtopk_cluster_row{}<{}{}>(RTOPK_PARAMS); }}",
                        CLUSTER_ROWS_BOUNDS.0,
                        CLUSTER_ROWS_BOUNDS.1,
                        name(second),
                        if self.is_ragged() { "_ragged" } else { "" },
                        self.family() == Family::ClusterRowsNarrow,
                        flags(second, ", true")
                    )
                };
                Some(each(&entry))
            }
            Family::SortWarpRows => {
                let (lanes, per_lane) = sort_warp_shape(self.width());
                Some(format!(
                    "extern \"C\" __global__ void __launch_bounds__({}) {}(SORT_WARP_ARGS) \
                     {{ wait_for_previous_step(); sort_warp_row<{per_lane}, {lanes}, {}>(x, out_val, out_idx, n_rows, m, k, smallest ? -1.0f : \
                     1.0f, lengths, k_per_row); }}",
                    SORT_WARPS * 32,
                    self.entry_name(),
                    self.width() <= SORT_UNROLLED_MAX
                ))
            }
            Family::GroupedRows => Some(format!(
                "extern \"C\" __global__ void __launch_bounds__(GROUPED_WARPS * 32) {}(GROUPED_ARGS) \
                 {{ wait_for_previous_step(); rtopk_grouped_rows_impl<{}>(x, out_val, out_idx, n_rows, m, k, groups, \
                 top_groups, sum2); }}",
                self.entry_name(),
                self.width()
            )),
            Family::PickRows => Some(format!(
                "extern \"C\" __global__ void __launch_bounds__(PICK_WARPS * 32) {}(RTOPK_ARGS) \
                 {{ wait_for_previous_step(); rtopk_pick_rows_impl<{}, {}>(RTOPK_PARAMS); }}",
                self.entry_name(),
                self.width() / self.pick_lanes(),
                self.pick_lanes()
            )),
            Family::WideRows => {
                let entry = |second: bool| {
                    format!(
                        "extern \"C\" __global__ void __launch_bounds__(WIDE_WARPS * 32) {}(RTOPK_ARGS) \
                         {{ wait_for_previous_step(); rtopk_wide_rows_impl<{}, {}{}>(RTOPK_PARAMS); }}",
                        name(second),
                        self.width(),
                        self.is_ragged(),
                        flags(second, ", true")
                    )
                };
                Some(each(&entry))
            }
            Family::SortRows
            | Family::SplitGather
            | Family::Utilities
            | Family::RowThreshold
            | Family::RadixRows => None,
        }
    }

    fn source(self, files: &KernelFiles) -> Result<String, CudaError> {
        let mut out = format!("// {self}: generated by rtopk-cuda's src/kernels.rs\n");
        out.push_str(&shared_constants());
        out.push_str(&format!("typedef {} idx_t;\n", self.index_type().c_type()));
        let (elem, kind) = match self.elem_type() {
            ElemType::F32 => ("float", 0),
            ElemType::F16 => ("unsigned short", 1),
            ElemType::Bf16 => ("unsigned short", 2),
            ElemType::I8 => ("signed char", 3),
            ElemType::U8 => ("unsigned char", 4),
            ElemType::I16 => ("short", 5),
            ElemType::I32 => ("int", 6),
            ElemType::F64 => ("double", 7),
            ElemType::I64 => ("long long", 8),
        };
        out.push_str(&format!("typedef {elem} elem_t;\n#define ELEM_KIND {kind}\n"));
        inline(files, family_file(self.family()), &mut HashSet::new(), &mut out)?;
        if let Some(line) = self.entry_line() {
            out.push_str(&format!("#line 1 \"{self} (from src/kernels.rs)\"\n"));
            out.push_str(&line);
            out.push('\n');
        }
        Ok(out)
    }
}

/// The family's file in `kernels/`.
fn family_file(family: Family) -> &'static str {
    match family {
        Family::WarpRows | Family::HalfRows | Family::QuarterRows => "warp_rows.cu",
        Family::BlockRows | Family::BlockRowsNarrow => "block_rows.cu",
        Family::SortWarpRows => "sort_warp_rows.cu",
        Family::SortRows => "sort_rows.cu",
        Family::SplitGather => "split_rows.cu",
        Family::Utilities => "utilities.cu",
        Family::RowThreshold => "threshold.cu",
        Family::GroupedRows => "grouped_rows.cu",
        Family::PickRows => "pick_rows.cu",
        Family::WideRows => "wide_rows.cu",
        Family::ClusterRows | Family::ClusterRowsNarrow => "cluster_rows.cu",
        Family::RadixRows => "radix_rows.cu",
    }
}

/// Appends `name` with its `#include "..."`s inlined, each file once (`#pragma once`), with
/// `#line` directives so that the compiler's messages name the file and line.
fn inline(
    files: &KernelFiles,
    name: &str,
    seen: &mut HashSet<String>,
    out: &mut String,
) -> Result<(), CudaError> {
    if !seen.insert(name.to_string()) {
        return Ok(());
    }
    let text = files.get(name)?;
    out.push_str(&format!("#line 1 \"{name}\"\n"));
    for (i, line) in text.lines().enumerate() {
        if let Some(inc) = line.strip_prefix("#include \"").and_then(|r| r.strip_suffix('"')) {
            inline(files, inc, seen, out)?;
            out.push_str(&format!("#line {} \"{name}\"\n", i + 2));
        } else if line.trim() != "#pragma once" {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(())
}

/// The kernel files in the binary, in `kernels/`.
const EMBEDDED: [(&str, &str); 24] = [
    ("common.cuh", include_str!("../kernels/common.cuh")),
    ("order.cuh", include_str!("../kernels/order.cuh")),
    ("rows.cuh", include_str!("../kernels/rows.cuh")),
    ("load.cuh", include_str!("../kernels/load.cuh")),
    ("search.cuh", include_str!("../kernels/search.cuh")),
    ("select.cuh", include_str!("../kernels/select.cuh")),
    ("narrow.cuh", include_str!("../kernels/narrow.cuh")),
    ("floor.cuh", include_str!("../kernels/floor.cuh")),
    ("sort.cuh", include_str!("../kernels/sort.cuh")),
    ("sort_rank.cuh", include_str!("../kernels/sort_rank.cuh")),
    ("sort_merge.cuh", include_str!("../kernels/sort_merge.cuh")),
    ("warp_rows.cu", include_str!("../kernels/warp_rows.cu")),
    ("block_rows.cu", include_str!("../kernels/block_rows.cu")),
    ("sort_warp_rows.cu", include_str!("../kernels/sort_warp_rows.cu")),
    ("sort_rows.cu", include_str!("../kernels/sort_rows.cu")),
    ("split_rows.cu", include_str!("../kernels/split_rows.cu")),
    ("utilities.cu", include_str!("../kernels/utilities.cu")),
    ("threshold.cu", include_str!("../kernels/threshold.cu")),
    ("grouped_rows.cu", include_str!("../kernels/grouped_rows.cu")),
    ("pick_rows.cu", include_str!("../kernels/pick_rows.cu")),
    ("wide.cuh", include_str!("../kernels/wide.cuh")),
    ("wide_rows.cu", include_str!("../kernels/wide_rows.cu")),
    ("cluster_rows.cu", include_str!("../kernels/cluster_rows.cu")),
    ("radix_rows.cu", include_str!("../kernels/radix_rows.cu")),
];

/// The kernel files a [`crate::CudaTopK`] compiles: those in the binary
/// ([`KernelFiles::embedded`]), or a variant's directory ([`KernelFiles::from_dir`], passed to
/// [`crate::CudaTopK::with_files`]; `rtopk bench cuda --kernel-dir DIR`) to try a variant
/// without rebuilding.
#[derive(Clone, Debug)]
pub struct KernelFiles {
    files: Vec<(String, String)>,
    origin: String,
}

impl KernelFiles {
    /// The files in the binary.
    pub fn embedded() -> Self {
        let files = EMBEDDED.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
        Self { files, origin: "the binary".into() }
    }

    /// The files of `dir` (every name of `kernels/`).
    pub fn from_dir(dir: &std::path::Path) -> Result<Self, CudaError> {
        let mut files = Vec::with_capacity(EMBEDDED.len());
        for (name, _) in EMBEDDED {
            let path = dir.join(name);
            let text = std::fs::read_to_string(&path).map_err(|e| CudaError::Source {
                what: format!("cannot read {}: {e}", path.display()),
            })?;
            files.push((name.to_string(), text));
        }
        Ok(Self { files, origin: dir.display().to_string() })
    }

    fn get(&self, name: &str) -> Result<&str, CudaError> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
            .ok_or_else(|| CudaError::Source { what: format!("no kernel file {name}") })
    }

    /// Where the files come from: "the binary", or the variant's directory.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Every file, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(n, t)| (n.as_str(), t.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block sort's positions a thread and the rows that take them, which the plan's block
    /// size assumes, are the kernel's.
    #[test]
    fn the_block_sort_holds_the_plans_positions_a_thread() {
        let files = KernelFiles::embedded();
        let src = Unit::single(Family::SortRows).source(&files).unwrap();
        let epl = rtopk_plan::plan::SORT_BLOCK_EPL;
        assert_eq!(src.matches("#define SORT_BLOCK_EPL ").count(), 1);
        assert!(src.contains(&format!("#define SORT_BLOCK_EPL {epl}\n")), "SORT_BLOCK_EPL {epl}");
        let min = rtopk_plan::plan::SORT_BLOCK_REGISTERS_MIN;
        assert!(src.contains(&format!("#define SORT_BLOCK_REGISTERS_MIN {min}u\n")), "{min}");
        // the most positions in registers: SORT_BLOCK_EPL a thread of a block of 1024
        let max = rtopk_plan::plan::SORT_BLOCK_REGISTERS_MAX;
        assert_eq!(max, 1024 * epl);
        let define = "#define SORT_BLOCK_REGISTERS_MAX (1024u * SORT_BLOCK_EPL)\n";
        assert!(src.contains(define), "SORT_BLOCK_REGISTERS_MAX {max}");
    }

    /// The threshold launch's loads a lane in one batch, which the plan's lanes a row assume
    /// (`threshold_lanes_per_row`), are the kernel's.
    #[test]
    fn the_threshold_launch_loads_the_plans_batch_a_lane() {
        let files = KernelFiles::embedded();
        let src = Unit::threshold(rtopk_plan::ElemType::F32).source(&files).unwrap();
        let batch = rtopk_plan::program::THRESHOLD_BATCH;
        assert_eq!(src.matches("#define THRESHOLD_BATCH ").count(), 1);
        assert!(src.contains(&format!("#define THRESHOLD_BATCH {batch}\n")), "{batch}");
    }

    #[test]
    fn the_rank_sort_sizes_its_lanes_as_the_plan_sizes_its_block() {
        let files = KernelFiles::embedded();
        let src = Unit::single(Family::SortRows).source(&files).unwrap();
        let threads = rtopk_plan::plan::SORT_RANK_THREADS;
        assert_eq!(src.matches("#define SORT_RANK_THREADS ").count(), 1);
        assert!(src.contains(&format!("#define SORT_RANK_THREADS {threads}u\n")), "{threads}");
        let held = rtopk_plan::plan::SORT_RANK_HELD;
        assert_eq!(src.matches("#define SORT_RANK_HELD ").count(), 1);
        assert!(src.contains(&format!("#define SORT_RANK_HELD {held}\n")), "{held}");
    }

    #[test]
    fn a_units_source_has_its_files_once_and_its_entry_point_last() {
        let files = KernelFiles::embedded();
        let src = Unit::row(Family::WarpRows, 7).source(&files).unwrap();
        assert!(src.starts_with("// rtopk_warp_rows_24: generated"));
        assert!(src.contains("#define CAND_CAP 128u\n"));
        assert!(src.contains("#define BLOCK_CAND_CAP (32u * BLOCK_CAND_KEYS)\n"));
        assert!(src.contains("#define CLUSTER_CAND_KEYS 32\n"));
        assert!(src.contains("#define CLUSTER_LOCAL_CAP 4096u\n"));
        assert!(src.contains("#define CLUSTER_WIDE_LOCAL_CAP 8192u\n"));
        assert!(src.contains("#define CLUSTER_WIDE_ROUND_LEVELS 5\n"));
        assert!(src.contains("#define CLUSTER_GUESS_K_PER 80u\n"));
        assert!(src.contains("#define CLUSTER_GUESS_LEVELS 5\n"));
        assert!(src.contains("#define WIDE_CLUSTER 16u\n"));
        // topk-ref's window shifts, narrowest first
        assert!(src.contains("#define HINT_WINDOWS 3\n"));
        assert!(src.contains("#define HINT_WINDOW_SHIFT(w) ((w) == 0 ? 10 : (w) == 1 ? 7 : 4)\n"));
        assert_eq!(src.matches("struct Params {").count(), 1, "common.cuh inlined once");
        assert!(!src.contains("#include") && !src.contains("#pragma once"));
        let last = src.trim_end().lines().last().unwrap();
        assert_eq!(
            last,
            "extern \"C\" __global__ void __launch_bounds__(256, 5) rtopk_warp_rows_24(RTOPK_ARGS) \
             { wait_for_previous_step(); rtopk_warp_rows_impl<24, 32, 8, false>(RTOPK_PARAMS); }"
        );
        let half = Unit::row(Family::HalfRows, 7).source(&files).unwrap();
        assert!(half.contains("__launch_bounds__(256, 4) rtopk_half_rows_24(RTOPK_ARGS)"));
        assert!(half.contains("rtopk_warp_rows_impl<24, 16, 8, false>"));
        let narrow = Unit::single(Family::BlockRowsNarrow).source(&files).unwrap();
        assert!(narrow.contains(
            "__launch_bounds__(256, 4) rtopk_block_rows_narrow(RTOPK_ARGS) \
             { wait_for_previous_step(); rtopk_block_row<true>(RTOPK_PARAMS); }"
        ));
        let twin = Unit::single(Family::BlockRowsNarrow).with_ragged(true).source(&files).unwrap();
        assert!(twin.contains(
            "__launch_bounds__(256, 4) rtopk_block_rows_narrow_ragged_hinted(RTOPK_ARGS) \
             { wait_for_previous_step(); rtopk_block_row_ragged<true, true>(RTOPK_PARAMS); }"
        ));
        let util = Unit::single(Family::Utilities).source(&files).unwrap();
        for entry in UTILITIES {
            assert!(util.contains(&format!("void {entry}(")), "{entry}");
        }
    }

    /// Every ragged twin has two entry points, the second `<name>_hinted` and the only one that
    /// instantiates its kernel with HINTED (the first entry's template arguments, then FLOOR
    /// false where the kernel has one, then HINTED true; the first leaves HINTED at its
    /// default, false): a ragged launch without hints runs code without the hint search
    /// (`Unit::has_hinted_entry`).
    #[test]
    fn only_the_hinted_entry_points_compile_the_hint_search() {
        let files = KernelFiles::embedded();
        let twins: Vec<Unit> = Unit::all().into_iter().filter(|u| u.is_ragged()).collect();
        assert!(twins.len() > 100, "{}", twins.len());
        for unit in twins {
            let entries = unit.entry_points();
            assert_eq!(entries, [unit.entry_name(), format!("{}_hinted", unit.entry_name())]);
            let src = unit.source(&files).unwrap();
            let line = |entry: &str| {
                let at = src.find(&format!(" {entry}(RTOPK_ARGS)")).unwrap();
                src[at..].lines().next().unwrap().to_string()
            };
            let args = |line: &str| {
                let end = line.find(">(RTOPK_PARAMS)").unwrap();
                line[line[..end].rfind('<').unwrap() + 1..end].to_string()
            };
            let (plain, hinted) = (args(&line(&entries[0])), args(&line(&entries[1])));
            let tail = hinted.strip_prefix(&plain).unwrap_or_else(|| panic!("{unit}: {hinted}"));
            assert!(matches!(tail, ", true" | ", false, true"), "{unit}: {plain} / {hinted}");
        }
        for unit in Unit::all().into_iter().filter(|u| !u.is_ragged()) {
            assert!(!unit.has_hinted_entry(), "{unit}");
            assert!(unit.entry_points().iter().all(|e| !e.ends_with("_hinted")), "{unit}");
        }
    }

    /// A whole-warp row's ragged twin of 12 to 24 keys per lane takes one block per SM fewer
    /// than its plain unit (RowWidth::ragged_min_blocks); the part-warp twins and the other
    /// widths keep the plain bound.
    #[test]
    fn the_ragged_warp_rows_take_one_block_fewer_from_12_to_24_keys() {
        let files = KernelFiles::embedded();
        let bound = |unit: Unit| {
            let src = unit.source(&files).unwrap();
            let at = src.find(&format!(" {}(RTOPK_ARGS)", unit.entry_name())).unwrap();
            let line = &src[src[..at].rfind("__launch_bounds__(").unwrap()..at];
            line.to_string()
        };
        for (which, w) in WARP_ROWS.iter().enumerate() {
            let plain = Unit::row(Family::WarpRows, which);
            let twin = plain.with_ragged(true);
            let fewer = (12..=24).contains(&w.epl);
            let blocks = if fewer { w.min_blocks - 1 } else { w.min_blocks };
            assert_eq!(
                bound(plain),
                format!("__launch_bounds__({}, {})", w.warps * 32, w.min_blocks)
            );
            assert_eq!(bound(twin), format!("__launch_bounds__({}, {blocks})", w.warps * 32));
        }
        let quarter = Unit::row(Family::QuarterRows, 9).with_ragged(true);
        assert_eq!(bound(quarter), "__launch_bounds__(256, 4)");
    }

    /// Each step unit's (every unit but the utilities') entry points: the unit, its source,
    /// the entry's name and where the name stands in the source.
    fn step_entry_points() -> Vec<(Unit, String, String, usize)> {
        let files = KernelFiles::embedded();
        let mut out = Vec::new();
        for unit in Unit::all().into_iter().filter(|u| u.family() != Family::Utilities) {
            let src = unit.source(&files).unwrap();
            for entry in unit.entry_points() {
                let at = src.find(&format!(" {entry}(")).unwrap();
                out.push((unit, src.clone(), entry, at));
            }
        }
        assert!(out.len() > 100, "{} entry points", out.len());
        out
    }

    /// The launcher lets a program's later steps start launching before the step ahead of
    /// them ends (launch.rs, `Launcher::launch`): so every entry point but the utilities'
    /// waits for the previous step before its first memory access. The body's first
    /// statement (after a shared-memory declaration) is the wait.
    #[test]
    fn every_step_entry_point_waits_for_the_previous_step_first() {
        for (unit, src, entry, at) in step_entry_points() {
            let body = &src[at + src[at..].find('{').unwrap() + 1..];
            let first = body
                .split(';')
                .map(str::trim)
                .find(|s| !s.starts_with("extern __shared__"))
                .unwrap();
            assert_eq!(first, "wait_for_previous_step()", "{unit}: {entry}");
        }
    }

    /// Every entry point but the utilities' (a few registers each) declares a launch bound,
    /// so that ptxas holds its registers to what a block of the most threads the plan gives it
    /// finds on an SM: an unbounded kernel may take more, and its widest launches then fail
    /// (`CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`; the 16-bit block sorts took 68-72 registers).
    #[test]
    fn every_step_entry_point_declares_a_launch_bound() {
        for (unit, src, entry, at) in step_entry_points() {
            let head = &src[src[..at].rfind("extern \"C\" __global__").unwrap()..at];
            assert!(head.contains("__launch_bounds__("), "{unit}: {entry}");
        }
    }

    /// The bounds of the entry points the plan launches with its own block sizes: the sorts'
    /// most threads and the gather's threads.
    #[test]
    fn the_sort_and_gather_bounds_are_the_plans_block_sizes() {
        let files = KernelFiles::embedded();
        let sort = Unit::single(Family::SortRows).source(&files).unwrap();
        let most = rtopk_plan::plan::SORT_MAX_THREADS;
        assert!(sort.contains(&format!("#define SORT_MAX_THREADS {most}u\n")), "{most}");
        assert!(sort.contains("__launch_bounds__(SORT_MAX_THREADS)\n    rtopk_sort_rows("));
        let gather = Unit::single(Family::SplitGather).source(&files).unwrap();
        let threads = rtopk_plan::program::GATHER_THREADS;
        assert!(gather.contains(&format!("#define GATHER_THREADS {threads}u\n")), "{threads}");
        assert!(gather.contains("__launch_bounds__(GATHER_THREADS)\n    rtopk_split_gather("));
    }

    /// Every entry point of the old single-file kernel is some unit's, and every unit's
    /// entry point is defined exactly once in its source.
    #[test]
    fn every_entry_point_is_defined_once_in_its_units_source() {
        let files = KernelFiles::embedded();
        for unit in Unit::all() {
            let src = unit.source(&files).unwrap();
            for entry in unit.entry_points() {
                let defs = src.matches(&format!(" {entry}(")).count();
                assert_eq!(defs, 1, "{unit}: {entry}");
            }
            assert_eq!(src.matches("extern \"C\" __global__").count(), unit.entry_points().len());
        }
    }

    #[test]
    fn the_kernel_files_cite_no_run_logs() {
        for (name, text) in KernelFiles::embedded().iter() {
            for bad in ["results/", "session", "recheck", "torch_compare"] {
                assert!(!text.contains(bad), "{name} cites {bad}");
            }
        }
    }
}
