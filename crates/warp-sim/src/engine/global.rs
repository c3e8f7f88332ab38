//! Global memory: writable buffers with a shadow per element ([`Global`]), and read-only
//! inputs ([`Source`]: a slice, or values made from their address on the fly).
//!
//! Elements are 1, 2, 4 or 8 bytes wide, each held in a 32-bit word — its bits, zero-extended
//! — and an 8-byte element in two (its high half beside): a store to a buffer of 2-byte
//! elements writes the value's low 16 bits, as a 16-bit store does, and a store of 8 bytes
//! writes all 64 ([`Global::with_elem_bytes`]). A buffer has a length — what a bounds
//! check uses — and holds the elements of one window `base .. base + held`: a launch that simulates
//! only some blocks of a grid holds only their rows, however large the grid
//! ([`Global::window`]). A buffer (or input) may say which rows its elements belong to
//! ([`Global::with_rows`]): an access to a row the accessing warp does not own is a
//! [`crate::engine::DiagKind::ForeignAddress`].
//!
//! Each held element remembers its last writer in this launch, the writer's block epoch and
//! its lane's `__syncwarp` clock: two threads writing one element with no barrier between race,
//! and so does a thread reading an element another thread wrote with no barrier between — a
//! `__syncthreads` of the block, or a `__syncwarp` both lanes of one warp took part in after
//! the write (CUDA orders the participants' memory accesses at it, global ones too), or a
//! cluster barrier the writer's and the reader's blocks, of one thread-block cluster, both
//! passed after the write (`barrier.cluster.arrive.release` and `wait.acquire` order every
//! memory access of the cluster's threads, PTX ISA "barrier.cluster"). Outputs that a launch writes once
//! each ([`Global::set_write_once`]) report a second write; [`Global::unwritten`] finds the
//! elements a launch left unwritten.

use crate::engine::diag::DiagKind;
use crate::engine::error::SimError;
use crate::engine::lanes::WARP_SIZE;

/// Shadow flag: the last write stored a poisoned value.
const POISON: u8 = 1;
/// Shadow flag: written in this launch.
const WRITTEN: u8 = 2;

/// A writable global-memory buffer of 32-bit words with a shadow per held element.
#[derive(Clone, Debug)]
pub struct Global {
    name: &'static str,
    len: u64,
    base: u64,
    data: Vec<u32>,
    /// `1 + global thread id` of the last writer in this launch; 0 = none.
    writer: Vec<u64>,
    /// The writer's block epoch.
    epoch: Vec<u32>,
    /// The writer's block's atomics before the write (see [`Accessor`]).
    aseq: Vec<u32>,
    /// The writer lane's own `__syncwarp` clock at the write (see [`Accessor`]).
    wclock: Vec<u32>,
    /// The writer's cluster's barriers completed before the write (see [`Accessor`]).
    cphase: Vec<u32>,
    flags: Vec<u8>,
    row_len: Option<u64>,
    write_once: bool,
    /// Bytes per element: 8, 4, 2 or 1 (a store keeps the value's low 64, 32, 16 or 8 bits).
    elem_bytes: u32,
    /// The high 32 bits of each held 8-byte element (empty for narrower elements).
    high: Vec<u32>,
}

/// The bits an element of `bytes` bytes keeps of a value.
#[inline]
fn elem_mask(bytes: u32) -> u64 {
    match bytes {
        1 => 0xff,
        2 => 0xffff,
        8 => u64::MAX,
        _ => u64::from(u32::MAX),
    }
}

/// An element width the engine holds (1, 2, 4 or 8 bytes); anything else is 4.
fn elem_width(bytes: u32) -> u32 {
    if matches!(bytes, 1 | 2 | 8) { bytes } else { 4 }
}

/// What a global load found.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GlobalRead {
    /// The element's bits (zero-extended).
    pub(crate) value: u64,
    pub(crate) poisoned: bool,
    /// [`DiagKind::GlobalOutOfBounds`], [`DiagKind::ForeignAddress`] (in bounds but not held
    /// by this partial launch) or [`DiagKind::GlobalRace`].
    pub(crate) finding: Option<DiagKind>,
}

/// What a global store found.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GlobalWrite {
    /// As [`GlobalRead::finding`], a race of the value already there being
    /// [`DiagKind::GlobalRaceSameValue`].
    pub(crate) finding: Option<DiagKind>,
    /// A second store to a write-once output.
    pub(crate) rewritten: bool,
}

/// Who is accessing: the global thread id, its block's epoch, how many atomics its block
/// has done, what it has seen of other blocks' atomics, its lane's `__syncwarp` clocks, and
/// its cluster's barriers.
///
/// Blocks of one cluster synchronise at its barriers; others through global atomics only: a
/// write of block `b` made before `b`'s `i`-th atomic is ordered before an access of another
/// block that, at its own latest atomic, had seen `b` do at least `i` (every atomic is taken
/// to synchronise with every earlier one, an over-approximation of CUDA's: it may miss a
/// race, never invent one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Accessor<'a> {
    pub(crate) gtid: u64,
    pub(crate) threads_per_block: u64,
    pub(crate) epoch: u32,
    /// The accessing block's atomics so far.
    pub(crate) atomics: u32,
    /// Other blocks' atomics as the accessing block last saw them.
    pub(crate) view: Option<&'a std::collections::BTreeMap<u32, u32>>,
    /// The accessing lane's view of its warp's lanes' `__syncwarp` clocks (`None`: no warp
    /// barrier orders anything for it).
    pub(crate) clocks: Option<&'a [u32; WARP_SIZE]>,
    /// The accessing lane's own `__syncwarp` clock (what a write records).
    pub(crate) own_clock: u32,
    /// Blocks per thread-block cluster (1: no clusters); a cluster's blocks are consecutive.
    pub(crate) cluster_blocks: u64,
    /// The cluster barriers the accessing block's cluster has completed (what a write
    /// records).
    pub(crate) cluster_phase: u32,
}

/// The shadow of an element's last write: who (1 + gtid), at which block epoch, after how
/// many of its block's atomics, at which `__syncwarp` clock of its lane, after how many of its
/// cluster's barriers.
#[derive(Clone, Copy, Debug)]
struct Stamp {
    writer: u64,
    epoch: u32,
    aseq: u32,
    wclock: u32,
    cphase: u32,
}

impl Accessor<'_> {
    /// `true` when the earlier write `s` is ordered before this access: the same thread, the
    /// same block after a `__syncthreads`, the same warp after a `__syncwarp` both lanes met
    /// at, another block of the same cluster after a cluster barrier both passed since the
    /// write, or another block whose atomic after the write this block has seen.
    #[inline]
    fn after(&self, s: Stamp) -> bool {
        let w = s.writer - 1;
        let (wb, me) = (w / self.threads_per_block, self.gtid / self.threads_per_block);
        if w == self.gtid || (wb == me && (self.epoch > s.epoch || self.warp_synced(w, s.wclock))) {
            return true;
        }
        let c = self.cluster_blocks.max(1);
        if wb != me && c > 1 && wb / c == me / c && self.cluster_phase > s.cphase {
            return true;
        }
        wb != me && self.view.and_then(|v| v.get(&(wb as u32))).is_some_and(|&seen| seen > s.aseq)
    }

    /// Whether thread `w` of this block is of this lane's warp and met it at a `__syncwarp`
    /// after its own clock stood at `wclock` (the shared memory's rule, `shared.rs`).
    #[inline]
    fn warp_synced(&self, w: u64, wclock: u32) -> bool {
        let warp = |t: u64| t % self.threads_per_block / WARP_SIZE as u64;
        let lane = (w % WARP_SIZE as u64) as usize;
        warp(w) == warp(self.gtid) && self.clocks.is_some_and(|c| c[lane] > wclock)
    }
}

fn filled<V: Clone>(len: usize, v: V) -> Option<Vec<V>> {
    let mut out = Vec::new();
    out.try_reserve_exact(len).ok()?;
    out.resize(len, v);
    Some(out)
}

impl Global {
    /// `len` zeroed elements, or a [`SimError::InvalidLaunch`] when they cannot be allocated.
    pub fn zeroed(name: &'static str, len: u64) -> Result<Self, SimError> {
        Self::window(name, len, 0, len)
    }

    /// A buffer of `len` elements of which only `held` from `base` on exist (zeroed): the rest
    /// is memory a partial launch does not map.
    pub fn window(name: &'static str, len: u64, base: u64, held: u64) -> Result<Self, SimError> {
        let too_large = || {
            SimError::InvalidLaunch(format!(
                "global buffer `{name}` of {held} elements is too large to simulate"
            ))
        };
        let n = usize::try_from(held).map_err(|_| too_large())?;
        if base.checked_add(held).is_none_or(|end| end > len) {
            return Err(SimError::InvalidLaunch(format!(
                "global buffer `{name}`: window {base} + {held} past its length {len}"
            )));
        }
        Ok(Self {
            name,
            len,
            base,
            data: filled(n, 0).ok_or_else(too_large)?,
            writer: filled(n, 0).ok_or_else(too_large)?,
            epoch: filled(n, 0).ok_or_else(too_large)?,
            aseq: filled(n, 0).ok_or_else(too_large)?,
            wclock: filled(n, 0).ok_or_else(too_large)?,
            cphase: filled(n, 0).ok_or_else(too_large)?,
            flags: filled(n, 0).ok_or_else(too_large)?,
            row_len: None,
            write_once: false,
            elem_bytes: 4,
            high: Vec::new(),
        })
    }

    /// A buffer holding `words` (all of it).
    pub fn from_words(name: &'static str, words: Vec<u32>) -> Self {
        let n = words.len();
        Self {
            name,
            len: n as u64,
            base: 0,
            data: words,
            writer: vec![0; n],
            epoch: vec![0; n],
            aseq: vec![0; n],
            wclock: vec![0; n],
            cphase: vec![0; n],
            flags: vec![0; n],
            row_len: None,
            write_once: false,
            elem_bytes: 4,
            high: Vec::new(),
        }
    }

    /// A buffer holding the bits of `values`.
    pub fn from_f32(name: &'static str, values: &[f32]) -> Self {
        Self::from_words(name, values.iter().map(|v| v.to_bits()).collect())
    }

    /// The same buffer with its held elements undefined until written: memory the program
    /// does not zero (on the GPU, what a call before left), whose load before any store to it
    /// is poisoned (reported where the value reaches a branch, an address or a store).
    pub fn uninitialized(mut self) -> Self {
        for f in &mut self.flags {
            *f |= POISON;
        }
        self
    }

    /// The same buffer, its elements in rows of `row_len` (ownership: see the module).
    pub fn with_rows(mut self, row_len: u64) -> Self {
        self.row_len = (row_len > 0).then_some(row_len);
        self
    }

    /// The same buffer of elements of `bytes` bytes: 1 or 2 (stores keep the low 8 or 16 bits
    /// of the value), 8 (a 64-bit element, its high half held beside: stored and loaded whole
    /// by [`crate::engine::Warp::st_global64`] and [`crate::engine::Warp::ld_global64`]), or 4
    /// (anything else is taken for 4). A width of 8 allocates the high halves: an error where
    /// they cannot be had, never an abort.
    pub fn with_elem_bytes(mut self, bytes: u32) -> Result<Self, SimError> {
        self.elem_bytes = elem_width(bytes);
        self.high = Vec::new();
        if self.elem_bytes == 8 {
            self.high = filled(self.data.len(), 0).ok_or_else(|| {
                SimError::InvalidLaunch(format!(
                    "global buffer `{}` of {} 8-byte elements is too large to simulate",
                    self.name,
                    self.data.len()
                ))
            })?;
        }
        Ok(self)
    }

    /// Bytes per element (8, 4, 2 or 1).
    pub fn elem_bytes(&self) -> u32 {
        self.elem_bytes
    }

    /// Whether each element is written at most once per launch (a second write is reported).
    pub fn set_write_once(&mut self, once: bool) {
        self.write_once = once;
    }

    /// The buffer's name (for messages).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its length in elements.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// `true` for a buffer of no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first element held.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The held elements (`base ..`).
    pub fn data(&self) -> &[u32] {
        &self.data
    }

    /// The held elements, whole: an 8-byte element's two halves joined, a narrower one
    /// zero-extended.
    pub fn elements(&self) -> Vec<u64> {
        (0..self.data.len()).map(|i| self.value_at(i)).collect()
    }

    /// Held elements `start .. start + len` whole ([`Global::elements`]; absolute, those not
    /// held left out).
    pub fn peek64(&self, start: u64, len: u64) -> Vec<u64> {
        let lo = (start.max(self.base) - self.base).min(self.data.len() as u64);
        let hi = start.saturating_add(len).min(self.base + self.data.len() as u64);
        let hi = hi.saturating_sub(self.base).max(lo);
        (lo as usize..hi as usize).map(|i| self.value_at(i)).collect()
    }

    /// Held element `i` (relative to `base`), whole.
    #[inline]
    fn value_at(&self, i: usize) -> u64 {
        let high = self.high.get(i).map_or(0, |&h| u64::from(h) << 32);
        high | u64::from(self.data[i])
    }

    /// The held elements as `f32`.
    pub fn f32s(&self) -> Vec<f32> {
        self.data.iter().map(|&w| f32::from_bits(w)).collect()
    }

    /// The held elements, by value.
    pub fn into_data(self) -> Vec<u32> {
        self.data
    }

    /// Held elements whose last stored value was poisoned (absolute indices).
    pub fn poisoned_elements(&self) -> impl Iterator<Item = u64> + '_ {
        let base = self.base;
        self.flags
            .iter()
            .enumerate()
            .filter(|(_, f)| **f & POISON != 0)
            .map(move |(i, _)| base + i as u64)
    }

    /// The first element of `start .. end` (absolute, clipped to what is held) not written in
    /// this launch, and how many were not.
    pub fn unwritten(&self, start: u64, end: u64) -> Option<(u64, u64)> {
        let lo = start.max(self.base) - self.base;
        let hi = end.min(self.base + self.data.len() as u64).saturating_sub(self.base);
        let slice = self.flags.get(lo as usize..hi.max(lo) as usize)?;
        let first = slice.iter().position(|f| f & WRITTEN == 0)?;
        let count = slice.iter().filter(|f| **f & WRITTEN == 0).count() as u64;
        Some((self.base + lo + first as u64, count))
    }

    /// Held elements `start .. start + len` (absolute; those not held are left out).
    pub fn peek(&self, start: u64, len: u64) -> Vec<u32> {
        let lo = (start.max(self.base) - self.base).min(self.data.len() as u64);
        let hi = start.saturating_add(len).min(self.base + self.data.len() as u64);
        let hi = hi.saturating_sub(self.base).max(lo);
        self.data[lo as usize..hi as usize].to_vec()
    }

    /// The rows' length, if the buffer has rows.
    pub(crate) fn row_len(&self) -> Option<u64> {
        self.row_len
    }

    /// Forgets the writers of the previous launch (a kernel boundary orders everything).
    pub(crate) fn new_launch(&mut self) {
        self.writer.fill(0);
        for f in &mut self.flags {
            *f &= !WRITTEN;
        }
    }

    /// Where element `idx` is held, or why not.
    #[inline]
    fn slot(&self, idx: u64) -> Result<usize, DiagKind> {
        if idx >= self.len {
            return Err(DiagKind::GlobalOutOfBounds);
        }
        match idx.checked_sub(self.base) {
            Some(i) if i < self.data.len() as u64 => Ok(i as usize),
            _ => Err(DiagKind::ForeignAddress),
        }
    }

    /// A load of element `idx`.
    #[inline]
    pub(crate) fn read(&self, idx: u64, who: &Accessor<'_>, checks: bool) -> GlobalRead {
        let i = match self.slot(idx) {
            Ok(i) => i,
            Err(kind) => {
                return GlobalRead { poisoned: true, finding: Some(kind), ..GlobalRead::default() };
            }
        };
        let race = checks && self.writer[i] != 0 && !who.after(self.stamp(i));
        GlobalRead {
            value: self.value_at(i),
            poisoned: self.flags[i] & POISON != 0,
            finding: race.then_some(DiagKind::GlobalRace),
        }
    }

    /// The shadow of element `i`'s last write.
    #[inline]
    fn stamp(&self, i: usize) -> Stamp {
        Stamp {
            writer: self.writer[i],
            epoch: self.epoch[i],
            aseq: self.aseq[i],
            wclock: self.wclock[i],
            cphase: self.cphase[i],
        }
    }

    /// A store of `value` to element `idx` (its low `8 * elem_bytes` bits).
    #[inline]
    pub(crate) fn write(
        &mut self,
        idx: u64,
        value: u64,
        poisoned: bool,
        who: &Accessor<'_>,
        checks: bool,
    ) -> GlobalWrite {
        let i = match self.slot(idx) {
            Ok(i) => i,
            Err(kind) => return GlobalWrite { finding: Some(kind), rewritten: false },
        };
        let value = value & elem_mask(self.elem_bytes);
        let mut w = GlobalWrite::default();
        if checks {
            if self.writer[i] != 0 && !who.after(self.stamp(i)) {
                w.finding = Some(if self.value_at(i) == value {
                    DiagKind::GlobalRaceSameValue
                } else {
                    DiagKind::GlobalRace
                });
            }
            w.rewritten = self.write_once && self.flags[i] & WRITTEN != 0;
            self.writer[i] = who.gtid + 1;
            self.epoch[i] = who.epoch;
            self.aseq[i] = who.atomics;
            self.wclock[i] = who.own_clock;
            self.cphase[i] = who.cluster_phase;
        }
        self.data[i] = value as u32;
        if let Some(h) = self.high.get_mut(i) {
            *h = (value >> 32) as u32;
        }
        self.flags[i] = WRITTEN | if poisoned { POISON } else { 0 };
        w
    }

    /// An atomic read-modify-write of element `idx`: `f(old)` is stored, `old` returned.
    /// Atomics never race with each other; they are ordered with plain accesses as stores.
    #[inline]
    pub(crate) fn atomic(&mut self, idx: u64, f: impl FnOnce(u32) -> u32) -> Result<u32, DiagKind> {
        let i = self.slot(idx)?;
        let old = self.data[i];
        self.data[i] = f(old) & elem_mask(self.elem_bytes) as u32;
        self.flags[i] = WRITTEN;
        self.writer[i] = 0;
        Ok(old)
    }
}

/// A read-only input in global memory: the kernel's `const float* x` (or `const __half* x`).
pub trait Source {
    /// Elements.
    fn len(&self) -> u64;
    /// `true` for an input of no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The bits of element `i < len()` (zero-extended from 1- and 2-byte elements; the low 32
    /// bits of an 8-byte one, which a kernel loads whole: [`Source::word64`]).
    fn word(&self, i: u64) -> u32;
    /// The bits of element `i < len()`, all 64 of an 8-byte element (by default
    /// [`Source::word`], zero-extended).
    fn word64(&self, i: u64) -> u64 {
        u64::from(self.word(i))
    }
    /// The rows' length, when the input is a matrix of rows (ownership: see the module).
    fn row_len(&self) -> Option<u64>;
    /// Bytes per element: 4 (the default), 2, 1 or 8. A 16-byte load reads `16 / elem_bytes`
    /// elements ([`crate::engine::Warp::ld_input_v4`], [`crate::engine::Warp::ld_input_v8`]);
    /// an 8-byte element is loaded whole ([`crate::engine::Warp::ld_input64`]).
    fn elem_bytes(&self) -> u32 {
        4
    }
}

impl std::fmt::Debug for dyn Source + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Source({} elements)", self.len())
    }
}

/// An input held in memory, row-major rows of `row_len`.
#[derive(Clone, Copy, Debug)]
pub struct SliceSource<'a> {
    data: &'a [f32],
    row_len: u64,
}

impl<'a> SliceSource<'a> {
    /// `data` in rows of `row_len` (0: no rows).
    pub fn new(data: &'a [f32], row_len: u64) -> Self {
        Self { data, row_len }
    }
}

impl Source for SliceSource<'_> {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }
    #[inline]
    fn word(&self, i: u64) -> u32 {
        self.data[i as usize].to_bits()
    }
    fn row_len(&self) -> Option<u64> {
        (self.row_len > 0).then_some(self.row_len)
    }
}

/// An input of elements held one per 32-bit word, `elem_bytes` (4, 2 or 1) wide: what an earlier
/// launch wrote to a [`Global`], read by the next launch as its input.
#[derive(Clone, Copy, Debug)]
pub struct WordSource<'a> {
    words: &'a [u32],
    row_len: u64,
    elem_bytes: u32,
}

impl<'a> WordSource<'a> {
    /// `words`, elements of `elem_bytes` bytes (1, 2, or else 4), in rows of `row_len` (0: no
    /// rows).
    pub fn new(words: &'a [u32], row_len: u64, elem_bytes: u32) -> Self {
        Self { words, row_len, elem_bytes: elem_width(elem_bytes) }
    }
}

impl Source for WordSource<'_> {
    fn len(&self) -> u64 {
        self.words.len() as u64
    }
    #[inline]
    fn word(&self, i: u64) -> u32 {
        self.words[i as usize] & elem_mask(self.elem_bytes) as u32
    }
    fn row_len(&self) -> Option<u64> {
        (self.row_len > 0).then_some(self.row_len)
    }
    fn elem_bytes(&self) -> u32 {
        self.elem_bytes
    }
}

/// An input of any length whose elements are made from their address when read: a grid of
/// 2^32 and more elements costs nothing until a block reads its rows.
#[derive(Clone, Copy, Debug)]
pub struct VirtualSource {
    len: u64,
    row_len: u64,
    value: fn(u64) -> f32,
}

impl VirtualSource {
    /// `len` elements in rows of `row_len` (0: no rows), element `i` being `value(i)`.
    pub fn new(len: u64, row_len: u64, value: fn(u64) -> f32) -> Self {
        Self { len, row_len, value }
    }

    /// Element `i`.
    pub fn value(&self, i: u64) -> f32 {
        (self.value)(i)
    }
}

impl Source for VirtualSource {
    fn len(&self) -> u64 {
        self.len
    }
    #[inline]
    fn word(&self, i: u64) -> u32 {
        (self.value)(i).to_bits()
    }
    fn row_len(&self) -> Option<u64> {
        (self.row_len > 0).then_some(self.row_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A race, of the same value or not.
    fn race(finding: Option<DiagKind>) -> bool {
        matches!(finding, Some(DiagKind::GlobalRace | DiagKind::GlobalRaceSameValue))
    }

    fn who(gtid: u64, epoch: u32) -> Accessor<'static> {
        let (view, clocks) = (None, None);
        let (cluster_blocks, cluster_phase) = (1, 0);
        Accessor {
            gtid,
            threads_per_block: 64,
            epoch,
            atomics: 0,
            view,
            clocks,
            own_clock: 0,
            cluster_blocks,
            cluster_phase,
        }
    }

    #[test]
    fn global_writes_race_across_threads_and_reads_see_them() {
        let mut g = Global::zeroed("out", 2).unwrap();
        assert!(!race(g.write(0, 1, false, &who(5, 0), true).finding));
        assert!(!race(g.write(0, 2, false, &who(5, 0), true).finding), "same thread rewrites");
        assert!(race(g.read(0, &who(6, 0), true).finding), "another thread, no barrier");
        assert!(!race(g.read(0, &who(6, 1), true).finding), "after a __syncthreads");
        let w = g.write(0, 2, false, &who(6, 0), true);
        assert_eq!(w.finding, Some(DiagKind::GlobalRaceSameValue));
        assert!(
            !race(g.write(0, 3, false, &who(7, 1), true).finding),
            "same block after a barrier"
        );
        assert!(race(g.write(0, 3, false, &who(100, 5), true).finding), "another block");
        assert_eq!(
            g.write(9, 3, false, &who(0, 0), true).finding,
            Some(DiagKind::GlobalOutOfBounds)
        );
        // Block 1 (threads 64..) writes element 1 before its first atomic; block 0 reads it
        // after having seen that atomic: ordered. Without the atomic: a race.
        let b1 = Accessor { gtid: 70, ..who(70, 0) };
        assert!(!race(g.write(1, 8, false, &b1, true).finding));
        assert!(race(g.read(1, &who(3, 0), true).finding));
        let seen = std::collections::BTreeMap::from([(1u32, 1u32)]);
        let b0 = Accessor { view: Some(&seen), ..who(3, 0) };
        assert!(!race(g.read(1, &b0, true).finding));
        g.write(1, 8, false, &b1, true);
        assert_eq!(g.data(), &[3, 8]);
        assert_eq!(g.unwritten(0, 2), None);
        g.new_launch();
        g.set_write_once(true);
        assert!(!g.write(1, 4, false, &who(0, 0), true).rewritten);
        assert!(g.write(1, 5, false, &who(0, 0), true).rewritten);
    }

    #[test]
    fn uninitialized_elements_load_poisoned_until_stored() {
        let mut g = Global::zeroed("cand", 2).unwrap().uninitialized();
        assert!(g.read(0, &who(0, 0), true).poisoned, "never written");
        g.write(0, 7, false, &who(0, 0), true);
        let r = g.read(0, &who(0, 0), true);
        assert!(!r.poisoned && r.value == 7, "stored");
        assert!(g.read(1, &who(0, 0), true).poisoned, "still never written");
        assert_eq!(g.poisoned_elements().collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn two_byte_buffers_keep_the_low_half_of_a_store() {
        let mut g = Global::zeroed("out_val", 2).unwrap().with_elem_bytes(2).unwrap();
        assert_eq!(g.elem_bytes(), 2);
        g.write(0, 0x1234_fc00, false, &who(0, 0), true);
        assert!(!race(g.write(1, 0x8000, false, &who(1, 0), true).finding));
        assert_eq!(g.data(), &[0xfc00, 0x8000]);
        let src = WordSource::new(&[0xdead_7e01, 3], 1, 2);
        assert_eq!(
            (src.word(0), src.word(1), src.elem_bytes(), src.row_len()),
            (0x7e01, 3, 2, Some(1))
        );
        assert_eq!(WordSource::new(&[0xdead_7e01], 0, 4).word(0), 0xdead_7e01);
    }

    #[test]
    fn eight_byte_buffers_hold_the_whole_value() {
        let mut g = Global::zeroed("out_val", 3).unwrap().with_elem_bytes(8).unwrap();
        assert_eq!(g.elem_bytes(), 8);
        g.write(0, 0xfff8_0000_0000_1234, false, &who(0, 0), true);
        g.write(2, 7, false, &who(2, 0), true);
        assert_eq!(g.read(0, &who(0, 0), true).value, 0xfff8_0000_0000_1234);
        assert_eq!(g.elements(), [0xfff8_0000_0000_1234, 0, 7]);
        assert_eq!(g.peek64(1, 5), [0, 7]);
        assert_eq!(g.data(), &[0x1234, 0, 7], "the low halves");
        // a store of the same low half but another high half is another value
        let w = g.write(0, 0x1234, false, &who(1, 0), true);
        assert_eq!(w.finding, Some(DiagKind::GlobalRace));
        let narrow = Global::zeroed("x", 2).unwrap().with_elem_bytes(8).unwrap();
        assert_eq!(narrow.with_elem_bytes(4).unwrap().elem_bytes(), 4);
    }

    /// A `__syncwarp` both lanes took part in orders a write before the other lane's access;
    /// a lane of another warp, or one that has not met the writer since, races.
    #[test]
    fn a_cluster_barrier_orders_the_blocks_of_its_cluster() {
        let mut g = Global::zeroed("out", 1).unwrap();
        // clusters of two blocks of 64 threads: blocks 0 and 1, then 2 and 3
        let at =
            |gtid, cluster_phase| Accessor { cluster_blocks: 2, cluster_phase, ..who(gtid, 0) };
        assert!(!race(g.write(0, 5, false, &at(70, 3), true).finding), "block 1, phase 3");
        assert!(race(g.read(0, &at(3, 3), true).finding), "block 0 before the next barrier");
        assert!(!race(g.read(0, &at(3, 4), true).finding), "block 0 after it");
        assert!(race(g.read(0, &at(130, 4), true).finding), "block 2: another cluster");
        let alone = Accessor { cluster_phase: 4, ..who(3, 0) };
        assert!(race(g.read(0, &alone, true).finding), "no clusters");
    }

    #[test]
    fn a_syncwarp_orders_the_lanes_of_one_warp() {
        let mut g = Global::zeroed("out", 1).unwrap();
        let writer = Accessor { own_clock: 3, ..who(1, 0) };
        assert!(!race(g.write(0, 5, false, &writer, true).finding));
        let (mut met, mut not_yet) = ([0u32; WARP_SIZE], [0u32; WARP_SIZE]);
        met[1] = 4;
        not_yet[1] = 3;
        let after = Accessor { clocks: Some(&met), ..who(2, 0) };
        assert!(!race(g.read(0, &after, true).finding), "met lane 1 after its write");
        let before = Accessor { clocks: Some(&not_yet), ..who(2, 0) };
        assert!(race(g.read(0, &before, true).finding), "met lane 1 before its write only");
        let other_warp = Accessor { clocks: Some(&met), ..who(33, 0) };
        assert!(race(g.read(0, &other_warp, true).finding), "lane 1 of another warp");
    }

    #[test]
    fn windows_hold_part_of_a_long_buffer() {
        let long = 1u64 << 40;
        let mut g = Global::window("out", long, long - 4, 2).unwrap();
        assert!(!race(g.write(long - 3, 7, false, &who(0, 0), true).finding));
        assert_eq!(g.data(), &[0, 7]);
        let w = g.write(long - 1, 1, false, &who(0, 0), true);
        assert_eq!(w.finding, Some(DiagKind::ForeignAddress));
        assert_eq!(g.read(long, &who(0, 0), true).finding, Some(DiagKind::GlobalOutOfBounds));
        assert!(Global::window("x", 4, 3, 2).is_err());
        assert!(g.peek(long + 5, 3).is_empty(), "past the held elements: nothing");
        assert!(matches!(Global::zeroed("x", u64::MAX / 2), Err(SimError::InvalidLaunch(_))));
        let v = VirtualSource::new(long, 3, |i| i as f32);
        assert_eq!((v.len(), v.word(7), v.row_len()), (long, 7.0f32.to_bits(), Some(3)));
    }
}
