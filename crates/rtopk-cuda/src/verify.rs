//! Equivalence of the GPU kernel with CPU references (topk-ref's `bisect`, warp-sim's
//! kernel): bit-identical values, identical indices and iteration counts, over input families
//! chosen to break top-k kernels. Used by the GPU tests and `rtopk verify cuda`.

use ndarray::Array2;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use topk_ref::{Bisect, Mode, Options, RowTopK, TopK, topk_rows};

use crate::{CudaError, CudaTopK, Tuning};

/// Input families: normal, uniform, heavy ties, same leading bits (AIR's radix-adversarial
/// family: the first 20 key bits equal), and NaN (quiet of either sign, signalling, with
/// payloads)/±inf/-0-laced normal rows.
pub const FAMILIES: [&str; 5] = ["normal", "uniform", "ties", "same-leading-bits", "nan-inf"];

/// Row widths of the equivalence check: not multiples of 32, every launch shape (quarter- and
/// half-warp, warp, wide warp of 48…96 keys per lane, block, and the narrowing block kernel at
/// 4096, 5001 and 8192), 64 Ki, and rows wider than the block kernel's registers and shared
/// memory together (re-keyed from the input on each pass), with and without 16-byte loads.
pub const WIDTHS: [usize; 20] = [
    1, 7, 31, 32, 33, 100, 256, 768, 1000, 1024, 1025, 2047, 3000, 4096, 5001, 8192, 10000, 65536,
    100_000, 131_071,
];

/// Searches checked: exact and early stopping with max_iter 1, 2, 4, 8.
pub const SEARCHES: [Bisect; 5] = [
    Bisect::exact(),
    Bisect::early_stopping(1),
    Bisect::early_stopping(2),
    Bisect::early_stopping(4),
    Bisect::early_stopping(8),
];

/// One value of `family`.
fn sample(family: &str, rng: &mut StdRng) -> f32 {
    match family {
        "normal" => StandardNormal.sample(rng),
        "uniform" => rng.random::<f32>(),
        "ties" => (rng.random_range(0..6u32) as f32) - 2.0,
        "same-leading-bits" => f32::from_bits(0x3f80_0000 | rng.random_range(0..4096u32)),
        _ => match rng.random_range(0..40u32) {
            0 => f32::NAN,
            1 => f32::from_bits(0xffc0_1234),
            2 => f32::INFINITY,
            3 => f32::NEG_INFINITY,
            4 => -0.0,
            5 => f32::from_bits(0x7f80_0001), // signalling, with a payload
            _ => StandardNormal.sample(rng),
        },
    }
}

/// An `(n, m)` matrix of `family`, reproducible from `seed`.
pub fn matrix(n: usize, m: usize, family: &str, seed: u64) -> Array2<f32> {
    let mut rng = StdRng::seed_from_u64(seed);
    Array2::from_shape_simple_fn((n, m), || sample(family, &mut rng))
}

/// The k values checked for width m: 1, m/32, m/8, m/2, m−1, m (m/32: rows of 4096 to 8192
/// narrow where k < 512, rows of 257 to 1024 where k < 128).
pub fn ks_for(m: usize) -> Vec<usize> {
    let mut ks = vec![1, m / 32, (m / 8).max(1), m / 2, m.saturating_sub(1), m];
    ks.retain(|&k| (1..=m).contains(&k));
    ks.sort_unstable();
    ks.dedup();
    ks
}

/// A named CPU reference: builds the reference algorithm for a search configuration.
pub type Reference<'a> = (&'a str, &'a dyn Fn(Bisect) -> Box<dyn RowTopK>);

/// What a run of [`check_all`] covered.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Rows compared (each against every reference).
    pub rows: usize,
    /// (shape, family, k, search, options) cases compared.
    pub cases: usize,
    /// Descriptions of the cases that differed (empty when all agree).
    pub mismatches: Vec<String>,
}

/// Where a GPU result differs from a reference, if anywhere.
pub fn difference(gpu: &TopK, cpu: &TopK) -> Option<&'static str> {
    let bits = |t: &TopK| t.values.mapv(f32::to_bits);
    if gpu.indices != cpu.indices {
        Some("indices")
    } else if gpu.iterations != cpu.iterations {
        Some("iteration counts")
    } else if bits(gpu) != bits(cpu) {
        Some("value bits")
    } else {
        None
    }
}

/// Compares the GPU with every reference on `widths` × [`FAMILIES`] × [`ks_for`] ×
/// [`SEARCHES`], alternating modes and sorted output, with about `elements_per_case`
/// elements per case. Widths that quarter-warp rows take are checked twice: as the defaults
/// launch them (the checks' row counts are below [`Tuning::quarter_min_rows`], so half-warp
/// rows), and with quarter-warp rows forced for every k <= M / 4.
pub fn check_all(
    gpu: &mut CudaTopK,
    widths: &[usize],
    elements_per_case: usize,
    references: &[Reference<'_>],
) -> Result<Report, CudaError> {
    let defaults = gpu.tuning();
    let forced = Tuning { quarter_min_rows: 0, ..defaults };
    let mut report = Report::default();
    for (wi, &m) in widths.iter().enumerate() {
        let tunings =
            if m <= defaults.quarter_warp_max { &[defaults, forced][..] } else { &[defaults] };
        for &tuning in tunings {
            gpu.set_tuning(tuning);
            let checked = check_width(gpu, wi, m, elements_per_case, references, &mut report);
            gpu.set_tuning(defaults);
            checked?;
        }
    }
    Ok(report)
}

/// [`check_all`]'s cases of width `m` (the `wi`-th width) under the GPU's current tuning.
fn check_width(
    gpu: &CudaTopK,
    wi: usize,
    m: usize,
    elements_per_case: usize,
    references: &[Reference<'_>],
    report: &mut Report,
) -> Result<(), CudaError> {
    let n = (elements_per_case / m).clamp(8, 20_000);
    for (fi, family) in FAMILIES.iter().enumerate() {
        let x = matrix(n, m, family, (wi * 10 + fi) as u64);
        for k in ks_for(m) {
            for (si, bisect) in SEARCHES.iter().enumerate() {
                let mode = if (wi + fi + si + k) % 2 == 0 { Mode::Largest } else { Mode::Smallest };
                let opts = Options { mode, sorted: (wi + si) % 3 == 0 };
                let got = gpu.topk_rows(x.view(), k, opts, *bisect)?;
                for (name, make) in references {
                    let want = topk_rows(make(*bisect).as_ref(), x.view(), k, opts)?;
                    if let Some(what) = difference(&got, &want) {
                        report.mismatches.push(format!(
                            "{what} differ from {name}: m={m} n={n} k={k} {family} {bisect:?} \
                             {opts:?} {:?}",
                            gpu.tuning()
                        ));
                    }
                }
                report.rows += n;
                report.cases += 1;
            }
        }
    }
    Ok(())
}
