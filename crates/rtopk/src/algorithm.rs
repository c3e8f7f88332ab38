//! What every algorithm of the registry implements: a whole matrix in, a [`Selection`] out.

use std::fmt;

use ndarray::{Array1, Array2, ArrayView2};
use serde::Serialize;
use topk_ref::{Element, Options, Rows, TopK, WorkCounters, bf16, f16};

pub use crate::caps::{ALL_DTYPES, Capabilities, Device, F32_ONLY};
use crate::dtype::Dtype;
use crate::error::Error;
pub use crate::table::dtype_not_supported;

// Every element type through one door: [`Value`] (the nine types of docs/contract.md §1 at
// compile time) and [`Typed`] (a matrix of one of them with the selection it fills, at run
// time), so that [`Algorithm`] takes each type through one object-safe method instead of a
// method per type.

mod sealed {
    /// Only the types of docs/contract.md §1 are [`super::Value`]s.
    pub trait Sealed {}
}

/// An element type of the library face (docs/contract.md §1): `f32`, `f16`, `bf16`, `f64`,
/// `i8`, `u8`, `i16`, `i32`, `i64` — topk-ref's [`Element`] with its run-time [`Dtype`].
///
/// Code generic over `E: Value` selects through [`Value::select_into`] (or the sugar
/// [`crate::select`]), which wraps the matrix as a [`Typed`] and calls
/// [`Algorithm::select_typed_into`].
pub trait Value: Element + sealed::Sealed {
    /// The run-time tag of the type.
    const DTYPE: Dtype;

    /// `x` and `out` as the [`Typed`] of this type.
    fn typed<'x, 'o>(x: ArrayView2<'x, Self>, out: &'o mut Selection<Self>) -> Typed<'x, 'o>;

    /// `algo`'s row-wise top-k of `x` into `out` (see [`Algorithm::select_into`]).
    fn select_into(
        algo: &dyn Algorithm,
        x: ArrayView2<'_, Self>,
        k: usize,
        opts: Options,
        out: &mut Selection<Self>,
    ) -> Result<(), Error> {
        algo.select_typed_into(Self::typed(x, out), k, opts)
    }

    /// `algo`'s ragged row-wise top-k of `x` into `out` (see
    /// [`Algorithm::select_ragged_typed_into`]).
    fn select_ragged_into(
        algo: &dyn Algorithm,
        x: ArrayView2<'_, Self>,
        rows: &Rows<'_>,
        opts: Options,
        threshold: bool,
        out: &mut Selection<Self>,
    ) -> Result<(), Error> {
        algo.select_ragged_typed_into(Self::typed(x, out), rows, opts, threshold)
    }
}

/// Declares [`Typed`], [`Typed::dtype`] and the [`Value`] of each type, from one list.
macro_rules! typed {
    ($($v:ident $t:ty => $dtype:ident;)*) => {
        /// A matrix of one element type and the selection of that type it fills.
        #[derive(Debug)]
        pub enum Typed<'x, 'o> {
            $(
                #[doc = concat!("`", stringify!($t), "` rows.")]
                $v(ArrayView2<'x, $t>, &'o mut Selection<$t>),
            )*
        }

        impl Typed<'_, '_> {
            /// The element type.
            pub fn dtype(&self) -> Dtype {
                match self {
                    $(Typed::$v(..) => Dtype::$dtype,)*
                }
            }
        }

        $(
            impl sealed::Sealed for $t {}

            impl Value for $t {
                const DTYPE: Dtype = Dtype::$dtype;

                fn typed<'x, 'o>(
                    x: ArrayView2<'x, Self>,
                    out: &'o mut Selection<Self>,
                ) -> Typed<'x, 'o> {
                    Typed::$v(x, out)
                }
            }
        )*
    };
}

typed! {
    F32 f32 => Float32;
    F16 f16 => Float16;
    Bf16 bf16 => Bfloat16;
    F64 f64 => Float64;
    I8 i8 => Int8;
    U8 u8 => Uint8;
    I16 i16 => Int16;
    I32 i32 => Int32;
    I64 i64 => Int64;
}

/// `$body` run with `$x` and `$out` bound to the matrix and selection of `$job`, whatever
/// its type: one generic body, monomorphised per type.
macro_rules! with_typed {
    ($job:expr, |$x:ident, $out:ident| $body:expr) => {{
        use $crate::algorithm::Typed;
        match $job {
            Typed::F32($x, $out) => $body,
            Typed::F16($x, $out) => $body,
            Typed::Bf16($x, $out) => $body,
            Typed::F64($x, $out) => $body,
            Typed::I8($x, $out) => $body,
            Typed::U8($x, $out) => $body,
            Typed::I16($x, $out) => $body,
            Typed::I32($x, $out) => $body,
            Typed::I64($x, $out) => $body,
        }
    }};
}

pub(crate) use with_typed;

/// Per-type methods of [`Algorithm`] (`select_f16_into`, ...), each `$f(self, Typed::$v(x,
/// out), k, opts)`: one signature for every type and implementor.
macro_rules! per_type_methods {
    ($f:path; $($(#[$doc:meta])* $method:ident $t:ty => $v:ident;)*) => {$(
        $(#[$doc])*
        fn $method(
            &self,
            x: ndarray::ArrayView2<'_, $t>,
            k: usize,
            opts: topk_ref::Options,
            out: &mut $crate::algorithm::Selection<$t>,
        ) -> Result<(), $crate::error::Error> {
            $f(self, $crate::algorithm::Typed::$v(x, out), k, opts)
        }
    )*};
}

pub(crate) use per_type_methods;

/// The warp simulator's findings about one selection, as plain data (serializable; printed
/// by [`fmt::Display`]): the kernel the launch plan ran and every kind of finding with its
/// count and first occurrence (`warp_sim::Diagnostic`). Empty for the kernel of
/// docs/kernel.md.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SimDiagnostics {
    /// The entry points that ran: the top-k kernel the plan picked (e.g.
    /// `rtopk_half_rows_16`), and its sort's for sorted output (`+ rtopk_sort_warp_rows_8`).
    pub kernel: String,
    /// Findings in all: bad shuffles, races, out-of-bounds or foreign accesses, values that
    /// should be uniform and are not, index arithmetic that wraps, failed invariants, ...
    pub total: u64,
    /// The findings by kind, in a fixed order.
    pub kinds: Vec<SimFinding>,
    /// What the run exercised: launches per step of the launch program, rows (or launches)
    /// per branch inside them (families, narrowing, how the search ended, split rows, sorts,
    /// 16-bit paths) — whether a validation's inputs reached the code a change touched.
    pub coverage: warp_sim::Coverage,
}

/// One kind of finding: how many, and where the first one happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SimFinding {
    /// The kind (`shared-race`, `non-uniform-value`, `integer-overflow`, ...).
    pub kind: String,
    /// How many findings of this kind.
    pub count: u64,
    /// Harmless in practice (a race that writes the same value).
    pub benign: bool,
    /// The first one's CUDA operation (`st.shared`, `__shfl_xor_sync`, ...).
    pub op: String,
    /// The first one's source label in the simulated kernel.
    pub label: String,
    /// The first one's block (`blockIdx.x`).
    pub block: u32,
    /// The first one's warp within the block.
    pub warp: u32,
    /// The first one's lanes (bit `l` = lane `l`).
    pub lanes: u32,
    /// The first one's memory address (word or element), for memory findings.
    pub address: Option<u64>,
    /// The first one as one line.
    pub message: String,
}

impl SimDiagnostics {
    /// `true` when the simulator found nothing.
    pub fn is_clean(&self) -> bool {
        self.total == 0
    }

    /// Findings that are not benign.
    pub fn serious(&self) -> u64 {
        self.kinds.iter().filter(|k| !k.benign).map(|k| k.count).sum()
    }

    /// Adds the findings of another selection (a later block of rows): counts add up, each
    /// kind keeps its first occurrence, and kernels not seen yet join the list.
    pub fn merge(&mut self, other: &SimDiagnostics) {
        if self.kernel.is_empty() {
            self.kernel = other.kernel.clone();
        } else if !other.kernel.is_empty() && !self.kernel.split(", ").any(|k| k == other.kernel) {
            self.kernel = format!("{}, {}", self.kernel, other.kernel);
        }
        self.total += other.total;
        for (step, n) in &other.coverage.steps {
            *self.coverage.steps.entry(step.clone()).or_default() += n;
        }
        self.coverage.merge_branches(&other.coverage);
        for k in &other.kinds {
            match self.kinds.iter_mut().find(|m| m.kind == k.kind) {
                Some(mine) => mine.count += k.count,
                None => self.kinds.push(k.clone()),
            }
        }
    }
}

impl fmt::Display for SimDiagnostics {
    /// `sim (KERNEL): no findings`, or the total and one line per kind with its first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kinds.is_empty() {
            return write!(f, "sim ({}): no findings", self.kernel);
        }
        write!(f, "sim ({}): {} finding(s)", self.kernel, self.total)?;
        for k in &self.kinds {
            let benign = if k.benign { " (benign)" } else { "" };
            write!(f, "\n  {} x {}{benign}, first: {}", k.kind, k.count, k.message)?;
        }
        Ok(())
    }
}

/// The result of a selection of elements of type `E`: the top-k and what the algorithm reports
/// besides it.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection<E: Element = f32> {
    /// `(N, K)` values (the input's bits, in its type) and indices, and `(N,)` iteration counts
    /// where reported. `K` is the request's k, or its largest `k[i]`; a row that selects
    /// fewer (docs/contract.md §5) ends in padding: index [`topk_ref::PAD_INDEX`] and value
    /// zero (all bits zero).
    pub topk: TopK<E>,
    /// `(N,)` thresholds when asked for (docs/contract.md §5): each row's k-th selected value
    /// as `f32` (largest mode: the lowest selected; smallest mode: the highest), NaN for a row
    /// that selects nothing.
    pub threshold: Option<Array1<f32>>,
    /// Data movement of all rows, for algorithms that count it.
    pub work: Option<WorkCounters>,
    /// The simulator's findings (`sim` only): a summary by kind (see [`SimDiagnostics`]).
    pub diagnostics: Option<SimDiagnostics>,
}

impl<E: Element> Default for Selection<E> {
    fn default() -> Self {
        Self { topk: TopK::empty(), threshold: None, work: None, diagnostics: None }
    }
}

impl<E: Element> Selection<E> {
    /// Makes the output buffers `(n, k)` (and `(n,)` iterations), allocating fallibly: a shape
    /// that cannot be allocated is [`topk_ref::TopKError::TooLarge`], never an abort. Buffers
    /// that already have the shape are kept, so repeated selections allocate nothing.
    pub fn prepare(&mut self, n: usize, k: usize, iterations: bool) -> Result<(), Error> {
        let t = &mut self.topk;
        if t.values.dim() != (n, k) || !t.values.is_standard_layout() {
            t.values = try_zeros(n, k, "values")?;
        }
        if t.indices.dim() != (n, k) || !t.indices.is_standard_layout() {
            t.indices = try_zeros(n, k, "indices")?;
        }
        t.iterations = match t.iterations.take() {
            Some(it) if iterations && it.len() == n => Some(it),
            _ if iterations => Some(Array1::from_vec(try_vec(n, 1, "iteration counts")?)),
            _ => None,
        };
        Ok(())
    }
}

/// `n · k` default values, allocated fallibly.
pub fn try_vec<T: Clone + Default>(
    n: usize,
    k: usize,
    what: &'static str,
) -> Result<Vec<T>, Error> {
    let too_large = || topk_ref::TopKError::TooLarge { what, n, m: k };
    let len = n.checked_mul(k).ok_or_else(too_large)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| too_large())?;
    v.resize(len, T::default());
    Ok(v)
}

/// An `(n, k)` array of default values, allocated fallibly.
pub fn try_zeros<T: Clone + Default>(
    n: usize,
    k: usize,
    what: &'static str,
) -> Result<Array2<T>, Error> {
    let data = try_vec(n, k, what)?;
    Array2::from_shape_vec((n, k), data)
        .map_err(|_| topk_ref::TopKError::TooLarge { what, n, m: k }.into())
}

/// The default of a per-type method: the type refused, naming the algorithms that take it.
fn refuse<A: Algorithm + ?Sized>(
    algo: &A,
    job: Typed<'_, '_>,
    _: usize,
    _: Options,
) -> Result<(), Error> {
    Err(dtype_not_supported(job.dtype(), algo.name()))
}

/// One top-k algorithm over whole matrices, configured (parameters fixed at construction by
/// the registry's `resolve`).
///
/// Implementations are plain data (`Send + Sync`, no global mutable state), so one instance
/// may serve several threads, and a Python object may hold one.
pub trait Algorithm: Send + Sync + fmt::Debug {
    /// The docs/contract.md §4 name (`--algo NAME`).
    fn name(&self) -> &'static str;

    /// What the algorithm supports.
    fn caps(&self) -> Capabilities;

    /// `true` when this configuration returns the canonical top-k (early stopping and a
    /// precision > 0 make the bisection family approximate).
    fn is_exact(&self) -> bool;

    /// Row-wise top-k of the `(N, M)` matrix `x` into `out`, reusing its buffers when they
    /// have the right shape. `k > M`, `M = 0` and unallocatable shapes are errors, never
    /// panics.
    fn select_into(
        &self,
        x: ArrayView2<'_, f32>,
        k: usize,
        opts: Options,
        out: &mut Selection,
    ) -> Result<(), Error>;

    per_type_methods! { refuse;
        /// [`Algorithm::select_into`] of an `f16` matrix; values come back as `f16` (the
        /// input's bits). An algorithm that does not take `f16` (the default) refuses it with
        /// [`Error::DtypeNotSupported`]; it never converts the matrix.
        select_f16_into f16 => F16;
        /// [`Algorithm::select_f16_into`] for `bf16`.
        select_bf16_into bf16 => Bf16;
    }

    /// Row-wise top-k of a matrix of any element type ([`Typed`]) into its selection: the
    /// one entry every type goes through ([`crate::select`], [`Value::select_into`]). The
    /// default hands `f32`, `f16` and `bf16` to the methods above and refuses the other types
    /// with [`Error::DtypeNotSupported`]; it never converts the matrix.
    fn select_typed_into(&self, job: Typed<'_, '_>, k: usize, opts: Options) -> Result<(), Error> {
        match job {
            Typed::F32(x, out) => self.select_into(x, k, opts, out),
            Typed::F16(x, out) => self.select_f16_into(x, k, opts, out),
            Typed::Bf16(x, out) => self.select_bf16_into(x, k, opts, out),
            other => Err(dtype_not_supported(other.dtype(), self.name())),
        }
    }

    /// Ragged row-wise top-k of the `(N, M)` matrix of `job` into its selection
    /// (docs/contract.md §5): row `i` is its first `rows.lengths[i]` values and selects
    /// `min(k[i], lengths[i])`, padded to the width `max k[i]`; `threshold`: fill
    /// [`Selection::threshold`]. An algorithm that does not take ragged requests (the
    /// default) refuses them with [`Error::NotYetSupported`].
    fn select_ragged_typed_into(
        &self,
        job: Typed<'_, '_>,
        rows: &Rows<'_>,
        opts: Options,
        threshold: bool,
    ) -> Result<(), Error> {
        let _ = (job, rows, opts, threshold);
        Err(crate::table::not_yet("ragged requests (lengths, k per row, hint)", self.name()))
    }

    /// Row-wise top-k of `x` into a new [`Selection`].
    fn select(&self, x: ArrayView2<'_, f32>, k: usize, opts: Options) -> Result<Selection, Error> {
        let mut out = Selection::default();
        self.select_into(x, k, opts, &mut out)?;
        Ok(out)
    }
}

impl dyn Algorithm + '_ {
    /// Row-wise top-k of a matrix of any element type ([`Value`]) into a new [`Selection`] of
    /// that type ([`Algorithm::select_typed_into`]).
    pub fn select_as<E: Value>(
        &self,
        x: ArrayView2<'_, E>,
        k: usize,
        opts: Options,
    ) -> Result<Selection<E>, Error> {
        let mut out = Selection::default();
        E::select_into(self, x, k, opts, &mut out)?;
        Ok(out)
    }

    /// [`select_as`](#method.select_as) into `out`, reusing its buffers.
    pub fn select_as_into<E: Value>(
        &self,
        x: ArrayView2<'_, E>,
        k: usize,
        opts: Options,
        out: &mut Selection<E>,
    ) -> Result<(), Error> {
        E::select_into(self, x, k, opts, out)
    }
}

/// An element type the kernel takes — every [`Value`]: `f32`, `f16`, `bf16`, the integers `i8`,
/// `u8`, `i16`, `i32` on 32-bit keys, and `f64` and `i64` on 64-bit keys (the wide rows,
/// docs/kernel.md "64-bit rows", plain or ragged) — with a device form (the simulator's and
/// the GPU's element types, docs/kernel.md).
pub trait KernelElement: Value + rtopk_cuda::DeviceElement {}

impl KernelElement for f32 {}
impl KernelElement for f16 {}
impl KernelElement for bf16 {}
impl KernelElement for f64 {}
impl KernelElement for i8 {}
impl KernelElement for u8 {}
impl KernelElement for i16 {}
impl KernelElement for i32 {}
impl KernelElement for i64 {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Dtype;

    #[test]
    fn every_float_has_its_tag() {
        assert_eq!([f32::DTYPE, f16::DTYPE, bf16::DTYPE], Dtype::FLOATS);
    }

    #[test]
    fn sim_diagnostics_print_a_line_per_kind() {
        let mut d = SimDiagnostics { kernel: "rtopk_half_rows_4".into(), ..Default::default() };
        assert!(d.is_clean());
        assert_eq!(d.to_string(), "sim (rtopk_half_rows_4): no findings");
        d.total = 3;
        d.kinds.push(SimFinding {
            kind: "shared-race".into(),
            count: 3,
            benign: false,
            op: "st.shared".into(),
            label: "s[0]".into(),
            block: 1,
            warp: 0,
            lanes: 1,
            address: Some(0),
            message: "shared-race in st.shared at `s[0]`".into(),
        });
        assert_eq!(d.serious(), 3);
        let text = d.to_string();
        assert!(
            text.contains("3 finding(s)") && text.contains("shared-race x 3, first:"),
            "{text}"
        );
    }

    #[test]
    fn prepare_allocates_fallibly_and_keeps_fitting_buffers() {
        let mut s = Selection::<f32>::default();
        s.prepare(3, 2, true).unwrap();
        assert_eq!(s.topk.values.dim(), (3, 2));
        assert_eq!(s.topk.iterations.as_ref().map(|i| i.len()), Some(3));
        let before = s.topk.indices.as_ptr();
        s.prepare(3, 2, true).unwrap();
        assert_eq!(s.topk.indices.as_ptr(), before);
        s.prepare(3, 2, false).unwrap();
        assert!(s.topk.iterations.is_none());
        let huge = s.prepare(1 << 40, 1 << 30, false).unwrap_err();
        assert!(matches!(huge, Error::TopK(topk_ref::TopKError::TooLarge { .. })), "{huge}");
        // 128 TiB of values: more than a 47-bit address space holds, whatever the overcommit.
        assert!(s.prepare(1 << 45, 1, false).is_err());
        let huge = s.prepare(usize::MAX, 2, false).unwrap_err();
        assert!(huge.to_string().contains("too large"), "{huge}");
    }
}

#[cfg(test)]
mod typed_tests {
    use super::*;

    #[test]
    fn every_value_has_its_tag() {
        let tags = [
            f32::DTYPE,
            f16::DTYPE,
            bf16::DTYPE,
            f64::DTYPE,
            i8::DTYPE,
            u8::DTYPE,
            i16::DTYPE,
            i32::DTYPE,
            i64::DTYPE,
        ];
        assert_eq!(tags, Dtype::ALL);
        let x = ndarray::Array2::<i16>::zeros((1, 2));
        let mut out = Selection::default();
        assert_eq!(i16::typed(x.view(), &mut out).dtype(), Dtype::Int16);
    }
}
