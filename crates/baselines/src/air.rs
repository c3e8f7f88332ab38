//! `air` — AIR Top-K: adaptive and iteration-fused radix top-k (paper 002, §3, Algorithm 1).
//!
//! # Idea
//! Radix select on the order keys ([`topk_ref::order::Element::key`]) with **11-bit digits**:
//! 11 + 11 + 10 bits, so three histogram passes settle any `f32` key (§3.1, "we can afford to
//! set b = 11"); the 16-bit keys of `f16` and `bf16` rows take **two** passes, 11 + 5 bits
//! (11-bit digits from the top, the last one takes the remaining bits; [`Digits`]).
//! Each pass histograms one digit of the surviving candidates, and the walk down the histogram
//! from the top finds the digit of the k-th key: higher digits are selected, lower ones dropped.
//! Three ideas make it AIR:
//!
//! 1. **Iteration fusion** (§3.1, Algorithm 1 lines 10–22). The filtering of pass *i* and the
//!    histogram of pass *i + 1* happen in **one sweep**: an element found to be a candidate
//!    of digit *i* has its digit *i + 1* counted at once. A radix top-k with separate
//!    histogram and filter sweeps loads every pass's data twice, `Σ 2·G_i`; fused, the loads
//!    are `2·G_1 + Σ_{i≥2} G_i` (the first pass has nothing to filter, and a last filter
//!    sweep follows the third histogram).
//! 2. **Adaptive candidate buffer** (§3.2, lines 7–8 and 17–18). Candidates of a pass are
//!    written to a buffer only when there are few of them, `C < N/α` (α = 128 in the paper's
//!    experiments, §5); otherwise nothing is written and the next sweep re-reads the input.
//!    On radix-adversarial data (all keys share their top 20 bits) no pass shrinks the
//!    candidates, and buffering would write the whole input again and again.
//! 3. **Early stop** (§3.3). When the remaining K equals the number of remaining candidates,
//!    all of them are selected: the digits left need no histogram.
//!
//! The last filter (line 5, `last_filter_kernel`) writes every element whose known prefix is
//! above the k-th key's and, among those equal to it, the first `k_left` in index order —
//! which makes the result canonical (docs/contract.md §1). Elements found "above" while filtering a
//! buffered pass are written out in that pass; while nothing is buffered nothing is written,
//! and the last filter (reading the input) writes them all, so no element is written twice.
//! The k indices are then sorted (output formatting, not counted).
//!
//! # Cost
//! Time O(M): at most four sweeps (three histograms, one last filter), each over the input or
//! a buffer below M/α. On spread data the first histogram leaves ~M/2048·(density) candidates,
//! so the work is ≈ 2M element loads plus tiny buffers; on radix-adversarial data it is 4M
//! loads and no buffer writes. Each pass also clears and walks a histogram of 2048 bins —
//! negligible for long rows, a real cost next to a row of 256. Extra memory: a 2048-bin
//! histogram on the stack and a candidate buffer of fewer than M/α pairs (or M with
//! [`Air::always_buffer`]).
//!
//! # On a GPU
//! Each pass is one `iteration_fused_kernel` launch over a grid of blocks: blocks build
//! shared-memory histograms and add them to a global one with atomics; the last block to finish
//! (an atomic counter) runs the prefix sum, picks the target digit and updates K, C and C' in
//! device memory, so the host only launches 3 + 1 kernels and never synchronises (§3.1,
//! Fig. 3). Candidates and results are appended with atomics, so the GPU version's order — and
//! which tied elements it keeps — is not deterministic; this CPU version filters in index
//! order and keeps the canonical ties. The counters ([`WorkCounters`]) count the loads and
//! stores that the paper's formulas count, in elements (a buffered candidate is a value with
//! its index, one element here, 8 bytes on the GPU).

use topk_ref::algorithm::{RowStats, WorkCounters, grow};
use topk_ref::order::{Element, KeyBits};

use crate::error::BaselineError;
use crate::job::{Job, Keyed, KeyedRun};

/// Bits of the paper's digit (§3.1: b = 11).
pub const RADIX_BITS: u32 = 11;
/// Bits of the three digits of an `f32` key, most significant first: 11 + 11 + 10 = 32 (§3.1).
pub const DIGIT_BITS: [u32; 3] = Digits::for_key_bits(32).bits;
/// Bits of the two digits of an `f16` or `bf16` key: 11 + 5 = 16.
pub const DIGIT_BITS_16: [u32; 2] = {
    let d = Digits::for_key_bits(16);
    [d.bits[0], d.bits[1]]
};

/// How a key is cut into digits: [`RADIX_BITS`]-bit digits from the top, the last one taking
/// the bits that remain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digits {
    /// Digits (histogram passes at most): 3 for 32-bit keys, 2 for 16-bit keys.
    pub count: usize,
    /// Bits of each digit, most significant first (unused entries 0).
    pub bits: [u32; 3],
    /// Shift of each digit in the key.
    pub shifts: [u32; 3],
}

impl Digits {
    /// The digits of a key of `key_bits` bits (at most 33).
    pub const fn for_key_bits(key_bits: u32) -> Self {
        let mut d = Digits { count: 0, bits: [0; 3], shifts: [0; 3] };
        let mut top = key_bits;
        while top > 0 && d.count < 3 {
            let shift = top.saturating_sub(RADIX_BITS);
            d.bits[d.count] = top - shift;
            d.shifts[d.count] = shift;
            d.count += 1;
            top = shift;
        }
        d
    }
}
/// Bins of the widest histogram (2^11).
const MAX_BINS: usize = 1 << 11;
/// Bins summed at once by the histogram walk.
const GROUP: usize = 32;
/// Keys computed at once into a stack buffer (the CPU's stand-in for registers): the key
/// transform then vectorises, apart from the histogram updates.
const KEY_CHUNK: usize = 256;
/// Rows at least this long spread the first histogram over [`LANES`] copies: float data put
/// most elements in a few top-digit bins, and one counter incremented back to back waits on
/// its own previous store every time.
const LANED_FROM: usize = 1 << 14;
/// Interleaved copies of the first histogram on long rows.
const LANES: usize = 4;

/// Calls `f(first index, keys)` for consecutive chunks of the row's keys.
#[inline(always)]
fn key_chunks<E: Element>(row: &[E], key_of: impl Fn(E) -> u32, mut f: impl FnMut(usize, &[u32])) {
    let mut buf = [0u32; KEY_CHUNK];
    for (c, vs) in row.chunks(KEY_CHUNK).enumerate() {
        let keys = &mut buf[..vs.len()];
        keys.iter_mut().zip(vs).for_each(|(k, &v)| *k = key_of(v));
        f(c * KEY_CHUNK, keys);
    }
}

/// Pass 1 (lines 11–13): the first digit's histogram over the input; nothing to filter.
fn first_histogram<E: Element>(
    row: &[E],
    key_of: impl Fn(E) -> u32,
    shift: u32,
    hist: &mut [u32; MAX_BINS],
) {
    if row.len() < LANED_FROM {
        key_chunks(row, key_of, |_, keys| {
            keys.iter().for_each(|&k| hist[(k >> shift) as usize] += 1);
        });
        return;
    }
    let mut lanes = [[0u32; MAX_BINS]; LANES];
    key_chunks(row, key_of, |_, keys| {
        let mut quads = keys.chunks_exact(LANES);
        for quad in &mut quads {
            for (&k, lane) in quad.iter().zip(lanes.iter_mut()) {
                lane[(k >> shift) as usize] += 1;
            }
        }
        quads.remainder().iter().for_each(|&k| lanes[0][(k >> shift) as usize] += 1);
    });
    for (d, h) in hist.iter_mut().enumerate() {
        *h = lanes.iter().map(|lane| lane[d]).sum();
    }
}

/// AIR Top-K with candidate-buffer parameter α (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Air {
    alpha: u32,
    adaptive: bool,
}

impl Default for Air {
    fn default() -> Self {
        Self { alpha: Self::DEFAULT_ALPHA, adaptive: true }
    }
}

/// What one row's run did, pass by pass (for tests, traces and the README's analysis).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AirTrace {
    /// Digits histogrammed (1 to 3; at most 2 on 16-bit keys).
    pub digits: u32,
    /// Candidates left after each digit's histogram, `C_1, C_2, C_3` (0 where not run).
    pub candidates: [usize; 3],
    /// Whether the sweeps after the first — fused passes 2 and 3, then the last filter — loaded
    /// from the candidate buffer (`true`) or re-read the input (`false`); unused entries are
    /// `false`.
    pub from_buffer: [bool; 3],
    /// `true` when the remaining K equalled the remaining candidates before the third digit.
    pub early_stop: bool,
    /// The data moved.
    pub work: WorkCounters,
}

impl Air {
    /// α used in the paper's experiments (§5: "the parameter α is set to 128").
    pub const DEFAULT_ALPHA: u32 = 128;

    /// AIR Top-K buffering candidates only when `C < N/α` (`α ≥ 1`; the paper's lower bound
    /// for a benefit is 4, §3.2, and `α = N` never buffers).
    pub fn new(alpha: u32) -> Result<Self, BaselineError> {
        if alpha == 0 {
            return Err(BaselineError::invalid(
                "alpha",
                "must be at least 1 (candidates are buffered when C < N/alpha)",
            ));
        }
        Ok(Self { alpha, adaptive: true })
    }

    /// The fused design *without* the adaptive strategy: candidates are always buffered, as
    /// in a classic radix top-k (the "without adaptive strategy" curve of Fig. 9).
    pub const fn always_buffer() -> Self {
        Self { alpha: Self::DEFAULT_ALPHA, adaptive: false }
    }

    /// The parameter α.
    pub const fn alpha(&self) -> u32 {
        self.alpha
    }

    /// `true` when candidates are buffered only below `N/α`.
    pub const fn is_adaptive(&self) -> bool {
        self.adaptive
    }

    /// Runs one row ([`Job`]) and reports what each pass did.
    pub fn trace_row<E: Element>(&self, job: Job<'_, E>) -> AirTrace {
        job.run_u32(self)
    }

    /// Line 17 of Algorithm 1: buffer the `c` candidates of this pass when `c < n/α`.
    fn buffers(&self, c: usize, n: usize) -> bool {
        !self.adaptive || (c as u64) * u64::from(self.alpha) < n as u64
    }
}

/// Where a sweep loads its elements from (line 7 of Algorithm 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The input row `L`.
    Input,
    /// The first `n` (key, index) pairs of the candidate buffer.
    Buffer(usize),
}

/// The search state after a histogram: the known prefix of the k-th key and what is left.
#[derive(Clone, Copy, Debug)]
struct State {
    /// The digits of the k-th key found so far.
    prefix: u32,
    /// K still to find among the candidates (line 28).
    k_left: usize,
    /// Candidates sharing `prefix` (line 27: `C`).
    count: usize,
}

impl State {
    fn start(bin: Bin, k: usize) -> Self {
        Self { prefix: bin.digit, k_left: k - bin.higher, count: bin.count }
    }

    fn narrow(&mut self, bin: Bin, bits: u32) {
        self.prefix = (self.prefix << bits) | bin.digit;
        self.k_left -= bin.higher;
        self.count = bin.count;
    }
}

/// Where the k-th candidate falls in a histogram (lines 24–25).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bin {
    digit: u32,
    /// Candidates in higher bins (all selected).
    higher: usize,
    /// Candidates in this bin.
    count: usize,
}

/// The bin holding the `k`-th largest of the counted candidates (`1 <= k <= total`): the
/// inclusive prefix sum from the top, by groups of [`GROUP`] bins, then bin by bin. The lowest
/// bin is the fallback without a test, which keeps the function total.
fn find_bin(hist: &[u32], k: usize) -> Bin {
    let mut higher = 0;
    let mut group = hist.len() / GROUP;
    while group > 1 {
        let sum = hist[(group - 1) * GROUP..group * GROUP].iter().sum::<u32>() as usize;
        if higher + sum >= k {
            break;
        }
        higher += sum;
        group -= 1;
    }
    let base = (group - 1) * GROUP;
    for digit in (base + 1..base + GROUP).rev() {
        let count = hist[digit] as usize;
        if higher + count >= k {
            return Bin { digit: digit as u32, higher, count };
        }
        higher += count;
    }
    Bin { digit: base as u32, higher, count: hist[base] as usize }
}

/// A (key, index) candidate packed into one buffer entry.
#[inline(always)]
fn pack(key: u32, index: usize) -> u64 {
    (u64::from(key) << 32) | index as u64
}

/// One fused pass: filter by the prefix known down to `prev`, histogram the digit at `shift`.
#[derive(Clone, Copy, Debug)]
struct Pass {
    prev: u32,
    prefix: u32,
    shift: u32,
}

impl Pass {
    /// The digit of a candidate key, or `Err(above)` for a key whose prefix differs.
    #[inline(always)]
    fn classify(&self, key: u32, mask: usize) -> Result<usize, bool> {
        let p = key >> self.prev;
        if p == self.prefix {
            Ok((key >> self.shift) as usize & mask)
        } else {
            Err(p > self.prefix)
        }
    }

    /// Lines 15–20 without buffering: only the candidates' next-digit histogram. Every
    /// element adds its match bit to its digit's bin: no branch, since a sizeable share of the
    /// elements match while nothing is buffered.
    fn histogram_input<E: Element>(&self, row: &[E], key_of: impl Fn(E) -> u32, hist: &mut [u32]) {
        let mask = hist.len() - 1;
        key_chunks(row, key_of, |_, keys| {
            for &k in keys {
                let hit = (k >> self.prev) == self.prefix;
                hist[(k >> self.shift) as usize & mask] += u32::from(hit);
            }
        });
    }

    /// Lines 15–22 with buffering, loading the input: candidates to `buf` (one slot longer
    /// than the candidates), elements above the prefix to `out`. Returns (candidates kept,
    /// results written). Candidates are few here (`C < N/α`), so the compaction stores every
    /// key and advances only on a match, and results take a branch that is rarely taken.
    fn filter_input<E: Element>(
        &self,
        row: &[E],
        key_of: impl Fn(E) -> u32,
        hist: &mut [u32],
        buf: &mut [u64],
        out: &mut [u32],
    ) -> (usize, usize) {
        let mask = hist.len() - 1;
        let (mut kept, mut found) = (0, 0);
        key_chunks(row, key_of, |base, keys| {
            for (j, &k) in keys.iter().enumerate() {
                let p = k >> self.prev;
                let hit = p == self.prefix;
                hist[(k >> self.shift) as usize & mask] += u32::from(hit);
                buf[kept] = pack(k, base + j);
                kept += usize::from(hit);
                if p > self.prefix {
                    out[found] = (base + j) as u32;
                    found += 1;
                }
            }
        });
        (kept, found)
    }

    /// Lines 15–22 loading the buffer: filtered in place (the write position never passes the
    /// read position). Returns (candidates kept, results written).
    fn filter_buffer(&self, buf: &mut [u64], hist: &mut [u32], out: &mut [u32]) -> (usize, usize) {
        let mask = hist.len() - 1;
        let (mut kept, mut found) = (0, 0);
        for i in 0..buf.len() {
            let e = buf[i];
            match self.classify((e >> 32) as u32, mask) {
                Ok(d) => {
                    hist[d] += 1;
                    buf[kept] = e;
                    kept += 1;
                }
                Err(true) => {
                    out[found] = e as u32;
                    found += 1;
                }
                Err(false) => {}
            }
        }
        (kept, found)
    }
}

/// The last filter: keys whose prefix (from `shift` up) is above `prefix`, then the first
/// `ties` in index order of those equal to it.
#[derive(Clone, Copy, Debug)]
struct Last {
    shift: u32,
    prefix: u32,
    ties: usize,
}

impl Last {
    /// `true` when the element is a result; counts down the ties it takes.
    #[inline(always)]
    fn take(&self, key: u32, ties: &mut usize) -> bool {
        let p = key >> self.shift;
        let tie = p == self.prefix && *ties > 0;
        *ties -= usize::from(tie);
        p > self.prefix || tie
    }

    fn filter_input<E: Element>(
        &self,
        row: &[E],
        key_of: impl Fn(E) -> u32,
        out: &mut [u32],
    ) -> usize {
        let (mut ties, mut found) = (self.ties, 0);
        key_chunks(row, key_of, |base, keys| {
            for (j, &k) in keys.iter().enumerate() {
                if self.take(k, &mut ties) {
                    out[found] = (base + j) as u32;
                    found += 1;
                }
            }
        });
        found
    }

    fn filter_buffer(&self, buf: &[u64], out: &mut [u32]) -> usize {
        let (mut ties, mut found) = (self.ties, 0);
        for &e in buf {
            if self.take((e >> 32) as u32, &mut ties) {
                out[found] = e as u32;
                found += 1;
            }
        }
        found
    }
}

impl KeyedRun for Air {
    type Trace = AirTrace;

    fn run<E: Element, K: Fn(E) -> u32 + Copy>(&self, job: Keyed<'_, E, K>) -> AirTrace {
        let Keyed { row, k, key_of, scratch, out } = job;
        let digits = Digits::for_key_bits(E::Key::BITS);
        let (shifts, bits) = (digits.shifts, digits.bits);
        let n = row.len();
        let mut trace = AirTrace::default();
        let mut hist = [0u32; MAX_BINS];
        first_histogram(row, key_of, shifts[0], &mut hist);
        trace.work.sweep(n);
        let mut state = State::start(find_bin(&hist, k), k);
        trace.digits = 1;
        trace.candidates[0] = state.count;
        let mut source = Source::Input;
        let mut written = 0;
        for d in 1..digits.count {
            if state.count == state.k_left {
                // §3.3: every remaining candidate is selected.
                trace.early_stop = true;
                break;
            }
            trace.from_buffer[d - 1] = matches!(source, Source::Buffer(_));
            let buffering = self.buffers(state.count, n);
            let pass = Pass { prev: shifts[d - 1], prefix: state.prefix, shift: shifts[d] };
            let bins = &mut hist[..1 << bits[d]];
            bins.fill(0);
            let (kept, found) = match (source, buffering) {
                (Source::Input, false) => {
                    pass.histogram_input(row, key_of, bins);
                    (0, 0)
                }
                (Source::Input, true) => {
                    // One slot of slack: the compaction stores before it knows.
                    let buf = grow(&mut scratch.ranks, state.count + 1);
                    pass.filter_input(row, key_of, bins, buf, &mut out[written..])
                }
                (Source::Buffer(len), _) => {
                    pass.filter_buffer(&mut scratch.ranks[..len], bins, &mut out[written..])
                }
            };
            match source {
                Source::Input => trace.work.sweep(n),
                Source::Buffer(len) => trace.work.read(len),
            }
            if buffering {
                trace.work.write(kept + found);
                written += found;
                source = Source::Buffer(kept);
            }
            state.narrow(find_bin(bins, state.k_left), bits[d]);
            trace.digits += 1;
            trace.candidates[d] = state.count;
        }
        trace.from_buffer[trace.digits as usize - 1] = matches!(source, Source::Buffer(_));
        let depth = trace.digits as usize - 1;
        let last = Last { shift: shifts[depth], prefix: state.prefix, ties: state.k_left };
        let found = match source {
            Source::Input => {
                trace.work.sweep(n);
                last.filter_input(row, key_of, &mut out[written..])
            }
            Source::Buffer(len) => {
                trace.work.read(len);
                last.filter_buffer(&scratch.ranks[..len], &mut out[written..])
            }
        };
        trace.work.write(found);
        debug_assert_eq!(written + found, k, "AIR wrote a wrong number of results");
        out.sort_unstable();
        trace
    }
}

// AIR Top-K (paper 002, §3) packs a key and its index into one 64-bit buffer word
// and cuts 32-bit keys into 11-bit digits: keys of at most 32 bits (`f64` and `i64` rows are
// refused with `TopKError::UnsupportedElement`).
topk_ref::row_select!(Air, "air", 32, |air, row, k, mode, scratch, out| {
    RowStats::with_work(air.trace_row(Job { row, k, mode, scratch, out }).work)
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::run_job;
    use topk_ref::oracle::canonical_indices;
    use topk_ref::order::Mode;
    use topk_ref::order::ordered_value_of_key;

    /// A row whose largest-mode keys are `keys` (no key is a NaN key).
    fn row_of(keys: &[u32]) -> Vec<f32> {
        keys.iter().map(|&k| ordered_value_of_key(k)).collect()
    }

    fn trace(air: Air, row: &[f32], k: usize, mode: Mode) -> (Vec<u32>, AirTrace) {
        run_job(row, k, mode, |job| air.trace_row(job))
    }

    const N: usize = 1 << 14;

    /// N keys: 100 "hot" ones share top digit 0x5FF (40 of them with second digit 0x7FF, 60
    /// with second digit 0x100 and third digits 0..60), the rest spread below that digit.
    fn crafted() -> Vec<u32> {
        let mut keys: Vec<u32> =
            (0..N as u32).map(|i| 0x8000_0000 | (i * 7919 % 0x1000_0000)).collect();
        for (j, slot) in (0..100).map(|j| (j, j * 163 + 5)) {
            keys[slot] = if j < 40 {
                (0x5FF << 21) | (0x7FF << 10) | j as u32
            } else {
                (0x5FF << 21) | (0x100 << 10) | (j - 40) as u32
            };
        }
        keys
    }

    #[test]
    fn fused_passes_load_2_g1_plus_the_buffers() {
        let row = row_of(&crafted());
        let (got, t) = trace(Air::default(), &row, 50, Mode::Largest);
        assert_eq!(got, canonical_indices(&row, 50, Mode::Largest));
        // C1 = 100 < N/128 = 128: pass 2 re-reads the input and buffers 100; C2 = 60 (40 above).
        // Pass 3 reads the 100, buffers 60; the third digit leaves C3 = 1 (9 above it).
        assert_eq!(t.candidates, [100, 60, 1]);
        assert_eq!(t.from_buffer, [false, true, true]);
        assert!(!t.early_stop);
        // Paper §3.1: 2·G1 + G2 + G3 with G1 = N, G2 = C1, G3 = C2 — against 2·(G1 + G2 + G3)
        // for separate histogram and filter sweeps.
        let fused = 2 * N + 100 + 60;
        assert_eq!(t.work.elements_read, fused as u64);
        assert!(t.work.elements_read < 2 * (N + 100 + 60) as u64);
        // Buffers of 100 and 60 plus the 50 results; two sweeps over the input.
        assert_eq!(t.work.elements_written, 100 + 60 + 50);
        assert_eq!(t.work.passes, 2);
    }

    #[test]
    fn early_stop_when_k_equals_the_candidates() {
        let row = row_of(&crafted());
        let (got, t) = trace(Air::default(), &row, 100, Mode::Largest);
        assert_eq!(got, canonical_indices(&row, 100, Mode::Largest));
        assert!(t.early_stop);
        assert_eq!(t.digits, 1);
        // One histogram sweep, then the last filter over the input: nothing buffered.
        assert_eq!(t.work.elements_read, 2 * N as u64);
        assert_eq!(t.work.elements_written, 100);
        assert_eq!(t.work.passes, 2);
    }

    /// Keys whose first 20 bits are equal (the paper's radix-adversarial family, §3.2).
    fn adversarial() -> Vec<f32> {
        row_of(&(0..N as u32).map(|i| 0xBF80_0000 | (i % 4096)).collect::<Vec<_>>())
    }

    #[test]
    fn adaptive_buffer_writes_nothing_on_adversarial_rows() {
        let row = adversarial();
        let (got, t) = trace(Air::default(), &row, 10, Mode::Largest);
        assert_eq!(got, canonical_indices(&row, 10, Mode::Largest));
        // Digit 1: one bin (C1 = N); digit 2: bits 11–10 vary, C2 = N/4; digit 3: 4 ties.
        assert_eq!(t.candidates, [N, N / 4, 4]);
        assert_eq!(t.from_buffer, [false, false, false]);
        assert_eq!((t.work.elements_read, t.work.passes), (4 * N as u64, 4));
        assert_eq!(t.work.elements_written, 10, "only the results are written");
        // Always buffering writes N + N/4 candidates (and reads them back instead).
        let (got, t) = trace(Air::always_buffer(), &row, 10, Mode::Largest);
        assert_eq!(got, canonical_indices(&row, 10, Mode::Largest));
        assert_eq!(t.from_buffer, [false, true, true]);
        assert_eq!(t.work.elements_written, (N + N / 4 + 10) as u64);
        assert_eq!(t.work.elements_read, (2 * N + N + N / 4) as u64);
    }

    #[test]
    fn alpha_is_checked_and_extreme_alphas_are_exact() {
        assert!(Air::new(0).is_err());
        let row = row_of(&crafted());
        // α = N never buffers (§3.2); α = 1 buffers whenever C < N.
        for alpha in [1, 4, N as u32] {
            let air = Air::new(alpha).unwrap();
            for k in [1, 37, 50, 99, 100, 101, 5000, N] {
                for mode in [Mode::Largest, Mode::Smallest] {
                    let (got, _) = trace(air, &row, k, mode);
                    assert_eq!(got, canonical_indices(&row, k, mode), "α={alpha} k={k}");
                }
            }
        }
        let (_, t) = trace(Air::new(N as u32).unwrap(), &row, 50, Mode::Largest);
        assert_eq!(t.from_buffer, [false, false, false]);
    }

    #[test]
    fn ties_at_the_kth_key_go_to_the_lower_indices() {
        let row = [1.0, 3.0, 3.0, 3.0, 0.0, 3.0, f32::NAN, -0.0, 0.0];
        for k in 1..=row.len() {
            for mode in [Mode::Largest, Mode::Smallest] {
                let (got, _) = trace(Air::default(), &row, k, mode);
                assert_eq!(got, canonical_indices(&row, k, mode), "k={k} {mode:?}");
            }
        }
    }

    #[test]
    fn sixteen_bit_keys_take_two_digits() {
        assert_eq!(
            Digits::for_key_bits(32),
            Digits { count: 3, bits: DIGIT_BITS, shifts: [21, 10, 0] }
        );
        assert_eq!(DIGIT_BITS_16, [11, 5]);
        assert_eq!(Digits::for_key_bits(16).shifts, [5, 0, 0]);
        // f16 keys sharing their top 11 bits (the low 5 vary): the first digit keeps every
        // element, the second (5 bits) the ties at the top; nothing is buffered (C >= N/128),
        // so the input is read three times — against four times for 32-bit keys.
        let row: Vec<topk_ref::f16> =
            (0..N as u16).map(|i| topk_ref::f16::from_bits(0x3C00 | (i % 32))).collect();
        let (out, t) = run_job(&row, 10, Mode::Largest, |job| Air::default().trace_row(job));
        assert_eq!(out, canonical_indices(&row, 10, Mode::Largest));
        assert_eq!((t.digits, t.candidates), (2, [N, N / 32, 0]));
        assert_eq!(t.from_buffer, [false, false, false]);
        assert_eq!((t.work.elements_read, t.work.passes), (3 * N as u64, 3));
        assert_eq!(t.work.elements_written, 10);
    }

    #[test]
    fn find_bin_walks_from_the_top() {
        let mut hist = [0u32; 64];
        hist[63] = 2;
        hist[40] = 5;
        hist[0] = 1;
        assert_eq!(find_bin(&hist, 1), Bin { digit: 63, higher: 0, count: 2 });
        assert_eq!(find_bin(&hist, 3), Bin { digit: 40, higher: 2, count: 5 });
        assert_eq!(find_bin(&hist, 8), Bin { digit: 0, higher: 7, count: 1 });
    }
}
