//! [`Request`]: everything a caller asks of one selection, built once with a
//! [`RequestBuilder`] and checked there (the algorithm, its parameters, the outputs, the
//! device), then against the rows ([`Request::check`]) by the one [`crate::select`] every face
//! calls.

use topk_ref::{Bisect, Mode, Options};

use crate::caps::{Capabilities, Device};
use crate::dtype::Dtype;
use crate::error::Error;
use crate::param::Param;
use crate::params::{Params, Precision, Recall};
use crate::table::{self, unsupported};

/// What `auto` stands for on the CPU: `bisect`, RTop-K's bisection (Algorithms 1 and 2), whose
/// parameters and outputs it takes. An exact call without iteration counts runs each row on
/// the faster of `bisect` and `heap` for its shape, with `bisect`'s answer ([`crate::auto`]).
pub const AUTO_CPU: &str = "bisect";
/// What `auto` stands for on a GPU: the RTop-K CUDA kernel.
pub const AUTO_GPU: &str = "cuda";

/// How many values to select per row.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum K {
    /// The same `k` for every row (`0 <= k <= M`).
    One(usize),
    /// `k[i]` for row `i` (N entries, each `0 <= k[i] <= M`; docs/contract.md §5): the outputs
    /// are `(N, max k[i])`, a row selecting fewer padded.
    PerRow(Vec<usize>),
}

impl K {
    /// The `k` of every row, where one `k` holds for all of them (`None` for [`K::PerRow`]).
    pub fn uniform(&self) -> Option<usize> {
        match self {
            K::One(k) => Some(*k),
            K::PerRow(_) => None,
        }
    }

    /// The output width: the scalar `k`, or the largest `k[i]` (0 for no rows).
    pub fn width(&self) -> usize {
        match self {
            K::One(k) => *k,
            K::PerRow(ks) => ks.iter().copied().max().unwrap_or(0),
        }
    }

    /// The `k` of each row, where given per row.
    pub fn per_row(&self) -> Option<&[usize]> {
        match self {
            K::One(_) => None,
            K::PerRow(ks) => Some(ks),
        }
    }

    /// topk-ref's view of it.
    pub(crate) fn as_ref_k(&self) -> topk_ref::KPerRow<'_> {
        match self {
            K::One(k) => topk_ref::KPerRow::One(*k),
            K::PerRow(ks) => topk_ref::KPerRow::PerRow(ks),
        }
    }
}

impl Default for K {
    fn default() -> Self {
        K::One(0)
    }
}

/// The width of the indices written (on the host they are `u32`; a face converts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IndexWidth {
    /// 32-bit: rows of at most 2^31 elements, so that a signed reader (int32) sees them too.
    #[default]
    U32,
    /// 64-bit signed (int64).
    I64,
}

impl IndexWidth {
    /// The width in bits (32 or 64), as Python names it (`index_bits`).
    pub fn from_bits(bits: u32) -> Result<Self, Error> {
        match bits {
            32 => Ok(IndexWidth::U32),
            64 => Ok(IndexWidth::I64),
            other => Err(Error::BadIndexWidth { bits: other }),
        }
    }

    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self {
            IndexWidth::U32 => 32,
            IndexWidth::I64 => 64,
        }
    }
}

/// Where the rows are, and so which device runs the selection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Place {
    /// Host memory: the CPU algorithms run there; `cuda` copies the rows to GPU 0 and back.
    #[default]
    Cpu,
    /// Memory of CUDA device `ordinal` (only `cuda`, or `auto`, reads it); for host rows given
    /// to `cuda`, the GPU it copies them to.
    Cuda(usize),
}

impl Place {
    /// The kind of device.
    pub fn device(self) -> Device {
        match self {
            Place::Cpu => Device::Cpu,
            Place::Cuda(_) => Device::Gpu,
        }
    }

    /// The GPU a `cuda` selection runs on.
    pub fn ordinal(self) -> usize {
        match self {
            Place::Cpu => 0,
            Place::Cuda(o) => o,
        }
    }
}

/// Which outputs are wanted. Iteration counts cost a route that never splits a row
/// (docs/contract.md §3), so they are computed only when asked for. Values and indices come
/// from one selection: on host rows both are returned whichever is asked for (a face writes
/// the ones asked for), and on device buffers both must be given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wanted {
    /// The `(N, k)` values.
    pub values: bool,
    /// The `(N, k)` indices.
    pub indices: bool,
    /// The `(N,)` iteration counts (docs/contract.md §3).
    pub iterations: bool,
    /// Each row's threshold (docs/contract.md §5).
    pub threshold: bool,
}

impl Default for Wanted {
    /// Values and indices.
    fn default() -> Self {
        Self { values: true, indices: true, iterations: false, threshold: false }
    }
}

/// A checked request: build one with [`Request::builder`] (or [`Request::new`]), give it to
/// [`crate::select`] with the rows. Plain data: cheap to clone, shareable between threads.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    algo: &'static str,
    /// `auto` was asked for (`algo` is the place's default).
    auto: bool,
    k: K,
    options: Options,
    wanted: Wanted,
    params: Params,
    bisect: Bisect,
    index: IndexWidth,
    place: Place,
    lengths: Option<Vec<usize>>,
    hint: Option<Vec<f32>>,
}

/// Builds a [`Request`]: every setter is plain, [`RequestBuilder::build`] checks them all
/// together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RequestBuilder {
    algo: String,
    k: K,
    options: Options,
    wanted: Wanted,
    params: Params,
    index: IndexWidth,
    place: Place,
    lengths: Option<Vec<usize>>,
    hint: Option<Vec<f32>>,
}

impl RequestBuilder {
    /// `k` values from every row.
    pub fn k(mut self, k: usize) -> Self {
        self.k = K::One(k);
        self
    }

    /// `k` as a [`K`].
    pub fn k_of(mut self, k: K) -> Self {
        self.k = k;
        self
    }

    /// `k[i]` values from row `i` (docs/contract.md §5): [`K::PerRow`].
    pub fn k_per_row(mut self, k: Vec<usize>) -> Self {
        self.k = K::PerRow(k);
        self
    }

    /// The largest values (`true`, the default) or the smallest.
    pub fn largest(mut self, largest: bool) -> Self {
        self.options.mode = if largest { Mode::Largest } else { Mode::Smallest };
        self
    }

    /// Largest or smallest.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.options.mode = mode;
        self
    }

    /// Each row's results in value order (`true`) or index order (the default).
    pub fn sorted(mut self, sorted: bool) -> Self {
        self.options.sorted = sorted;
        self
    }

    /// Mode and order at once.
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// Which outputs are wanted.
    pub fn wanted(mut self, wanted: Wanted) -> Self {
        self.wanted = wanted;
        self
    }

    /// The values wanted or not.
    pub fn values(mut self, on: bool) -> Self {
        self.wanted.values = on;
        self
    }

    /// The indices wanted or not.
    pub fn indices(mut self, on: bool) -> Self {
        self.wanted.indices = on;
        self
    }

    /// Iteration counts wanted or not (docs/contract.md §3).
    pub fn iterations(mut self, on: bool) -> Self {
        self.wanted.iterations = on;
        self
    }

    /// Each row's threshold wanted or not (docs/contract.md §5).
    pub fn threshold(mut self, on: bool) -> Self {
        self.wanted.threshold = on;
        self
    }

    /// The bisection's parameters at once (docs/contract.md §2).
    pub fn params(mut self, params: Params) -> Self {
        self.params = params;
        self
    }

    /// Early stopping after `max_iter` steps (Algorithm 2).
    pub fn max_iter(mut self, max_iter: u32) -> Self {
        self.params.max_iter = Some(max_iter);
        self
    }

    /// Algorithm 1 with precision ε'.
    pub fn precision(mut self, precision: Precision) -> Self {
        self.params.precision = Some(precision);
        self
    }

    /// Exact search stopped once every row's recall is at least `recall`
    /// (docs/contract.md §6; the bisection family only, without `max_iter` or `precision`).
    pub fn recall(mut self, recall: Recall) -> Self {
        self.params.recall = Some(recall);
        self
    }

    /// The width of the indices.
    pub fn index_width(mut self, width: IndexWidth) -> Self {
        self.index = width;
        self
    }

    /// Where the rows are.
    pub fn place(mut self, place: Place) -> Self {
        self.place = place;
        self
    }

    /// Each row's own length (`lengths[r] <= M`; docs/contract.md §5).
    pub fn lengths(mut self, lengths: Vec<usize>) -> Self {
        self.lengths = Some(lengths);
        self
    }

    /// Each row's threshold hint (docs/contract.md §5).
    pub fn hint(mut self, hint: Vec<f32>) -> Self {
        self.hint = Some(hint);
        self
    }

    /// The checked request: the algorithm is a registry name or `auto` (the place's default),
    /// its parameters are ones it takes and describe one search, the outputs are ones it
    /// gives (at least one of them), and it runs where the rows are.
    pub fn build(self) -> Result<Request, Error> {
        let entry = table::lookup(match (self.algo.as_str(), self.place.device()) {
            ("auto", Device::Cpu) => AUTO_CPU,
            ("auto", Device::Gpu) => AUTO_GPU,
            (name, _) => name,
        })
        .ok_or_else(|| table::unknown(&self.algo))?;
        let caps = entry.caps;
        if !caps.bisection_params {
            if let Some(&param) = self.params.given().first() {
                return Err(unsupported(param, entry.name));
            }
        }
        let bisect = self.params.bisect()?;
        bisect.validate()?;
        let w = self.wanted;
        if !(w.values || w.indices || w.iterations || w.threshold) {
            return Err(Error::NothingWanted);
        }
        if w.iterations && !caps.iterations {
            return Err(unsupported(Param::Iterations, entry.name));
        }
        // a CPU algorithm cannot read device memory (`cuda` reads host rows: it copies them)
        if self.place.device() == Device::Gpu && caps.device != Device::Gpu {
            return Err(Error::WrongDevice {
                algo: entry.name.to_string(),
                why: format!(
                    "the input is on a GPU, where only '{AUTO_GPU}' (or 'auto') runs; move it \
                     to the CPU for the CPU algorithms"
                ),
            });
        }
        Ok(Request {
            algo: entry.name,
            auto: self.algo == "auto",
            k: self.k,
            options: self.options,
            wanted: self.wanted,
            params: self.params,
            bisect,
            index: self.index,
            place: self.place,
            lengths: self.lengths,
            hint: self.hint,
        })
    }
}

impl Request {
    /// A builder for `algo` (a registry name, or `auto`): `k = 0`, largest, index order,
    /// values and indices, exact search, 32-bit indices, host rows.
    pub fn builder(algo: impl Into<String>) -> RequestBuilder {
        RequestBuilder { algo: algo.into(), ..RequestBuilder::default() }
    }

    /// The `k` largest of every row with `algo`'s defaults: `Request::builder(algo).k(k).build()`.
    pub fn new(algo: &str, k: usize) -> Result<Self, Error> {
        Self::builder(algo).k(k).build()
    }

    /// The registry name (`auto` resolved): the algorithm whose parameters and outputs the
    /// request was checked against. On the CPU, `auto`'s rows may run on another algorithm of
    /// the same answer ([`crate::auto`]).
    pub fn algo(&self) -> &'static str {
        self.algo
    }

    /// Whether `auto` was asked for (the place's default, [`Request::algo`]).
    pub fn is_auto(&self) -> bool {
        self.auto
    }

    /// What the algorithm supports.
    pub fn caps(&self) -> Capabilities {
        table::lookup(self.algo).map(|e| e.caps).unwrap_or(crate::caps::ROW_CPU)
    }

    /// How many values per row.
    pub fn k(&self) -> &K {
        &self.k
    }

    /// Largest or smallest, index or value order.
    pub fn options(&self) -> Options {
        self.options
    }

    /// The outputs wanted.
    pub fn wanted(&self) -> Wanted {
        self.wanted
    }

    /// The parameters as given.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The bisection the parameters describe.
    pub fn bisect(&self) -> Bisect {
        self.bisect
    }

    /// The index width.
    pub fn index_width(&self) -> IndexWidth {
        self.index
    }

    /// Where the rows are.
    pub fn place(&self) -> Place {
        self.place
    }

    /// Each row's length, if given.
    pub fn lengths(&self) -> Option<&[usize]> {
        self.lengths.as_deref()
    }

    /// Each row's threshold hint, if given.
    pub fn hint(&self) -> Option<&[f32]> {
        self.hint.as_deref()
    }

    /// `true` when the request is ragged (docs/contract.md §5): rows of their own length, a
    /// k per row, or threshold hints. The plain path serves every other request.
    pub fn is_ragged(&self) -> bool {
        self.lengths.is_some() || self.hint.is_some() || matches!(self.k, K::PerRow(_))
    }

    /// topk-ref's description of the rows this request selects from.
    pub(crate) fn rows(&self) -> topk_ref::Rows<'_> {
        topk_ref::Rows {
            lengths: self.lengths.as_deref(),
            k: self.k.as_ref_k(),
            hint: self.hint.as_deref(),
        }
    }

    /// Checks the request against `n` rows of `m` elements of `dtype`: the algorithm takes
    /// the type, `0 <= k <= M` (every `k[i]` for a k per row) and `M >= 1`, 32-bit indices
    /// reach every element, per-row inputs have one entry per row and lengths are at most
    /// `M`; then that the algorithm honours every input given. Returns the output width (the
    /// `k` of every row, or the largest `k[i]`).
    pub fn check(&self, n: usize, m: usize, dtype: Dtype) -> Result<usize, Error> {
        if !self.caps().takes(dtype) {
            return Err(table::dtype_not_supported(dtype, self.algo));
        }
        if let K::PerRow(ks) = &self.k {
            topk_ref::check_shape(m, 0)?;
            per_row("k", ks.len(), n)?;
            if let Some((row, &k)) = ks.iter().enumerate().find(|(_, k)| **k > m) {
                return Err(topk_ref::TopKError::RowKTooLarge { row, k, m }.into());
            }
        }
        let width = self.k.width();
        topk_ref::check_shape(m, width)?;
        if self.index == IndexWidth::U32 && m > 1 << 31 {
            return Err(Error::IndexesTooNarrow { m });
        }
        if let Some(lengths) = &self.lengths {
            per_row("lengths", lengths.len(), n)?;
            if let Some((row, &length)) = lengths.iter().enumerate().find(|(_, l)| **l > m) {
                return Err(Error::LengthTooLong { row, length, m });
            }
        }
        if let Some(hint) = &self.hint {
            per_row("hint", hint.len(), n)?;
        }
        self.honoured()?;
        Ok(width)
    }

    /// The launch of this request on `n` rows of `m` values of the kernel's type `elem`, with
    /// output width `width`, as the kernel's plan takes it.
    pub(crate) fn launch(
        &self,
        (n, m, width): (usize, usize, usize),
        elem: rtopk_plan::ElemType,
    ) -> rtopk_plan::Launch {
        let Options { mode, sorted } = self.options;
        rtopk_plan::Launch { n, m, k: width, mode, bisect: self.bisect, sorted, elem }
    }

    /// The kernel's per-row arrays of this request (docs/contract.md §5): lengths, a k per
    /// row, hints, and the threshold output where `threshold_on_device` (on device buffers the
    /// kernel writes it; on host rows the door reads it off a plain selection).
    pub(crate) fn ragged_arrays(&self, threshold_on_device: bool) -> rtopk_plan::Ragged {
        rtopk_plan::Ragged {
            lengths: self.lengths.is_some(),
            k_per_row: matches!(self.k, K::PerRow(_)),
            hint: self.hint.is_some(),
            threshold: threshold_on_device && self.wanted.threshold,
        }
    }

    /// Fails for a ragged input the algorithm does not honour yet (every algorithm of the
    /// registry takes them today). The threshold output alone is read off any selection.
    fn honoured(&self) -> Result<(), Error> {
        if self.caps().ragged {
            return Ok(());
        }
        let missing = if self.lengths.is_some() {
            Some("rows of their own length (lengths)")
        } else if matches!(self.k, K::PerRow(_)) {
            Some("a k per row")
        } else if self.hint.is_some() {
            Some("threshold hints (hint)")
        } else {
            None
        };
        match missing {
            Some(what) => Err(table::not_yet(what, self.algo)),
            None => Ok(()),
        }
    }
}

/// Fails unless a per-row input of `len` entries has one per row of `n`.
fn per_row(what: &'static str, len: usize, n: usize) -> Result<(), Error> {
    if len == n { Ok(()) } else { Err(Error::PerRowLength { what, len, n }) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_is_the_places_default() {
        let cpu = Request::new("auto", 3).unwrap();
        assert_eq!(cpu.algo(), "bisect");
        assert!(cpu.is_auto() && !Request::new("bisect", 3).unwrap().is_auto());
        let gpu = Request::builder("auto").place(Place::Cuda(1)).build().unwrap();
        assert_eq!((gpu.algo(), gpu.place().ordinal()), ("cuda", 1));
        let e = Request::builder("heap").place(Place::Cuda(0)).build().unwrap_err();
        assert!(matches!(e, Error::WrongDevice { .. }) && e.is_user_error(), "{e}");
        // host rows may go to the GPU kernel
        assert_eq!(Request::new("cuda", 1).unwrap().place(), Place::Cpu);
    }

    #[test]
    fn the_builder_checks_everything_once() {
        let e = Request::new("foo", 1).unwrap_err();
        assert!(matches!(e, Error::UnknownAlgorithm { .. }), "{e}");
        let e = Request::builder("heap").max_iter(3).build().unwrap_err();
        assert!(matches!(e, Error::ParamNotSupported { param: Param::MaxIter, .. }), "{e}");
        let p = Precision::new(0.5).unwrap();
        let e = Request::builder("sim").max_iter(3).precision(p).build().unwrap_err();
        assert!(matches!(e, Error::ConflictingParams), "{e}");
        let e = Request::builder("radix").iterations(true).build().unwrap_err();
        assert!(e.to_string().contains("--iterations"), "{e}");
        let none = Request::builder("bisect").values(false).indices(false).build().unwrap_err();
        assert!(matches!(none, Error::NothingWanted) && none.is_user_error(), "{none}");
        let r = Request::builder("bisect").max_iter(2).iterations(true).sorted(true).build();
        let r = r.unwrap();
        assert_eq!(r.bisect(), Bisect::early_stopping(2));
        assert!(r.wanted().iterations && r.options().sorted);
        assert_eq!(Request::new("heap", 0).unwrap().wanted(), Wanted::default());
    }

    #[test]
    fn a_recall_target_goes_to_the_bisection_family_alone() {
        let r = Recall::new(0.9).unwrap();
        for algo in ["bisect", "sim", "cuda"] {
            let q = Request::builder(algo).recall(r).iterations(true).build().unwrap();
            assert_eq!(q.bisect(), Bisect::with_recall(0.9).unwrap(), "{algo}");
            assert_eq!(q.params().recall, Some(r));
        }
        // auto picks a bisection engine wherever the rows are
        assert_eq!(Request::builder("auto").recall(r).build().unwrap().algo(), "bisect");
        let gpu = Request::builder("auto").recall(r).place(Place::Cuda(0)).build().unwrap();
        assert_eq!(gpu.algo(), "cuda");
        for algo in ["heap", "radix", "air", "sort"] {
            let e = Request::builder(algo).recall(r).build().unwrap_err();
            assert!(matches!(e, Error::ParamNotSupported { param: Param::Recall, .. }), "{e}");
            assert!(
                e.to_string().contains("--recall (recall) is only valid for bisect, sim and cuda")
            );
        }
        let e = Request::builder("bisect").recall(r).max_iter(3).build().unwrap_err();
        assert!(matches!(e, Error::RecallConflict { other: Param::MaxIter }), "{e}");
        let p = Precision::new(0.1).unwrap();
        let e = Request::builder("cuda").recall(r).precision(p).build().unwrap_err();
        assert!(matches!(e, Error::RecallConflict { other: Param::Precision }), "{e}");
        // a hint is taken (and ignored by the search), as with a precision
        let hinted = Request::builder("sim").k(1).recall(r).hint(vec![0.5]).build().unwrap();
        assert!(hinted.check(1, 4, Dtype::Float32).is_ok());
        let exact = Request::builder("bisect").recall(Recall::EXACT).build().unwrap();
        assert_eq!(exact.bisect(), Bisect::exact());
    }

    #[test]
    fn the_rows_are_checked_against_the_request() {
        let r = Request::new("bisect", 3).unwrap();
        assert_eq!(r.check(2, 3, Dtype::Float16).unwrap(), 3);
        assert!(matches!(r.check(2, 2, Dtype::Float32), Err(Error::TopK(_))));
        let wide = Request::builder("bisect").k(1).build().unwrap();
        let e = wide.check(1, (1 << 31) + 1, Dtype::Float32).unwrap_err();
        assert!(matches!(e, Error::IndexesTooNarrow { .. }), "{e}");
        let wide64 = Request::builder("bisect").k(1).index_width(IndexWidth::I64).build();
        assert!(wide64.unwrap().check(1, (1 << 31) + 1, Dtype::Float32).is_ok());
        assert!(IndexWidth::from_bits(16).is_err());
        assert_eq!(IndexWidth::from_bits(64).unwrap().bits(), 64);
    }

    #[test]
    fn per_row_inputs_are_checked_against_the_rows() {
        let r = Request::builder("bisect").k(1).lengths(vec![2, 5]).build().unwrap();
        assert!(r.is_ragged());
        let e = r.check(3, 4, Dtype::Float32).unwrap_err();
        assert!(matches!(e, Error::PerRowLength { what: "lengths", len: 2, n: 3 }), "{e}");
        let e = r.check(2, 4, Dtype::Float32).unwrap_err();
        assert!(matches!(e, Error::LengthTooLong { row: 1, length: 5, m: 4 }), "{e}");
        assert_eq!(r.check(2, 5, Dtype::Float32).unwrap(), 1);
        let h = Request::builder("bisect").k(1).hint(vec![0.5]).build().unwrap();
        assert!(matches!(h.check(2, 4, Dtype::Float32), Err(Error::PerRowLength { .. })));
        assert!(h.check(1, 4, Dtype::Float32).is_ok() && h.is_ragged());
        let ks = Request::builder("heap").k_per_row(vec![3, 0, 2]).build().unwrap();
        assert_eq!((ks.k().width(), ks.k().uniform()), (3, None));
        assert_eq!(ks.check(3, 3, Dtype::Bfloat16).unwrap(), 3);
        let e = ks.check(2, 3, Dtype::Float32).unwrap_err();
        assert!(matches!(e, Error::PerRowLength { what: "k", len: 3, n: 2 }), "{e}");
        let e = ks.check(3, 2, Dtype::Float32).unwrap_err();
        assert!(matches!(e, Error::TopK(_)) && e.is_user_error(), "{e}");
        let e = Request::builder("heap").k_per_row(vec![1, 5]).build().unwrap();
        let e = e.check(2, 4, Dtype::Float32).unwrap_err();
        let want = topk_ref::TopKError::RowKTooLarge { row: 1, k: 5, m: 4 };
        assert!(matches!(&e, Error::TopK(t) if *t == want), "{e}");
        let none = Request::builder("heap").k_per_row(vec![]).build().unwrap();
        assert_eq!(none.check(0, 4, Dtype::Float32).unwrap(), 0);
        let t = Request::builder("bisect").k(1).threshold(true).build().unwrap();
        assert!(t.check(1, 4, Dtype::Float32).is_ok() && !t.is_ragged());
    }

    #[test]
    fn the_kernels_take_ragged_inputs() {
        for algo in ["sim", "cuda"] {
            let taken = [
                Request::builder(algo).k(1).lengths(vec![1]),
                Request::builder(algo).k_per_row(vec![1]),
                Request::builder(algo).k(1).hint(vec![1.0]),
            ];
            for b in taken {
                assert_eq!(b.build().unwrap().check(1, 4, Dtype::Float32).unwrap(), 1, "{algo}");
            }
            // the threshold alone is read off the selection
            let t = Request::builder(algo).k(1).threshold(true).build().unwrap();
            assert_eq!(t.check(1, 4, Dtype::Float32).unwrap(), 1);
        }
    }
}
