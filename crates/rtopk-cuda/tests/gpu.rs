//! The CUDA kernel against topk-ref's `bisect` and, launch family by launch family, warp-sim's
//! kernel running the same plan: bit-identical values, identical indices and iteration
//! counts.
//! GPU tests are `#[ignore]`d in `cargo test`; run them on a GPU machine with
//! `cargo test -p rtopk-cuda --release -- --include-ignored`.

use ndarray::{Array1, Array2};
use rtopk_cuda::{CudaError, CudaTopK, ElemType, Launch, Strategy, check_driver, check_libraries};
use rtopk_plan::{CLUSTER_MAX_ROW, CLUSTER_NARROW_MAX_K, CLUSTER_NARROW_MIN_ROW, WIDE_CLUSTER};
use rtopk_tools::verify::{CHECKED_FAMILIES, Reference, WIDTHS, check_all, difference, matrix};
use topk_ref::{Bisect, Mode, Options, RowTopK, TopK, TopKError, topk_rows};
use warp_sim::{KernelArgs, SimConfig, Simulator, launch_parallel};

fn bisect_reference(b: Bisect) -> Box<dyn RowTopK> {
    Box::new(b)
}

/// An exact f32 launch of the largest k, unsorted.
fn f32_launch(n: usize, m: usize, k: usize) -> Launch {
    let bisect = Bisect::exact();
    Launch { n, m, k, mode: Mode::Largest, bisect, sorted: false, elem: ElemType::F32 }
}

/// The simulator's result for `x` with the GPU's plan (strategy, sorted output, the device's
/// limits), and the kernel it ran.
fn simulated(
    gpu: &CudaTopK,
    x: &Array2<f32>,
    k: usize,
    opts: Options,
    bisect: Bisect,
    strategy: Strategy,
) -> (TopK, String) {
    let (n, m) = x.dim();
    let args = KernelArgs { n, m, k, mode: opts.mode, bisect, mutant: None };
    let config =
        SimConfig { strategy, sorted: opts.sorted, limits: gpu.limits(), ..SimConfig::default() };
    let r = launch_parallel(x.as_slice().unwrap(), &args, config).unwrap();
    assert!(r.summary.is_empty(), "the simulator reports {}", r.summary);
    let topk = TopK {
        values: Array2::from_shape_vec((n, k), r.values).unwrap(),
        indices: Array2::from_shape_vec((n, k), r.indices).unwrap(),
        iterations: Some(Array1::from_vec(r.iterations)),
    };
    (topk, r.plan.unit.to_string())
}

/// The simulator's indices for `x` in exact mode with the GPU's plan where nobody asks for the
/// counts (the launch of `topk_rows_counted(.., false)`), no finding allowed.
fn uncounted_indices<E: topk_ref::Element>(
    gpu: &CudaTopK,
    x: &Array2<E>,
    k: usize,
    opts: Options,
) -> Vec<u32> {
    let (n, m) = x.dim();
    let args = KernelArgs { n, m, k, mode: opts.mode, bisect: Bisect::exact(), mutant: None };
    let config = SimConfig {
        sorted: opts.sorted,
        counts: false,
        limits: gpu.limits(),
        ..SimConfig::default()
    };
    let sim = launch_parallel(x.as_slice().unwrap(), &args, config).unwrap();
    assert!(sim.summary.is_empty(), "the simulator reports {}", sim.summary);
    sim.indices
}

/// The GPU against `bisect` and the simulator on every width of the equivalence check, every
/// family, k, search and mode, in one element type: every launch family of `CHECKED_FAMILIES`
/// must have run (rtopk-tools' unit test checks that the plan takes each of them on an H100's
/// limits). The check's quick size (`rtopk verify cuda --quick`: 2^16 elements a case, 5.7
/// million rows a type) takes a minute or two a type on a 16-core host; the full size (`rtopk
/// verify cuda`, 2^21 a case) about eight times as many elements, more than one device call
/// may run.
fn every_family_in(elem: ElemType) {
    let mut gpu = CudaTopK::new(0).expect("a CUDA device");
    let refs: [Reference<'_>; 1] = [("bisect", &bisect_reference)];
    let report = check_all(&mut gpu, &WIDTHS, 1 << 16, &refs, &[elem]).unwrap();
    assert!(report.mismatches.is_empty(), "{:#?}\n{report}", report.mismatches);
    assert!(report.rows >= 5_000_000, "only {} rows", report.rows);
    let families: Vec<&str> = report.families.iter().map(|f| f.family.as_str()).collect();
    for family in CHECKED_FAMILIES {
        let family = format!("{family}{}", elem.suffix());
        assert!(families.contains(&family.as_str()), "no case ran {family}:\n{report}");
    }
}

/// One `#[ignore]`d test of [`every_family_in`] a type, so that each runs in a call of its own.
macro_rules! every_family_tests {
    ($($name:ident: $elem:expr),* $(,)?) => {$(
        #[test]
        #[ignore = "needs a CUDA GPU"]
        fn $name() {
            every_family_in($elem);
        }
    )*};
}

every_family_tests! {
    every_family_f32_matches_bisect_and_the_simulator: ElemType::F32,
    every_family_f16_matches_bisect_and_the_simulator: ElemType::F16,
    every_family_bf16_matches_bisect_and_the_simulator: ElemType::Bf16,
    every_family_i8_matches_bisect_and_the_simulator: ElemType::I8,
    every_family_u8_matches_bisect_and_the_simulator: ElemType::U8,
    every_family_i16_matches_bisect_and_the_simulator: ElemType::I16,
    every_family_i32_matches_bisect_and_the_simulator: ElemType::I32,
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn partial_blocks_zero_rows_and_zero_k() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    for n in [0, 1, 7, 9, 17] {
        for m in [50, 1500] {
            let x = matrix(n, m, "nan-inf", n as u64);
            for k in [0, 3, m] {
                let want = topk_rows(&Bisect::exact(), x.view(), k, Options::default()).unwrap();
                let got = gpu.topk_rows(x.view(), k, Options::default(), Bisect::exact()).unwrap();
                assert_eq!(got.indices, want.indices, "n={n} m={m} k={k}");
                assert_eq!(got.iterations, want.iterations, "n={n} m={m} k={k}");
            }
        }
    }
    let x = matrix(4, 10, "normal", 1);
    assert!(matches!(
        gpu.topk_rows(x.view(), 11, Options::default(), Bisect::exact()),
        Err(CudaError::TopK(_))
    ));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn sorted_output_is_sorted_on_the_device_in_both_sort_paths() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    // k around the sort's power-of-two and shared-memory boundaries; rows per block from 128
    // (k = 2..4) to 1, partial last blocks; ties and NaN/±inf/-0 rows in both modes. On an
    // H100 or H200 the block sort holds up to 8192 positions in registers and 16384 in the
    // opt-in shared memory (rtopk_plan::plan::sort_shared_most), 32768 in place in L2; few rows
    // past k = 4096 take the merge sort (runs of 2048 to 8192 on up to 16 blocks a row), and
    // one row of 131073 (runs past 8192 on 16 blocks) the block sort in place.
    for (n, m, ks) in [
        (33, 40, &[2, 3, 4, 5, 31, 32, 33, 40][..]),
        (3, 9000, &[300, 1000, 1024, 1025, 4096, 4097, 9000]),
        (2, 40_000, &[8192, 8193, 16_384, 16_385]),
        (1, 140_000, &[2049, 40_000, 131_072, 131_073]),
    ] {
        for family in ["ties", "nan-inf"] {
            let x = matrix(n, m, family, m as u64);
            for &k in ks {
                let sorted = Launch { sorted: true, ..f32_launch(n, m, k) };
                let shape = gpu.plan(&sorted, Strategy::Auto).unwrap().sort.and_then(|s| s.shape);
                let most = rtopk_plan::plan::sort_shared_most(&gpu.limits());
                if let Some(s) = shape.filter(|s| s.parts == 1) {
                    assert_eq!(s.in_shared, s.pow2 as usize <= most, "k={k} {s:?}");
                }
                // these rows' clusters fit the SMs: the merge sort wherever its runs do
                let merges = shape.is_some_and(|s| s.merges);
                let blocks = gpu.limits().max_cluster;
                let runs = k.next_power_of_two() <= 8192 * blocks;
                assert_eq!(merges, blocks > 1 && k > 4096 && runs, "k={k} {shape:?}");
                for mode in [Mode::Largest, Mode::Smallest] {
                    let opts = Options { mode, sorted: true };
                    let want = topk_rows(&Bisect::exact(), x.view(), k, opts).unwrap();
                    let got = gpu.topk_rows(x.view(), k, opts, Bisect::exact()).unwrap();
                    let case = format!("n={n} m={m} k={k} {family} {mode:?}");
                    assert_eq!(got.indices, want.indices, "{case}");
                    assert_eq!(
                        got.values.mapv(f32::to_bits),
                        want.values.mapv(f32::to_bits),
                        "{case}"
                    );
                }
            }
        }
    }
}

/// The sorted output of f16 and bf16 rows on every sort path: the warp sorts, the block sort in
/// shared memory, in registers (blocks of up to 1024 threads: 140 rows of k = 8192, too many
/// for the merge sort's clusters) and in place, the rank sort and the merge sort — bisect's
/// values and indices, bit for bit, in both modes.
#[test]
#[ignore = "needs a CUDA GPU"]
fn sixteen_bit_rows_sort_on_the_device_in_every_sort_path() {
    use topk_ref::{bf16, f16};

    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let mut threads = 0;
    for (n, m, ks) in [
        (33, 40, &[2, 5, 33, 40][..]),
        (3, 9000, &[300, 1024, 1025, 2047, 2048, 4096, 4097, 8192, 9000]),
        (140, 8200, &[8192]),
        (2, 40_000, &[8193, 16_384, 16_385, 40_000]),
        (1, 140_000, &[131_073]),
    ] {
        for family in ["ties", "nan-inf"] {
            let x = matrix(n, m, family, m as u64);
            for &k in ks {
                let sorted = Launch { sorted: true, elem: ElemType::Bf16, ..f32_launch(n, m, k) };
                let sort = gpu.plan(&sorted, Strategy::Auto).unwrap().sort.unwrap();
                threads = threads.max(sort.block);
                for (ki, mode) in [Mode::Largest, Mode::Smallest].into_iter().enumerate() {
                    let opts = Options { mode, sorted: true };
                    let case = format!("n={n} m={m} k={k} {family} {mode:?}");
                    if ki == 0 {
                        check_sorted(
                            &gpu,
                            &x.mapv(bf16::from_f32),
                            k,
                            opts,
                            &format!("bf16 {case}"),
                        );
                    } else {
                        check_sorted(&gpu, &x.mapv(f16::from_f32), k, opts, &format!("f16 {case}"));
                    }
                }
            }
        }
    }
    assert_eq!(threads, 1024, "no sort took blocks of 1024 threads");
}

/// `gpu`'s sorted top k of `x` against bisect's, values bit for bit.
fn check_sorted<E: rtopk_cuda::DeviceElement>(
    gpu: &CudaTopK,
    x: &Array2<E>,
    k: usize,
    opts: Options,
    case: &str,
) where
    Bisect: topk_ref::RowTopKOf<E>,
{
    let want = topk_rows(&Bisect::exact(), x.view(), k, opts).unwrap();
    let got =
        gpu.topk_rows(x.view(), k, opts, Bisect::exact()).unwrap_or_else(|e| panic!("{case}: {e}"));
    assert_eq!(difference(&got, &want), None, "{case}");
}

/// A launch planned for one element type on buffers of another is refused with a typed error
/// (the plan depends on the type: a 16-bit row packs two elements per register).
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_launch_of_another_element_type_is_refused() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let s = gpu.stream();
    let (n, m, k) = (2, 64, 4);
    let x = s.alloc_zeros::<f32>(n * m).unwrap();
    let mut val = s.alloc_zeros::<f32>(n * k).unwrap();
    let mut idx = s.alloc_zeros::<u32>(n * k).unwrap();
    let mut it = s.alloc_zeros::<u32>(n).unwrap();
    let (mode, bisect) = (Mode::Largest, Bisect::exact());
    let launch = Launch { n, m, k, mode, bisect, sorted: false, elem: ElemType::F16 };
    match gpu.select_device(&launch, &x, &mut val, &mut idx, &mut it) {
        Err(CudaError::TopK(TopKError::InvalidParameter { name: "elem", reason })) => {
            assert!(reason.contains("F16") && reason.contains("F32"), "{reason}");
        }
        other => panic!("a float32 buffer under an f16 launch: {other:?}"),
    }
    let launch = Launch { elem: ElemType::F32, ..launch };
    gpu.select_device(&launch, &x, &mut val, &mut idx, &mut it).unwrap();
}

/// `time_ms` queues the timed launch behind a spin kernel, so it reads less than the same
/// launch timed from an idle GPU; a host slower than the longest spin is an error, not a figure.
#[test]
#[ignore = "needs a CUDA GPU"]
fn timing_leaves_the_host_out_or_says_it_cannot() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let (n, m, k) = (64, 256, 8);
    let x = matrix(n, m, "normal", 3);
    let s = gpu.stream();
    let dx = s.clone_htod(x.as_slice().unwrap()).unwrap();
    let mut val = s.alloc_zeros::<f32>(n * k).unwrap();
    let mut idx = s.alloc_zeros::<u32>(n * k).unwrap();
    let mut it = s.alloc_zeros::<u32>(n).unwrap();
    let (mode, bisect, elem) = (Mode::Largest, Bisect::exact(), ElemType::F32);
    let launch = Launch { n, m, k, mode, bisect, sorted: false, elem };
    // built ahead: a build inside the timed work would be host time
    gpu.prepare(&gpu.plan(&launch, Strategy::Auto).unwrap().units()).unwrap();
    let mut run = || gpu.select_device(&launch, &dx, &mut val, &mut idx, &mut it);
    let median = |mut t: Vec<f64>| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    };
    let queued = median((0..21).map(|_| gpu.time_ms(&mut run).unwrap()).collect());
    let idle = median((0..21).map(|_| gpu.time_ms_idle_start(&mut run).unwrap()).collect());
    assert!(queued > 0.0 && queued < idle, "queued {queued} ms, idle start {idle} ms");
    let slow_host = || {
        std::thread::sleep(std::time::Duration::from_millis(20));
        Ok(())
    };
    assert!(matches!(gpu.time_ms(slow_host), Err(CudaError::Timing { .. })));
}

/// A host view that is not one row-major block (columns sliced off, or transposed) gives the
/// same results as its row-major copy.
#[test]
#[ignore = "needs a CUDA GPU"]
fn views_that_are_not_row_major_are_gathered_first() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let x = matrix(40, 301, "ties", 5);
    let sliced = x.slice(ndarray::s![.., 1..]);
    let t = matrix(300, 24, "normal", 6);
    for view in [sliced, t.t()] {
        assert!(view.as_slice().is_none(), "the view is not row-major");
        let got = gpu.topk_rows(view, 9, Options::default(), Bisect::exact()).unwrap();
        let want = topk_rows(&Bisect::exact(), view.to_owned().view(), 9, Options::default());
        assert_eq!(difference(&got, &want.unwrap()), None);
    }
}

/// Every strategy gives bisect's results, and the simulator's running the same kernel,
/// wherever it can hold the row, and says why not elsewhere: every family at every width it
/// takes (not only the widths the defaults give it), every k regime, exact and early
/// stopping, both modes, sorted or not.
#[test]
#[ignore = "needs a CUDA GPU"]
fn every_strategy_matches_bisect_where_it_holds_the_shape() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let widths = [
        1, 7, 33, 100, 256, 257, 300, 512, 513, 1000, 1024, 1025, 2047, 3072, 3073, 5001, 8192,
        10_000,
    ];
    let mut checked = 0;
    for (wi, &m) in widths.iter().enumerate() {
        let x = matrix(37, m, ["nan-inf", "ties", "normal"][wi % 3], m as u64);
        // the split strategy has cases of its own (verify::SPLIT_CASES), the radix select too
        // (radix_rows_match_bisect_and_the_simulator)
        let own = [Strategy::Split, Strategy::Radix];
        for strategy in Strategy::ALL.into_iter().filter(|s| !own.contains(s)) {
            let ks = [1, (m / 8).max(1), (m / 4).max(1), m / 2, m];
            for (ki, &k) in ks.iter().enumerate() {
                let recall = Bisect::with_recall(0.9).unwrap();
                for bisect in [Bisect::exact(), Bisect::early_stopping(3), recall] {
                    let mode = if (ki + wi) % 2 == 0 { Mode::Largest } else { Mode::Smallest };
                    let opts = Options { mode, sorted: ki % 2 == 1 };
                    let case = format!("{strategy} m={m} k={k} {bisect:?} {opts:?}");
                    match gpu.topk_rows_with(x.view(), k, opts, bisect, strategy) {
                        Ok(got) => {
                            let want = topk_rows(&bisect, x.view(), k, opts).unwrap();
                            assert_eq!(difference(&got, &want), None, "{case}");
                            let (sim, unit) = simulated(&gpu, &x, k, opts, bisect, strategy);
                            let sorted = opts.sorted;
                            let launch =
                                Launch { n: 37, m, k, mode, bisect, sorted, elem: ElemType::F32 };
                            let planned = gpu.plan(&launch, strategy).unwrap().unit.to_string();
                            assert_eq!(unit, planned, "{case}: the same kernel");
                            assert_eq!(difference(&got, &sim), None, "{case}: warp-sim ({unit})");
                            checked += 1;
                        }
                        Err(CudaError::Strategy { max_row, .. }) => {
                            assert!(m > max_row && m > strategy.max_row(ElemType::F32), "{case}");
                        }
                        Err(e) => panic!("{case}: {e}"),
                    }
                }
            }
        }
    }
    // quarter: 5 widths, half: 8, warp: 14, block and auto: 18 (5 k, 3 searches each)
    assert_eq!(checked, (5 + 8 + 14 + 18 + 18) * 5 * 3);
}

/// Several threads launching on one CudaTopK at once (each first launch building its unit
/// while the others build theirs or run) get the results they would alone.
#[test]
#[ignore = "needs a CUDA GPU"]
fn concurrent_launches_from_several_threads_on_one_device() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let shapes = [
        (300, 5),
        (300, 5),
        (100, 20),
        (1000, 900),
        (5000, 64),
        (70_000, 513),
        (40, 40),
        (2048, 100),
    ];
    std::thread::scope(|scope| {
        for (t, &(m, k)) in shapes.iter().enumerate() {
            let gpu = &gpu;
            scope.spawn(move || {
                let x = matrix(19 + t, m, "nan-inf", t as u64);
                for round in 0..3 {
                    let opts = Options { mode: Mode::Smallest, sorted: round == 1 };
                    let got = gpu.topk_rows(x.view(), k, opts, Bisect::exact()).unwrap();
                    let want = topk_rows(&Bisect::exact(), x.view(), k, opts).unwrap();
                    assert_eq!(difference(&got, &want), None, "thread {t} m={m} k={k} {round}");
                }
            });
        }
    });
    let loaded: Vec<String> = gpu.unit_reports().iter().map(|u| u.unit.to_string()).collect();
    let mut distinct = loaded.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), loaded.len(), "each unit loaded once: {loaded:?}");
}

/// Opening a device compiles nothing; a first launch builds and loads the one unit it runs,
/// and a sorted launch adds its sort's.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_first_launch_builds_only_the_unit_it_runs() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    assert!(gpu.unit_reports().is_empty(), "opening the device built nothing");
    let names = |gpu: &CudaTopK| -> Vec<String> {
        gpu.unit_reports().iter().map(|u| u.unit.to_string()).collect()
    };
    let x = matrix(8, 300, "normal", 8);
    gpu.topk_rows(x.view(), 5, Options::default(), Bisect::exact()).unwrap();
    assert_eq!(names(&gpu), ["rtopk_warp_rows_12"]);
    let sorted = Options { mode: Mode::Largest, sorted: true };
    gpu.topk_rows(x.view(), 5, sorted, Bisect::exact()).unwrap();
    assert_eq!(names(&gpu), ["rtopk_warp_rows_12", "rtopk_sort_warp_rows_8"]);
    let report = &gpu.unit_reports()[0];
    assert!(report.bytes > 0 && report.load_ms >= 0.0, "{report:?}");
    assert_eq!(report.kind, gpu.target().kind);
}

/// The kernel files with `mark` appended to `common.cuh` (every unit includes it): units of
/// their own, which no other test of the process has loaded.
fn marked_files(dir: &std::path::Path, mark: &str) -> rtopk_cuda::kernels::KernelFiles {
    for (name, text) in rtopk_cuda::kernels::KernelFiles::embedded().iter() {
        let text =
            if name == "common.cuh" { format!("{text}\n// {mark}\n") } else { text.to_string() };
        std::fs::write(dir.join(name), text).unwrap();
    }
    rtopk_cuda::kernels::KernelFiles::from_dir(dir).unwrap()
}

/// A unit shipped for the device's architecture (`rtopk prepare --arch --out`) is loaded from
/// there, not compiled, and gives the same answer; shipped units of other kernel files are not
/// used for these.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_shipped_unit_is_loaded_instead_of_compiled() {
    use rtopk_cuda::CacheUse;
    use rtopk_cuda::kernels::Unit;
    use rtopk_cuda::shipped;
    let scratch = tempfile::tempdir().unwrap();
    let (files_dir, units_dir) = (scratch.path().join("kernels"), scratch.path().join("units"));
    std::fs::create_dir_all(&files_dir).unwrap();
    let files = marked_files(&files_dir, "a_shipped_unit_is_loaded_instead_of_compiled");
    let gpu = CudaTopK::with_files(0, files.clone()).expect("a CUDA device");
    let unit = Unit::all().into_iter().find(|u| u.to_string() == "rtopk_warp_rows_12").unwrap();
    let arch = gpu.target().arch.clone();
    let built =
        shipped::build_units(&units_dir, std::slice::from_ref(&arch), &files, &[unit], false)
            .expect("NVRTC builds the unit");
    assert_eq!((built[0].units, built[0].removed), (1, 0));
    shipped::add_dir(&units_dir);
    let x = matrix(8, 300, "normal", 8);
    let got = gpu.topk_rows(x.view(), 5, Options::default(), Bisect::exact()).unwrap();
    let report = &gpu.unit_reports()[0];
    assert_eq!(report.unit.to_string(), "rtopk_warp_rows_12");
    assert_eq!(report.cache, CacheUse::Shipped, "{report:?}");
    assert_eq!(report.arch, arch);
    let want = topk_rows(&Bisect::exact(), x.view(), 5, Options::default()).unwrap();
    assert_eq!((got.values, got.indices), (want.values, want.indices));
    // other kernel files: the shipped unit is another build's, so this one compiles
    let other_dir = scratch.path().join("other");
    std::fs::create_dir_all(&other_dir).unwrap();
    let other = CudaTopK::with_files(0, marked_files(&other_dir, "other files")).unwrap();
    other.topk_rows(x.view(), 5, Options::default(), Bisect::exact()).unwrap();
    let report = &other.unit_reports()[0];
    assert!(matches!(report.cache, CacheUse::Compiled | CacheUse::Disk), "{report:?}");
}

/// On a machine without a CUDA driver (CI), opening a device is an error, not a panic. NVRTC
/// is not needed to open one: only to compile the units that are not shipped.
#[test]
fn without_a_driver_opening_a_device_is_an_error() {
    match check_driver() {
        Err(e) => {
            assert!(matches!(e, CudaError::NoDriver), "{e}");
            assert!(matches!(check_libraries(), Err(CudaError::NoDriver)));
            let opened = CudaTopK::new(0);
            assert!(matches!(opened, Err(CudaError::NoDriver)));
            assert!(opened.err().unwrap().to_string().contains("found"));
        }
        Ok(()) => {
            // A GPU machine: the device must open (this is what the ignored tests rely on).
            CudaTopK::new(0).expect("a driver present, so the device must open");
        }
    }
}

/// Rows of every 16-bit pattern (all 65,536, shuffled: every NaN payload and sign, ±inf, ±0,
/// subnormals), and 16-bit rows of few distinct values (ties everywhere), in f16 and bf16:
/// the GPU gives bisect's values (the input's bits), indices and iteration counts in every
/// family that holds the row, and split rows give its values and indices.
/// Every strategy that holds `x`'s rows, k in {1, 7, M/3, M-1, M}, exact, early stopping and
/// a recall target (split rows: exact only), both modes, sorted or not: the GPU's values,
/// indices and iteration counts are bisect's, and in exact mode its values and indices without
/// counts too; how many cases ran.
fn check_every_strategy<E: rtopk_cuda::DeviceElement>(
    gpu: &CudaTopK,
    x: &Array2<E>,
    label: &str,
) -> usize
where
    Bisect: topk_ref::RowTopKOf<E>,
{
    let (n, m) = x.dim();
    let mut checked = 0;
    for strategy in Strategy::ALL {
        for (ki, k) in [1, 7, m / 3, m - 1, m].into_iter().enumerate() {
            if k == 0 || k > m {
                continue;
            }
            let recall = Bisect::with_recall(0.8).unwrap();
            for bisect in [Bisect::exact(), Bisect::early_stopping(4), recall] {
                if strategy == Strategy::Split && bisect != Bisect::exact() {
                    continue;
                }
                let mode = if ki % 2 == 0 { Mode::Largest } else { Mode::Smallest };
                let opts = Options { mode, sorted: ki % 3 == 1 };
                let case = format!("{label} n={n} m={m} {strategy} k={k} {bisect:?} {opts:?}");
                match gpu.topk_rows_with(x.view(), k, opts, bisect, strategy) {
                    Ok(got) => {
                        let want = topk_rows(&bisect, x.view(), k, opts).unwrap();
                        assert_eq!(difference(&got, &want), None, "{case}");
                        checked += 1;
                        // without counts (a 16-bit row's value phase ends at adjacent
                        // keys): the same values and indices
                        if bisect == Bisect::exact() && strategy != Strategy::Split {
                            let uncounted = gpu
                                .topk_rows_counted(x.view(), k, opts, bisect, strategy, false)
                                .unwrap();
                            assert_eq!(difference(&uncounted, &want), None, "{case}, no counts");
                        }
                    }
                    Err(CudaError::Strategy { .. } | CudaError::Split { .. }) => {}
                    Err(e) => panic!("{case}: {e}"),
                }
            }
        }
    }
    checked
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn sixteen_bit_rows_match_bisect_in_every_strategy() {
    use rand::seq::SliceRandom;
    use rand::{RngExt, SeedableRng};
    use topk_ref::{bf16, f16};

    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let mut rng = rand::rngs::StdRng::seed_from_u64(16);
    let mut patterns: Vec<u16> = (0..=u16::MAX).collect();
    patterns.shuffle(&mut rng);
    let mut checked = 0;
    // one row of all patterns (a block row, or split), and the same bits as rows of 257,
    // 1000, 4096 (warp rows that narrow, block rows) and 60 (part-warp rows)
    for m in [65_536, 4096, 1000, 257, 60] {
        let n = 65_536 / m;
        let bits = &patterns[..n * m];
        let h = Array2::from_shape_fn((n, m), |(r, c)| f16::from_bits(bits[r * m + c]));
        let b = Array2::from_shape_fn((n, m), |(r, c)| bf16::from_bits(bits[r * m + c]));
        checked += check_every_strategy(&gpu, &h, "f16 patterns");
        checked += check_every_strategy(&gpu, &b, "bf16 patterns");
        let ties = Array2::from_shape_fn((n.min(40), m), |_| rng.random_range(-3..4) as f32);
        checked += check_every_strategy(&gpu, &ties.mapv(f16::from_f32), "f16 ties");
        checked += check_every_strategy(&gpu, &ties.mapv(bf16::from_f32), "bf16 ties");
    }
    assert!(checked > 300, "only {checked} cases ran");
}

/// The radix select (rtopk-plan's radix, docs/kernel.md, "Radix rows"), forced on rows of
/// several blocks each and taken by the default (large k on long rows, k = 512 on a small
/// selection, k large against narrower rows): bisect's values and indices in f32, f16 and
/// bf16 — NaN of both signs, infinities, ties straddling the k-th key, k of 1 to M, both modes,
/// sorted or not — and the simulator's on every shape of at most 2^24 elements, bit for bit
/// (9 x 2^20 and 1 x 2^24 run the sample on an H100 or H200).
#[test]
#[ignore = "needs a CUDA GPU"]
fn radix_rows_match_bisect_and_the_simulator() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let (auto, radix) = (Strategy::Auto, Strategy::Radix);
    let cases = [
        (3, 100_003, 5000, radix),
        (5, 9001, 1, radix),
        (4, 9001, 9000, radix),
        (2, 20_000, 20_000, radix),
        (7, 50_000, 4096, radix),
        (1, 1 << 22, 32768, auto),
        (2, 3_000_001, 8192, auto),
        (3, (1 << 20) + 3, 600, auto), // a small selection (RADIX_SMALL_MIN_K)
        (9, 1 << 20, 2048, auto),      // more rows than a small selection (RADIX_FEW_ROWS)
        (1, 1 << 24, 4096, auto),      // parts of 16 tiles: the sample (RADIX_SAMPLE_MIN_TILES)
        (8, 1 << 19, 4096, auto),      // narrower rows (RADIX_HALF_ROW)
        (32, (1 << 17) + 7, 16384, auto), // k large against the row (RADIX_WIDE_K)
        (8, 393_216 + 5, 512, auto),   // 8 to 16 rows below 2^20 (RADIX_MID_ROW)
        (2, 786_432 + 3, 1024, auto),  // fewer, wider rows (RADIX_MID_WIDE_ROW)
    ];
    let (mut checked, mut sampled) = (0, 0);
    for (ci, (n, m, k, strategy)) in cases.into_iter().enumerate() {
        let launch =
            |mode, sorted, elem| Launch { n, m, k, mode, bisect: Bisect::exact(), sorted, elem };
        let program = gpu.program(&launch(Mode::Largest, false, ElemType::F32), strategy, false);
        let first = program.unwrap().steps[0].name.name();
        assert!(matches!(first, "radix_digits" | "radix_sample"), "N={n} M={m} k={k} {strategy}");
        sampled += usize::from(first == "radix_sample");
        for (di, dist) in ["nan-inf", "ties", "normal"].into_iter().enumerate() {
            let x = matrix(n, m, dist, (ci * 3 + di) as u64);
            for (oi, sorted) in [false, true].into_iter().enumerate() {
                let mode = if (ci + di + oi) % 2 == 0 { Mode::Largest } else { Mode::Smallest };
                let opts = Options { mode, sorted };
                let bisect = Bisect::exact();
                let case = format!("N={n} M={m} k={k} {strategy} {dist} {opts:?}");
                // without iteration counts: the radix select has none
                let run = |x| gpu.topk_rows_counted(x, k, opts, bisect, strategy, false);
                let got = run(x.view()).unwrap();
                let want = topk_rows(&bisect, x.view(), k, opts).unwrap();
                assert_eq!(difference(&got, &want), None, "{case}");
                // every shape of at most 2^24 elements: the sampled ones among them
                if n * m <= 1 << 24 {
                    let (sim, _) = simulated(&gpu, &x, k, opts, bisect, strategy);
                    assert_eq!(difference(&got, &sim), None, "{case}: warp-sim");
                }
                let h = x.mapv(topk_ref::f16::from_f32);
                let got = gpu.topk_rows_counted(h.view(), k, opts, bisect, strategy, false);
                let want = topk_rows(&bisect, h.view(), k, opts).unwrap();
                assert_eq!(difference(&got.unwrap(), &want), None, "{case} f16");
                let b = x.mapv(topk_ref::bf16::from_f32);
                let got = gpu.topk_rows_counted(b.view(), k, opts, bisect, strategy, false);
                let got = got.unwrap();
                let want = topk_rows(&bisect, b.view(), k, opts).unwrap();
                assert_eq!(difference(&got, &want), None, "{case} bf16");
                checked += 3;
            }
        }
    }
    assert_eq!(checked, 14 * 3 * 2 * 3);
    // on an H100 or H200: 9 x 2^20 (parts of eight tiles) and 1 x 2^24
    assert!(sampled >= 2, "{sampled} shapes ran the sample");
}

/// A split's second stage taken by the radix select (a small selection of candidates:
/// rtopk-plan's `takes_radix` on the stage's rows): bf16 rows split (by default rows of these
/// shapes, f32 or bf16, take the sampled radix select whole), the chunk selects with the row's
/// floor, their pads, the radix select over the candidates' positions and the gather —
/// bisect's values and indices in bf16, split and by default, and in f32, NaN of both signs,
/// infinities, ties, both modes, sorted or not.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_split_whose_second_stage_is_a_radix_select_matches_bisect() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let mut checked = 0;
    for (ci, (n, m, k)) in [(1, 1 << 26, 1000), (2, (1 << 25) + 5, 600)].into_iter().enumerate() {
        // the default reads these rows with the sampled radix select; split, the bf16 rows'
        // candidates take a radix select
        let launch = Launch { elem: ElemType::Bf16, ..f32_launch(n, m, k) };
        let program = gpu.program(&launch, Strategy::Split, false).unwrap();
        let steps: Vec<(&str, usize)> =
            program.steps.iter().map(|s| (s.name.name(), s.level)).collect();
        assert_eq!(steps[0], ("select_chunks", 0), "N={n} M={m} k={k}: {steps:?}");
        assert!(steps.contains(&("radix_digits", 1)), "N={n} M={m} k={k}: {steps:?}");
        for l in [f32_launch(n, m, k), launch] {
            let auto = gpu.program(&l, Strategy::Auto, false).unwrap();
            assert_eq!(auto.steps[0].name.name(), "radix_sample", "N={n} M={m} k={k} {:?}", l.elem);
        }
        for (di, dist) in ["nan-inf", "ties", "normal"].into_iter().enumerate() {
            let x = matrix(n, m, dist, (40 + ci * 3 + di) as u64);
            let b = x.mapv(topk_ref::bf16::from_f32);
            for (oi, sorted) in [false, true].into_iter().enumerate() {
                let mode = if (ci + di + oi) % 2 == 0 { Mode::Largest } else { Mode::Smallest };
                let opts = Options { mode, sorted };
                let bisect = Bisect::exact();
                let case = format!("N={n} M={m} k={k} {dist} {opts:?}");
                let got = gpu.topk_rows_counted(x.view(), k, opts, bisect, Strategy::Auto, false);
                let want = topk_rows(&bisect, x.view(), k, opts).unwrap();
                assert_eq!(difference(&got.unwrap(), &want), None, "{case}");
                let want = topk_rows(&bisect, b.view(), k, opts).unwrap();
                for strategy in [Strategy::Split, Strategy::Auto] {
                    let got = gpu.topk_rows_counted(b.view(), k, opts, bisect, strategy, false);
                    assert_eq!(difference(&got.unwrap(), &want), None, "{case} bf16 {strategy:?}");
                }
                checked += 2;
            }
        }
    }
    assert_eq!(checked, 2 * 3 * 2 * 2);
}

/// Every step kind of the launch program — `select_rows`, `sort_rows`, `select_chunks`,
/// `select_last_chunks`, `gather_indices`, and a second split nested in the first — on several
/// rows, f32 and f16, both modes: the device runs the program the simulator runs (the same
/// steps and kernels), with bisect's values and indices.
/// (N, M, k, strategy, sorted, the program's steps).
type StepCase = (usize, usize, usize, Strategy, bool, &'static [&'static str]);

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_step_kind_of_the_program_matches_bisect_and_the_simulators_program() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let (auto, split) = (Strategy::Auto, Strategy::Split);
    let cases: [StepCase; 8] = [
        (5, 300, 7, auto, false, &["select_rows"]),
        (2, 50_000, 300, auto, true, &["select_rows", "sort_rows"]), // cluster rows
        (4, 2000, 40, auto, true, &["select_rows", "sort_rows"]),
        (3, 8192, 64, split, false, &["select_chunks", "select_rows", "gather_indices"]),
        (
            3,
            5000,
            100,
            split,
            true,
            &["select_chunks", "select_last_chunks", "select_rows", "sort_rows", "gather_indices"],
        ),
        // equal chunks where 4096 would leave a last one (rtopk_plan::split::even_chunk): two
        // of 4100 in f32, 4096 and a last chunk in f16
        (3, 8200, 1000, split, false, &["select_chunks", "select_rows", "gather_indices"]),
        // a second stage of 37504 candidates: a cluster row on a device that launches them
        (
            2,
            600_000,
            128,
            split,
            false,
            &["select_chunks", "select_last_chunks", "select_rows", "gather_indices"],
        ),
        // 2^20 candidates, more than a wide cluster holds: split again (an H100 or H200;
        // 2 x 2^22's 262144 candidates are one wide cluster row there)
        (
            2,
            1 << 24,
            128,
            split,
            false,
            &["select_chunks", "select_chunks", "select_rows", "gather_indices", "gather_indices"],
        ),
    ];
    for (n, m, k, strategy, sorted, steps) in cases {
        let x = matrix(n, m, "nan-inf", m as u64);
        let x16 = x.mapv(topk_ref::f16::from_f32);
        for mode in [Mode::Largest, Mode::Smallest] {
            let opts = Options { mode, sorted };
            let case = format!("N={n} M={m} k={k} {strategy} {opts:?}");
            let bisect = Bisect::exact();
            let counts = strategy != Strategy::Split;
            let launch = Launch { n, m, k, mode, bisect, sorted, elem: ElemType::F32 };
            let program = gpu.program(&launch, strategy, counts).unwrap();
            let names: Vec<&str> = program.steps.iter().map(|s| s.name.name()).collect();
            assert_eq!(names, steps, "{case}");
            let args = KernelArgs { n, m, k, mode, bisect, mutant: None };
            let config = SimConfig {
                strategy,
                sorted,
                counts,
                limits: gpu.limits(),
                ..SimConfig::default()
            };
            let sim = Simulator::new(config).program(&args, ElemType::F32).unwrap();
            let units =
                |p: &rtopk_plan::Program| p.steps.iter().map(|s| s.unit).collect::<Vec<_>>();
            assert_eq!(units(&program), units(&sim), "{case}: the simulator's program");
            let got = gpu.topk_rows_with(x.view(), k, opts, bisect, strategy).unwrap();
            let want = topk_rows(&bisect, x.view(), k, opts).unwrap();
            assert_eq!(difference(&got, &want), None, "{case}");
            let got = gpu.topk_rows_with(x16.view(), k, opts, bisect, strategy).unwrap();
            let want = topk_rows(&bisect, x16.view(), k, opts).unwrap();
            assert_eq!(difference(&got, &want), None, "{case} f16");
        }
    }
}

/// Integer rows (docs/kernel.md, "Integer rows"): rows of every int8 and uint8 value, of every
/// int16 pattern shuffled, int32 rows of extremes and spread values, and rows of few distinct
/// values (ties everywhere): the GPU gives bisect's values, indices and iteration counts in
/// every family that holds the row, and split rows give its values and indices.
#[test]
#[ignore = "needs a CUDA GPU"]
fn integer_rows_match_bisect_in_every_strategy() {
    use rand::seq::SliceRandom;
    use rand::{RngExt, SeedableRng};

    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let mut rng = rand::rngs::StdRng::seed_from_u64(32);
    let mut patterns: Vec<u16> = (0..=u16::MAX).collect();
    patterns.shuffle(&mut rng);
    let extremes = [i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 1, i32::MAX];
    let mut checked = 0;
    for m in [65_536, 4096, 1000, 257, 60] {
        let n = 65_536 / m;
        let bits = &patterns[..n * m];
        let w = Array2::from_shape_fn((n, m), |(r, c)| bits[r * m + c] as i16);
        checked += check_every_strategy(&gpu, &w, "i16 patterns");
        checked += check_every_strategy(&gpu, &w.mapv(|v| v as i8), "i8 every value");
        checked += check_every_strategy(&gpu, &w.mapv(|v| (v >> 8) as u8), "u8 every value");
        let wide = Array2::from_shape_fn((n, m), |_| {
            if rng.random_range(0..4) == 0 {
                extremes[rng.random_range(0..extremes.len())]
            } else {
                rng.random::<i32>() >> rng.random_range(0..31)
            }
        });
        checked += check_every_strategy(&gpu, &wide, "i32 extremes");
        let ties = Array2::from_shape_fn((n.min(40), m), |_| rng.random_range(-3..4));
        checked += check_every_strategy(&gpu, &ties, "i32 ties");
        checked += check_every_strategy(&gpu, &ties.mapv(|v| v as u8), "u8 ties");
    }
    assert!(checked > 500, "only {checked} cases ran");
}

/// Cluster rows (docs/kernel.md, "Cluster rows"): few rows past 16384 over a cluster of 2 to 8
/// blocks each — the GPU's values, indices and iteration counts are bisect's and the
/// simulator's (which runs the same cluster launch), on NaN/inf-laced rows, ties and normal
/// rows that narrow (`rtopk_cluster_rows_narrow`), both modes, sorted or not, exact, early
/// stopping and a recall target; f16 and bf16 rows too, and a split row whose second stage is
/// a cluster row.
#[test]
#[ignore = "needs a CUDA GPU"]
fn cluster_rows_match_bisect_and_the_simulator() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    assert!(gpu.limits().max_cluster >= 2, "this test needs a device that launches clusters");
    let cases = [
        (1, 16_400, 200),
        (3, 50_000, 2048),
        (2, 131_072, 1),
        (1, 200_003, 4096),
        (2, 262_147, 64),
        (3, 500_000, 1000),
        (3, 100_000, 20),
        (1, 262_144, 2048),
        (2, 65_536, 300),
        (1, 500_000, 2048),
        (2, 163_840, 5000),
        (2, 30_000, 700),
    ];
    for (ci, (n, m, k)) in cases.into_iter().enumerate() {
        // from the seventh on: normal rows, which narrow — into block 0 at k <= 128
        // (rtopk_cluster_rows_narrow), within the blocks beyond (rtopk_cluster_rows, the search
        // CLUSTER_ROUND_LEVELS steps a round on a portable cluster, CLUSTER_WIDE_ROUND_LEVELS
        // by warp ballots on a wide one)
        let family = match ci {
            6.. => "normal",
            _ if ci % 2 == 0 => "nan-inf",
            _ => "ties",
        };
        let x = matrix(n, m, family, m as u64);
        if m > CLUSTER_MAX_ROW && gpu.limits().max_cluster >= WIDE_CLUSTER {
            // rows past the portable clusters: 16 blocks a row
            let (mode, bisect, elem) = (Mode::Largest, Bisect::exact(), ElemType::F32);
            let launch = Launch { n, m, k, mode, bisect, sorted: false, elem };
            let program = gpu.program(&launch, Strategy::Auto, true).unwrap();
            assert_eq!(program.steps[0].grid.cluster as usize, WIDE_CLUSTER, "N={n} M={m}");
        }
        if gpu.limits().max_cluster >= WIDE_CLUSTER && matches!(m, 30_000 | 65_536) {
            // plain f32 rows of 24576-32768 take 8 blocks (SHORT_CLUSTER_MIN_ROW); from 65536,
            // where they search from their range, 16 (WIDE_PLAIN_MIN_ROW)
            let (mode, bisect, elem) = (Mode::Largest, Bisect::exact(), ElemType::F32);
            let launch = Launch { n, m, k, mode, bisect, sorted: false, elem };
            let program = gpu.program(&launch, Strategy::Auto, false).unwrap();
            let want = if m == 30_000 { 8 } else { WIDE_CLUSTER };
            assert_eq!(program.steps[0].grid.cluster as usize, want, "N={n} M={m}");
        }
        let recall = Bisect::with_recall(0.9).unwrap();
        for (bi, bisect) in
            [Bisect::exact(), Bisect::early_stopping(5), recall].into_iter().enumerate()
        {
            let mode = if bi % 2 == 0 { Mode::Largest } else { Mode::Smallest };
            let opts = Options { mode, sorted: bi == 0 };
            let case = format!("N={n} M={m} k={k} {bisect:?} {opts:?}");
            let got = gpu.topk_rows_with(x.view(), k, opts, bisect, Strategy::Auto).unwrap();
            let want = topk_rows(&bisect, x.view(), k, opts).unwrap();
            assert_eq!(difference(&got, &want), None, "{case}");
            let (sim, unit) = simulated(&gpu, &x, k, opts, bisect, Strategy::Auto);
            let narrows = bisect.max_iter.is_none()
                && m >= CLUSTER_NARROW_MIN_ROW
                && k <= CLUSTER_NARROW_MAX_K;
            let want = if narrows { "rtopk_cluster_rows_narrow" } else { "rtopk_cluster_rows" };
            assert_eq!(unit, want, "{case}");
            assert_eq!(difference(&got, &sim), None, "{case}: the simulator");
            let xh = x.mapv(topk_ref::f16::from_f32);
            let got = gpu.topk_rows_with(xh.view(), k, opts, bisect, Strategy::Auto).unwrap();
            let want = topk_rows(&bisect, xh.view(), k, opts).unwrap();
            assert_eq!(difference(&got, &want), None, "{case} f16");
            let xb = x.mapv(topk_ref::bf16::from_f32);
            let got = gpu.topk_rows_with(xb.view(), k, opts, bisect, Strategy::Auto).unwrap();
            let want = topk_rows(&bisect, xb.view(), k, opts).unwrap();
            assert_eq!(difference(&got, &want), None, "{case} bf16");
        }
    }
    // a split row (no counts) whose second stage, 19 chunks' 1024 candidates, is a cluster row
    let (n, m, k) = (1, 300_000, 1024);
    let launch = f32_launch(n, m, k);
    let program = gpu.program(&launch, Strategy::Split, false).unwrap();
    assert!(program.steps.iter().any(|s| s.unit.to_string() == "rtopk_cluster_rows"));
    let x = matrix(n, m, "nan-inf", 7);
    let opts = Options { mode: Mode::Largest, sorted: false };
    let got = gpu.topk_rows_with(x.view(), k, opts, Bisect::exact(), Strategy::Split).unwrap();
    let want = topk_rows(&Bisect::exact(), x.view(), k, opts).unwrap();
    assert_eq!(difference(&got, &want), None, "a split row with a cluster second stage");
}

/// Cluster rows whose counts nobody asked for start from a guessed bracket where k is at least
/// m / 80 (docs/kernel.md, "Cluster rows", **A guessed bracket**): the GPU's values and indices
/// are bisect's and the simulator's (the same launch, no counts) on normal rows, where the
/// guess narrows at once, and on rows where it misses or its ends cut ties — forty values,
/// a tenth of the row on one value near its top, parts of a row on four scales, ascending
/// rows, NaN/inf-laced rows — both modes, sorted or not; on portable and wide clusters (the
/// kernel's `GUESSES` instantiation: 1 × 100000 and 2 × 65536 take 16 blocks unsorted).
#[test]
#[ignore = "needs a CUDA GPU"]
fn cluster_rows_from_a_guessed_bracket_match_bisect_and_the_simulator() {
    use rand::{RngExt, SeedableRng};

    let gpu = CudaTopK::new(0).expect("a CUDA device");
    assert!(gpu.limits().max_cluster >= 2, "this test needs a device that launches clusters");
    let mut rng = rand::rngs::StdRng::seed_from_u64(53);
    let cases = [(1, 100_000, 2048), (3, 49_152, 4000), (1, 40_000, 2048), (2, 65_536, 1000)];
    let wide = [(1, 262_144, 4000), (1, 163_840, 2048)];
    let mut checked = 0;
    for (ci, (n, m, k)) in cases.into_iter().chain(wide).enumerate() {
        let launch = f32_launch(n, m, k);
        let program = gpu.program(&launch, Strategy::Auto, false).unwrap();
        assert_eq!(program.steps[0].unit.to_string(), "rtopk_cluster_rows", "N={n} M={m} k={k}");
        for (fi, family) in
            ["normal", "forty", "spike", "scaled", "ascending", "nan-inf"].into_iter().enumerate()
        {
            let x = match family {
                "forty" => Array2::from_shape_fn((n, m), |_| f32::from(rng.random_range(0u8..40))),
                "spike" => matrix(n, m, "normal", fi as u64)
                    .mapv(|v| if rng.random_range(0u8..10) == 0 { 1.75 } else { v }),
                "scaled" => {
                    let base = matrix(n, m, "normal", fi as u64);
                    Array2::from_shape_fn((n, m), |(r, c)| {
                        base[[r, c]] * 10f32.powi((4 * c / m) as i32)
                    })
                }
                "ascending" => Array2::from_shape_fn((n, m), |(_, c)| c as f32 / m as f32 - 0.5),
                _ => matrix(n, m, family, (ci * 8 + fi) as u64),
            };
            let mode = if (ci + fi) % 3 == 1 { Mode::Smallest } else { Mode::Largest };
            let opts = Options { mode, sorted: (ci + fi) % 4 == 2 };
            let case = format!("N={n} M={m} k={k} {family} {opts:?}");
            let bisect = Bisect::exact();
            let got =
                gpu.topk_rows_counted(x.view(), k, opts, bisect, Strategy::Auto, false).unwrap();
            let want = topk_rows(&bisect, x.view(), k, opts).unwrap();
            assert_eq!(got.values.map(|v| v.to_bits()), want.values.map(|v| v.to_bits()), "{case}");
            assert_eq!(got.indices, want.indices, "{case}");
            assert_eq!(
                uncounted_indices(&gpu, &x, k, opts),
                want.indices.iter().copied().collect::<Vec<_>>(),
                "{case}: sim"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 36);
}

/// 16-bit rows whose counts nobody asked for search by two histograms of their keys' bytes
/// (docs/kernel.md, "16-bit rows by histograms"): the GPU's values and indices are bisect's in
/// f16 and bf16 — block rows, split rows, and cluster rows, whose launch the simulator runs
/// too (no counts) — on normal rows, ties and NaN/inf-laced rows, k from 1 to M, portable and
/// wide clusters, both modes, sorted or not.
#[test]
#[ignore = "needs a CUDA GPU"]
fn sixteen_bit_rows_by_histograms_match_bisect_and_the_simulator() {
    /// The GPU's answer of `x` against bisect's, and where `simulate`, the simulator's.
    fn one<E: rtopk_cuda::DeviceElement + topk_ref::Element>(
        gpu: &CudaTopK,
        x: &Array2<E>,
        (k, opts, simulate): (usize, Options, bool),
        case: &str,
    ) where
        Bisect: topk_ref::RowTopKOf<E>,
    {
        let bisect = Bisect::exact();
        let got = gpu.topk_rows_counted(x.view(), k, opts, bisect, Strategy::Auto, false).unwrap();
        let want = topk_rows(&bisect, x.view(), k, opts).unwrap();
        assert_eq!(difference(&got, &want), None, "{case}");
        if simulate {
            let want: Vec<u32> = want.indices.iter().copied().collect();
            assert_eq!(uncounted_indices(gpu, x, k, opts), want, "{case}: sim");
        }
    }
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    assert!(gpu.limits().max_cluster >= 2, "this test needs a device that launches clusters");
    // block rows (a block a row) and split rows, whose chunks and second stages are block
    // rows, against bisect; cluster rows against the simulator too
    let blocks = [(64, 4001, 1000), (128, 9000, 1), (96, 16_384, 16_383), (40, 100_000, 512)];
    let clusters = [
        (32, 49_152, 2048), // fewer, wider blocks (k >= M / 128)
        (1, 20_001, 1),
        (2, 40_003, 2048),
        (1, 100_000, 99_999),
        (3, 65_536, 65_536),
        (1, 163_840, 2048),
        (2, 500_000, 1000),
    ];
    let shapes = blocks.iter().map(|&s| (s, false)).chain(clusters.iter().map(|&s| (s, true)));
    for (ci, ((n, m, k), cluster)) in shapes.enumerate() {
        for (fi, family) in ["normal", "ties", "nan-inf"].into_iter().enumerate() {
            let x = matrix(n, m, family, (ci * 4 + fi) as u64);
            let mode = if (ci + fi) % 2 == 1 { Mode::Smallest } else { Mode::Largest };
            let opts = Options { mode, sorted: (ci + fi) % 3 == 2 };
            let case = format!("N={n} M={m} k={k} {family} {opts:?}");
            let launch = Launch {
                n,
                m,
                k,
                mode,
                bisect: Bisect::exact(),
                sorted: opts.sorted,
                elem: ElemType::F16,
            };
            let program = gpu.program(&launch, Strategy::Auto, false).unwrap();
            let unit = program.steps[0].unit.to_string();
            assert_eq!(unit == "rtopk_cluster_rows_f16", cluster, "{case}: {unit}");
            let xh = x.mapv(topk_ref::f16::from_f32);
            one(&gpu, &xh, (k, opts, cluster), &format!("{case} f16"));
            let xb = x.mapv(topk_ref::bf16::from_f32);
            one(&gpu, &xb, (k, opts, cluster), &format!("{case} bf16"));
        }
    }
}

/// f32 block rows held in registers whose counts nobody asked for search from a histogram of
/// their values (docs/kernel.md, "Value bins"): the GPU's values and indices are bisect's and
/// the simulator's — whole block rows, and split rows whose chunks (with the row's floor) and
/// second stages are block rows — on normal and uniform rows, ties, values that share their
/// leading bits and NaN/inf-laced rows, k from 1 to M, both modes, sorted or not; with counts
/// asked, each row's count is bisect's (no bins).
#[test]
#[ignore = "needs a CUDA GPU"]
fn f32_rows_from_value_bins_match_bisect_and_the_simulator() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let shapes = [
        (64, 4001, 1000, Strategy::Auto),
        (128, 9001, 1, Strategy::Auto),
        (96, 16_384, 16_383, Strategy::Auto),
        (16, 2100, 2100, Strategy::Block),
        (96, 49_152, 1024, Strategy::Split),
        (40, 100_000, 512, Strategy::Split),
        (8, 163_840, 2048, Strategy::Split),
    ];
    let families = ["normal", "uniform", "ties", "same-leading-bits", "nan-inf"];
    let mut checked = 0;
    for (ci, &(n, m, k, strategy)) in shapes.iter().enumerate() {
        for (fi, family) in families.into_iter().enumerate() {
            let x = matrix(n, m, family, (ci * 8 + fi) as u64);
            let mode = if (ci + fi) % 2 == 1 { Mode::Smallest } else { Mode::Largest };
            let opts = Options { mode, sorted: (ci + fi) % 3 == 2 };
            let case = format!("N={n} M={m} k={k} {strategy:?} {family} {opts:?}");
            let bisect = Bisect::exact();
            let want = topk_rows(&bisect, x.view(), k, opts).unwrap();
            let got = gpu.topk_rows_counted(x.view(), k, opts, bisect, strategy, false).unwrap();
            assert_eq!(difference(&got, &want), None, "{case}");
            if strategy == Strategy::Auto {
                let want: Vec<u32> = want.indices.iter().copied().collect();
                assert_eq!(uncounted_indices(&gpu, &x, k, opts), want, "{case}: sim");
            }
            if strategy != Strategy::Split {
                let got = gpu.topk_rows_counted(x.view(), k, opts, bisect, strategy, true).unwrap();
                assert_eq!(difference(&got, &want), None, "{case}: counted");
                assert_eq!(got.iterations, want.iterations, "{case}: counts");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, shapes.len() * families.len());
}

/// Many rows that split into chunks launched chunk-major and take the floor by their size
/// (rtopk-plan's `takes_floor`: 2^26 elements in all, 3 · 2^22 for whole-chunk block rows;
/// docs/kernel.md, "Split rows: the floor"): each row's chunks raise and read its own floor
/// only, so every row gives bisect's values and indices — rows of different scales (a floor
/// read from another row would cut them wrongly), NaN/inf-laced rows, ties, rows sorted
/// descending (every chunk after a row's first cuts at the floor), both modes, sorted or not,
/// f32 and f16.
#[test]
#[ignore = "needs a CUDA GPU"]
fn many_rows_that_take_the_floor_match_bisect() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    // (N, M, k): block rows of k = 2048, then warp rows of k = 64 (2^26 elements)
    let cases = [(48, 300_000, 2048), (64, 1 << 20, 64)];
    for (n, m, k) in cases {
        let launch = f32_launch(n, m, k);
        let program = gpu.program(&launch, Strategy::Auto, false).unwrap();
        let takes = |s: &rtopk_plan::Step| matches!(s.kernel, rtopk_plan::Kernel::Select(sel) if sel.floor.is_some());
        assert!(
            program.steps.iter().any(takes),
            "N={n} M={m} k={k}: a chunk select with the floor"
        );
        for (fi, family) in ["normal", "nan-inf", "ties", "descending"].into_iter().enumerate() {
            let mut x =
                matrix(n, m, if family == "descending" { "normal" } else { family }, fi as u64);
            for (i, mut row) in x.rows_mut().into_iter().enumerate() {
                // rows of different scales: one row's floor is no other row's
                row.mapv_inplace(|v| v * (1.0 + i as f32));
                if family == "descending" {
                    let mut v = row.to_vec();
                    v.sort_by(|a, b| b.total_cmp(a));
                    row.assign(&Array1::from_vec(v));
                }
            }
            let mode = if fi % 2 == 0 { Mode::Largest } else { Mode::Smallest };
            let opts = Options { mode, sorted: fi == 1 };
            let case = format!("N={n} M={m} k={k} {family} {opts:?}");
            let bisect = Bisect::exact();
            let got = gpu.topk_rows_counted(x.view(), k, opts, bisect, Strategy::Auto, false);
            let want = topk_rows(&bisect, x.view(), k, opts).unwrap();
            assert_eq!(difference(&got.unwrap(), &want), None, "{case}");
            if fi == 0 {
                let xh = x.mapv(topk_ref::f16::from_f32);
                let got = gpu.topk_rows_counted(xh.view(), k, opts, bisect, Strategy::Auto, false);
                let want = topk_rows(&bisect, xh.view(), k, opts).unwrap();
                assert_eq!(difference(&got.unwrap(), &want), None, "{case} f16");
            }
        }
    }
}
