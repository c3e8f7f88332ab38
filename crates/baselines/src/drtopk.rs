//! `drtopk` — Dr. Top-k: delegate-centric top-k (paper 004, §4 and §5).
//!
//! # Idea
//! Cut the row into subranges of `2^α` elements and let each send **delegates** — its `β`
//! largest elements (`β = 2` by default, §4.3: "β = 2 always yield good performance") — to a
//! small *delegate vector* D. Then:
//!
//! 1. **First top-k** on D (§4.1, Rule 1). Its k-th element `t` is a lower bound for the
//!    row's k-th (Rule 2: D is a subset of the row).
//! 2. **β-delegate rule** (§4.3, Rule 3). A subrange contributes more than its delegates only
//!    if *all* its β delegates made the first top-k: its other elements all rank below its
//!    β-th delegate. Other subranges contribute just the delegates that made it.
//! 3. **Concatenation with delegate filtering** (§4.2). The qualified subranges are read again
//!    and only their elements at or above `t` are kept; with the first top-k's delegates they
//!    form the concatenated vector C.
//! 4. **Second top-k** on C gives the answer. When no subrange qualifies, the first top-k *is*
//!    the answer and steps 3–4 are skipped (Fig. 8(b)).
//!
//! The subrange size follows **Rule 4** (§5.2): `α = ⌊½·(Const + log2 M − log2 k)⌋` with
//! `Const = 3`, the paper's tuned value (§5.2, Fig. 14; it gives α = 4 for M = 2^30, k = 2^24
//! as in §5.3). α is lowered when D would hold fewer than k delegates. Both top-k steps use a
//! selectable **base** algorithm (§5.1, "Choice of top-k algorithms"): radix select
//! ([`topk_ref::radix`], the default, the base the paper recommends as k grows) or bitonic top-k
//! ([`topk_ref::bitonic`]).
//!
//! Everything is compared by unique ranks ([`topk_ref::order::rank`]), so Rules 1–3 hold with
//! strict inequalities, and D and C are kept in index order, so the base's ties-by-position are
//! ties by index: the result is the canonical top-k (docs/contract.md §1).
//!
//! # Cost
//! One pass over the row to build D (`β·M/2^α` delegates), a top-k over D, a re-read of the
//! qualified subranges (at most `k/β` of them, `2^α` elements each) and a top-k over C. Rule 4
//! balances the first two (shrinking with α) against the last two (growing with α): with
//! `2^α ≈ 2.8·sqrt(M/k)` both sides are about `sqrt(M·k)` elements, so for `k ≪ M` nearly all
//! the work is the one pass that builds D. Extra memory: D and C (`u64`) in the scratch.
//!
//! # On a GPU
//! Delegate construction is warp-centric: a warp scans a subrange and reduces its maximum with
//! shuffles (31 per subrange, Eq. 2), or, for small subranges, loads 32 of them to shared
//! memory and lets each thread scan one (§5.3). The first and second top-k are the base
//! kernels (an in-place radix top-k with a flag, §5.1); concatenation appends with atomics.
//! The counters ([`WorkCounters`]) count Eq. 2–5's global accesses: M reads and |D| writes,
//! the base's traffic on D, k delegate reads plus the qualified subranges' reads and |C|
//! writes, the base's traffic on C.

use topk_ref::algorithm::{RowStats, Scratch, WorkCounters, grow, selection_reads};
use topk_ref::bitonic::{PAD, top_run};
use topk_ref::order::{Element, KeyBits, rank, rank_index, rank_key};
use topk_ref::radix::kth_key;
use topk_ref::select::select_with_kth_key;

use crate::error::BaselineError;
use crate::job::{Job, Keyed, KeyedRun};

/// The base top-k algorithm of both top-k steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Base {
    /// MSD radix select with 8-bit digits ([`topk_ref::radix::kth_key`]).
    #[default]
    Radix,
    /// Bitonic top-k ([`topk_ref::bitonic::top_run`]).
    Bitonic,
}

/// Dr. Top-k (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrTopK {
    beta: usize,
    base: Base,
    alpha: Option<u32>,
}

impl Default for DrTopK {
    fn default() -> Self {
        Self { beta: Self::DEFAULT_BETA, base: Base::Radix, alpha: None }
    }
}

/// What one row's run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrTrace {
    /// log2 of the subrange size used.
    pub alpha: u32,
    /// Delegates in D.
    pub delegates: usize,
    /// Subranges re-read because all their β delegates made the first top-k.
    pub qualified: usize,
    /// Elements re-read from those subranges.
    pub rescanned: usize,
    /// Elements in the concatenated vector C (0 when the second top-k was skipped).
    pub concatenated: usize,
    /// `false` when the first top-k was the answer (no subrange qualified).
    pub second_topk: bool,
    /// The data moved.
    pub work: WorkCounters,
}

impl DrTopK {
    /// β used by default (§4.3).
    pub const DEFAULT_BETA: usize = 2;
    /// The largest β accepted.
    pub const MAX_BETA: usize = 16;
    /// Rule 4's constant, as tuned in the paper (§5.2).
    pub const RULE4_CONST: f64 = 3.0;

    /// Dr. Top-k with `beta` delegates per subrange (1 = maximum delegates, §4.1) and `base`.
    pub fn new(beta: usize, base: Base) -> Result<Self, BaselineError> {
        if !(1..=Self::MAX_BETA).contains(&beta) {
            return Err(BaselineError::invalid(
                "beta",
                format!("must be between 1 and {}, got {beta}", Self::MAX_BETA),
            ));
        }
        Ok(Self { beta, base, alpha: None })
    }

    /// The same, with subranges of `2^alpha` instead of Rule 4's size (still lowered when D
    /// would hold fewer than k delegates).
    pub const fn with_alpha(self, alpha: u32) -> Self {
        Self { alpha: Some(alpha), ..self }
    }

    /// The base top-k algorithm.
    pub const fn base(&self) -> Base {
        self.base
    }

    /// Rule 4: `α = ⌊½·(Const + log2 m − log2 k)⌋`, clamped to `0 ..= log2 m`.
    pub fn rule4_alpha(m: usize, k: usize) -> u32 {
        let a = 0.5 * (Self::RULE4_CONST + (m as f64).log2() - (k.max(1) as f64).log2());
        (a.floor().max(0.0) as u32).min(m.ilog2())
    }

    /// Delegates of a row of `m` with subranges of `2^alpha` and `beta` delegates each.
    pub fn delegate_count(m: usize, alpha: u32, beta: usize) -> usize {
        let s = 1usize << alpha;
        (m / s) * beta.min(s) + beta.min(m % s)
    }

    /// The α used for a row of `m` and `k`.
    pub fn alpha_for(&self, m: usize, k: usize) -> u32 {
        let mut a = self.alpha.unwrap_or_else(|| Self::rule4_alpha(m, k)).min(m.ilog2());
        while a > 0 && Self::delegate_count(m, a, self.beta) < k {
            a -= 1;
        }
        a
    }

    /// Runs one row ([`Job`]) and reports what it did.
    pub fn trace_row<E: Element>(&self, job: Job<'_, E>) -> DrTrace {
        job.run_u32(self)
    }
}

/// Size of subrange `i` of a row of `m` cut into subranges of `2^alpha`.
fn subrange_len(i: usize, alpha: u32, m: usize) -> usize {
    (1usize << alpha).min(m - (i << alpha))
}

/// Writes each subrange's `beta` best ranks (all its elements when it is shorter) to `d`,
/// subrange by subrange, each subrange's delegates in index order.
fn build_delegates<E: Element>(
    row: &[E],
    alpha: u32,
    beta: usize,
    key_of: impl Fn(E) -> u32,
    d: &mut [u64],
) {
    let mut n = 0;
    for (s, sub) in row.chunks(1 << alpha).enumerate() {
        let base = (s << alpha) as u32;
        let keep = beta.min(sub.len());
        // The best `keep` so far, best first: each rank bubbles down the tiny list with
        // max/min pairs, without branches (β is 2 by default; a warp keeps it in registers).
        let mut best = [PAD; DrTopK::MAX_BETA];
        let best = &mut best[..keep];
        for (j, &v) in sub.iter().enumerate() {
            let mut r = rank(key_of(v), base + j as u32);
            for b in best.iter_mut() {
                let (hi, lo) = ((*b).max(r), (*b).min(r));
                *b = hi;
                r = lo;
            }
        }
        // Index order inside the subrange keeps D in index order (an insertion sort: β is
        // tiny, a library sort's call would cost more than the sorting).
        for i in 1..keep {
            let mut p = i;
            while p > 0 && rank_index(best[p - 1]) > rank_index(best[p]) {
                best.swap(p - 1, p);
                p -= 1;
            }
        }
        for (slot, &r) in d[n..n + keep].iter_mut().zip(best.iter()) {
            *slot = r;
        }
        n += keep;
    }
    debug_assert_eq!(n, d.len());
}

/// How the first top-k's delegates fall into subranges (Rule 3).
struct Plan {
    /// Subranges whose delegates were all taken and that hold more than their delegates.
    qualified: usize,
    /// Elements of those subranges.
    rescanned: usize,
}

impl Plan {
    fn of(t1: &[u64], alpha: u32, beta: usize, m: usize) -> Self {
        let mut plan = Plan { qualified: 0, rescanned: 0 };
        for_each_group(t1, alpha, |sub, taken| {
            let len = subrange_len(sub, alpha, m);
            if taken.len() == beta.min(len) && len > beta {
                plan.qualified += 1;
                plan.rescanned += len;
            }
        });
        plan
    }
}

/// Calls `f(subrange, its ranks)` for each run of `t1` (index order) in one subrange.
fn for_each_group(t1: &[u64], alpha: u32, mut f: impl FnMut(usize, &[u64])) {
    let mut start = 0;
    while start < t1.len() {
        let sub = rank_index(t1[start]) as usize >> alpha;
        let end = start
            + t1[start..].iter().take_while(|&&r| rank_index(r) as usize >> alpha == sub).count();
        f(sub, &t1[start..end]);
        start = end;
    }
}

/// Builds C into `c`: per subrange in index order, its elements ranked at least `floor` when
/// all its β delegates were taken (and it holds more), else its taken delegates. Returns |C|.
fn concatenate<E: Element>(
    row: &[E],
    t1: &[u64],
    alpha: u32,
    beta: usize,
    floor: u64,
    key_of: impl Fn(E) -> u32,
    c: &mut [u64],
) -> usize {
    let m = row.len();
    let mut n = 0;
    for_each_group(t1, alpha, |sub, taken| {
        let len = subrange_len(sub, alpha, m);
        if taken.len() == beta.min(len) && len > beta {
            let start = sub << alpha;
            for (j, &v) in row[start..start + len].iter().enumerate() {
                let r = rank(key_of(v), (start + j) as u32);
                // Rule 2: below the first top-k's k-th rank cannot be in the answer.
                c[n] = r;
                n += usize::from(r >= floor);
            }
        } else {
            c[n..n + taken.len()].copy_from_slice(taken);
            n += taken.len();
        }
    });
    n
}

/// The k largest of `v[..len]` (ranks in index order, of keys of type `K`), left in `v[..k]`
/// in index order. Returns the base's element traffic on `v` (its reads and writes, the k
/// results included).
fn base_topk<K: KeyBits>(
    base: Base,
    v: &mut Vec<u64>,
    len: usize,
    k: usize,
    scratch: &mut Scratch,
) -> WorkCounters {
    match base {
        Base::Radix => radix_topk::<K>(v, len, k, scratch),
        Base::Bitonic => bitonic_topk(v, len, k),
    }
}

fn radix_topk<K: KeyBits>(
    v: &mut [u64],
    len: usize,
    k: usize,
    scratch: &mut Scratch,
) -> WorkCounters {
    // The keys are computed as `v` is loaded; positions in `v` are index order, so the radix
    // selection's ties by position are ties by index. The keys have the row's key width (a
    // rank holds the element's own key), so 16-bit rows get 16-bit radix passes.
    let mut keys = std::mem::take(&mut K::buffers(scratch).keys);
    let kv = grow(&mut keys, len);
    kv.iter_mut().zip(&v[..len]).for_each(|(key, &r)| *key = K::from_u32(rank_key(r)));
    let kth = kth_key(kv, k, scratch);
    let pos = grow(&mut scratch.idx2, k);
    select_with_kth_key(kv, kth.key, kth.above, k, pos);
    let mut work = kth.work;
    work.read(pos.last().map_or(0, |&p| selection_reads(p, len)));
    work.write(k);
    // Positions ascend and pos[j] >= j, so compacting in place never overwrites a later one.
    for (j, &p) in pos.iter().enumerate() {
        v[j] = v[p as usize];
    }
    K::buffers(scratch).keys = keys;
    work
}

fn bitonic_topk(v: &mut Vec<u64>, len: usize, k: usize) -> WorkCounters {
    let run = k.next_power_of_two();
    let padded = len.next_multiple_of(run);
    if v.len() < padded {
        v.resize(padded, PAD);
    }
    v[len..padded].fill(PAD);
    let mut work = WorkCounters::default();
    top_run(&mut v[..padded], run, &mut work);
    let top = &mut v[..k];
    top.sort_unstable_by_key(|&r| rank_index(r));
    work.write(k);
    work
}

fn write_indices(ranks: &[u64], out: &mut [u32]) {
    for (o, &r) in out.iter_mut().zip(ranks) {
        *o = rank_index(r);
    }
}

impl KeyedRun for DrTopK {
    type Trace = DrTrace;

    fn run<E: Element, K: Fn(E) -> u32 + Copy>(&self, job: Keyed<'_, E, K>) -> DrTrace {
        let Keyed { row, k, key_of, scratch, out } = job;
        let m = row.len();
        let alpha = self.alpha_for(m, k);
        let mut trace = DrTrace { alpha, ..DrTrace::default() };
        // Step 0: the delegate vector, in index order.
        let mut d = std::mem::take(&mut scratch.ranks);
        trace.delegates = Self::delegate_count(m, alpha, self.beta);
        let dv = grow(&mut d, trace.delegates);
        build_delegates(row, alpha, self.beta, key_of, dv);
        trace.work.sweep(m);
        trace.work.write(trace.delegates);
        // Step 1: the first top-k; D's front now holds it, in index order.
        let first = base_topk::<E::Key>(self.base, &mut d, trace.delegates, k, scratch);
        trace.work.add_traffic(&first);
        let t1 = &d[..k];
        let floor = t1.iter().copied().min().unwrap_or(PAD);
        let plan = Plan::of(t1, alpha, self.beta, m);
        if plan.qualified == 0 {
            // Fig. 8(b): no subrange gave all its delegates; the first top-k is the answer.
            write_indices(t1, out);
            scratch.ranks = d;
            return trace;
        }
        // Steps 2–3: concatenate the first top-k's delegates and the qualified subranges'
        // elements at or above the floor (Rule 2), in index order.
        let mut c = std::mem::take(&mut scratch.ranks2);
        let cv = grow(&mut c, k + plan.rescanned);
        let len = concatenate(row, t1, alpha, self.beta, floor, key_of, cv);
        trace.qualified = plan.qualified;
        trace.rescanned = plan.rescanned;
        trace.concatenated = len;
        trace.second_topk = true;
        trace.work.read(k + plan.rescanned);
        trace.work.write(len);
        // Step 4: the second top-k.
        let second = base_topk::<E::Key>(self.base, &mut c, len, k, scratch);
        trace.work.add_traffic(&second);
        write_indices(&c[..k], out);
        scratch.ranks = d;
        scratch.ranks2 = c;
        trace
    }
}

// Dr. Top-k (paper 004) keeps delegates as key-index pairs packed in 64 bits: keys of at
// most 32 bits (`f64` and `i64` rows are refused with `TopKError::UnsupportedElement`).
topk_ref::row_select!(DrTopK, "drtopk", 32, |dr, row, k, mode, scratch, out| {
    RowStats::with_work(dr.trace_row(Job { row, k, mode, scratch, out }).work)
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::run_job;
    use topk_ref::oracle::canonical_indices;
    use topk_ref::order::Mode;

    /// The 16-element vector of the paper's Figures 5 and 8, in subranges of 4.
    const FIG: [f32; 16] = [
        2001.0, 101.0, 1323.0, 3012.0, 2313.0, 1000.0, 500.0, 20.0, 3000.0, 3010.0, 1002.0, 3210.0,
        2321.0, 7.0, 8.0, 9.0,
    ];

    fn trace(dr: DrTopK, row: &[f32], k: usize, mode: Mode) -> (Vec<u32>, DrTrace) {
        run_job(row, k, mode, |job| dr.trace_row(job))
    }

    #[test]
    fn figure_8a_beta_delegates_top_3() {
        for base in [Base::Radix, Base::Bitonic] {
            let dr = DrTopK::new(2, base).unwrap().with_alpha(2);
            let (got, t) = trace(dr, &FIG, 3, Mode::Largest);
            assert_eq!(got, [3, 9, 11]);
            // D = 2 delegates x 4 subranges; subrange 2 gave both (3210, 3010) and is re-read;
            // C = {3012, 3010, 3210}, as in the paper.
            assert_eq!((t.alpha, t.delegates, t.qualified, t.rescanned), (2, 8, 1, 4));
            assert_eq!((t.concatenated, t.second_topk), (3, true));
            assert_eq!(t.work.passes, 1);
        }
    }

    #[test]
    fn figure_8b_no_second_topk() {
        let dr = DrTopK::default().with_alpha(2);
        let (got, t) = trace(dr, &FIG, 2, Mode::Largest);
        assert_eq!(got, [3, 11]);
        assert!(!t.second_topk, "no subrange gave both its delegates");
        assert_eq!(t.concatenated, 0);
        // The delegate pass and D, then the base's traffic on D only.
        assert_eq!(t.work.passes, 1);
        assert!(t.work.elements_read >= 16 + 8);
    }

    #[test]
    fn figure_5_maximum_delegates_with_filtering() {
        // β = 1: the maxima {3012, 2313, 3210, 2321}; top-2 takes subranges 0 and 2, whose
        // elements at or above 3012 are only the two maxima (Rule 2's example, §4.2).
        let dr = DrTopK::new(1, Base::Radix).unwrap().with_alpha(2);
        let (got, t) = trace(dr, &FIG, 2, Mode::Largest);
        assert_eq!(got, [3, 11]);
        assert_eq!((t.delegates, t.qualified, t.rescanned, t.concatenated), (4, 2, 8, 2));
        // The totals are Eq. 2–5's terms: 16 reads and 4 writes for D; the base on D; 2 taken
        // delegates and 8 subrange elements read, 2 written to C; the base on C.
        let key = |v: f32| topk_ref::order::key_largest(v);
        let mut scratch = Scratch::default();
        let mut dv = vec![
            rank(key(3012.0), 3),
            rank(key(2313.0), 4),
            rank(key(3210.0), 11),
            rank(key(2321.0), 12),
        ];
        let first = base_topk::<u32>(Base::Radix, &mut dv, 4, 2, &mut scratch);
        let mut cv = vec![rank(key(3012.0), 3), rank(key(3210.0), 11)];
        let second = base_topk::<u32>(Base::Radix, &mut cv, 2, 2, &mut scratch);
        let w = t.work;
        assert_eq!(w.elements_read, 16 + first.elements_read + 2 + 8 + second.elements_read);
        assert_eq!(w.elements_written, 4 + first.elements_written + 2 + second.elements_written);
        assert_eq!(w.passes, 1);
    }

    #[test]
    fn rule_4() {
        // §5.3: "when |V| = 2^30 and k = 2^24, the optimal α = 4".
        assert_eq!(DrTopK::rule4_alpha(1 << 30, 1 << 24), 4);
        assert_eq!(DrTopK::rule4_alpha(1 << 20, 32), 9);
        assert_eq!(DrTopK::rule4_alpha(256, 16), 3);
        // Too few delegates for k: α shrinks until β·M/2^α >= k.
        let dr = DrTopK::default();
        assert_eq!(dr.alpha_for(768, 512), 1);
        assert!(DrTopK::delegate_count(768, 1, 2) >= 512);
        assert_eq!(DrTopK::delegate_count(10, 2, 2), 2 * 2 + 2);
        assert!(DrTopK::new(0, Base::Radix).is_err());
        assert!(DrTopK::new(17, Base::Radix).is_err());
    }

    #[test]
    fn every_k_and_alpha_on_tied_rows() {
        let row: Vec<f32> = (0..300).map(|i| ((i * 37) % 11) as f32 - 5.0).collect();
        for base in [Base::Radix, Base::Bitonic] {
            for beta in [1, 2, 3] {
                for alpha in [0, 1, 3, 5, 9] {
                    let dr = DrTopK::new(beta, base).unwrap().with_alpha(alpha);
                    for k in [1, 2, 5, 31, 150, 299, 300] {
                        for mode in [Mode::Largest, Mode::Smallest] {
                            let (got, _) = trace(dr, &row, k, mode);
                            assert_eq!(
                                got,
                                canonical_indices(&row, k, mode),
                                "{base:?} β={beta} α={alpha} k={k}"
                            );
                        }
                    }
                }
            }
        }
    }
}
