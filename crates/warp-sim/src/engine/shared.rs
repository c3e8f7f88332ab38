//! A block's shared memory: 32-bit words, each with a shadow, and the lanes' `__syncwarp`
//! clocks that order accesses within a warp.
//!
//! Each word's shadow says whether it was written, whether the value written was poisoned,
//! and who last wrote and read it, stamped with the barriers in force. Two accesses by
//! different threads, at least one a write, race unless a barrier lies between them: a
//! `__syncthreads` of the block (the block epoch moved), or a `__syncwarp` that both threads
//! took part in after the earlier access. Shuffles and ballots are *not* memory barriers in
//! CUDA, so they do not count.
//!
//! `__syncwarp(mask)` names only some lanes, and the rows of a part-warp launch sync only
//! their own lanes, so within a warp each lane keeps a vector clock (`WarpClocks`): lane
//! `b` is ordered after lane `a`'s access at `a`'s clock `c` once `b` has met `a` at a
//! `__syncwarp` after it (`clock_b[a] > c`).
//!
//! A shared atomic (`SharedMem::atomic`, `atomicAdd` on a `__shared__` word) races as a
//! store does with another thread's plain access that no barrier orders, never with another
//! atomic of the word.
//!
//! Distributed-shared-memory reductions from the blocks of a cluster (`SharedMem::reduce`)
//! are stamped with the cluster phase (cluster barriers completed) in a side table, allocated
//! only once a block is reduced into, so that kernels without clusters pay nothing: a plain
//! access and a reduction of one phase are a [`DiagKind::ClusterRace`].

use crate::engine::diag::DiagKind;
use crate::engine::error::SimError;
use crate::engine::lanes::{WARP_SIZE, lanes_of};

/// Shadow flag: some thread wrote this word since the block started.
const INIT: u8 = 1;
/// Shadow flag: the value written was poisoned.
const POISON: u8 = 2;
/// Shadow flag: more than one thread read the word since it was last ordered.
const READ_MANY: u8 = 4;
/// Shadow flag: `reader` holds a read.
const READ_ONE: u8 = 8;
/// Shadow flag: a thread of the block wrote the word with a plain store (`writer` holds it);
/// a word only reduced into is initialized but has no plain writer.
const WROTE: u8 = 16;
/// Shadow flag: the last write was an atomic ([`SharedMem::atomic`]), which another thread's
/// atomic may follow unordered.
const ATOMIC: u8 = 32;

/// The lanes' `__syncwarp` vector clocks of one warp: `vc[b][a]` is the latest clock of lane
/// `a` that lane `b` has met at a `__syncwarp`; `vc[a][a]` is lane `a`'s own clock.
#[derive(Clone, Debug, Default)]
pub(crate) struct WarpClocks {
    vc: [[u32; WARP_SIZE]; WARP_SIZE],
}

impl WarpClocks {
    /// Lane `l`'s own clock.
    #[inline]
    pub(crate) fn own(&self, l: usize) -> u32 {
        self.vc[l][l]
    }

    /// Lane `l`'s view of the others' clocks.
    #[inline]
    pub(crate) fn row(&self, l: usize) -> &[u32; WARP_SIZE] {
        &self.vc[l]
    }

    /// `__syncwarp(mask)` completed by the lanes of `mask`: each moves its own clock on, then
    /// all take the join of their views.
    pub(crate) fn sync(&mut self, mask: u32) {
        let mut join = [0u32; WARP_SIZE];
        for l in lanes_of(mask) {
            self.vc[l][l] += 1;
            for (j, v) in join.iter_mut().zip(&self.vc[l]) {
                *j = (*j).max(*v);
            }
        }
        for l in lanes_of(mask) {
            self.vc[l] = join;
        }
    }

    /// Back to zero (a new block).
    pub(crate) fn reset(&mut self) {
        self.vc = [[0; WARP_SIZE]; WARP_SIZE];
    }
}

/// What an accessing lane knows of the barriers: the block's epoch and its own clocks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Now<'a> {
    /// `__syncthreads` completed by the block so far.
    pub(crate) block_epoch: u32,
    /// The accessing warp.
    pub(crate) warp: u32,
    /// The accessing lane's vector clock ([`WarpClocks::row`]).
    pub(crate) clock: &'a [u32; WARP_SIZE],
    /// The accessing lane's own clock.
    pub(crate) own: u32,
}

/// The barriers in force when a word was touched: the block epoch, and the accessing lane's
/// own `__syncwarp` clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Epochs {
    warp: u32,
    block: u32,
}

impl Epochs {
    #[inline]
    fn of(now: &Now<'_>) -> Self {
        Self { warp: now.own, block: now.block_epoch }
    }

    /// `true` when a barrier separates an access by `thread` at these epochs from one `now`.
    #[inline]
    fn ordered_before(self, thread: u16, now: &Now<'_>) -> bool {
        now.block_epoch > self.block
            || (u32::from(thread) / 32 == now.warp
                && now.clock[usize::from(thread) % 32] > self.warp)
    }
}

/// One shared word and its shadow, side by side (32 bytes) so that an access touches one
/// cache line: the value, the value before the last write (what a stale read sees), and who
/// last wrote and read it, when.
#[derive(Clone, Copy, Debug, Default)]
struct Word {
    value: u32,
    prev: u32,
    writer_at: Epochs,
    reader_at: Epochs,
    writer: u16,
    reader: u16,
    flags: u8,
}

/// What a shared load found besides the value.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SharedRead {
    /// The word's current value (0 when out of bounds).
    pub(crate) value: u32,
    /// The value before the last write (what a stale read would see).
    pub(crate) prev: u32,
    /// The value is poisoned (written poisoned, uninitialized, or out of bounds).
    pub(crate) poisoned: bool,
    /// [`DiagKind::SharedOutOfBounds`] (an address outside the allocation),
    /// [`DiagKind::UninitializedSharedRead`] (never written) or [`DiagKind::SharedRace`]
    /// (written by another thread with no barrier between).
    pub(crate) finding: Option<DiagKind>,
}

/// What a shared atomic found besides the old value.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SharedAtomic {
    /// The word's value before the atomic (0 when out of bounds).
    pub(crate) old: u32,
    /// The old value is poisoned (written poisoned, uninitialized, or out of bounds).
    pub(crate) poisoned: bool,
    /// [`DiagKind::SharedOutOfBounds`] (nothing was done), [`DiagKind::UninitializedSharedRead`]
    /// (the old value was never written) or [`DiagKind::SharedRace`] (a plain access of another
    /// thread with no barrier between).
    pub(crate) finding: Option<DiagKind>,
}

/// A block's shared memory: `u32` words and their shadows.
#[derive(Clone, Debug, Default)]
pub struct SharedMem {
    words: Vec<Word>,
    /// Per word, the cluster phase + 1 of the latest reduction into it (0: none); empty until
    /// the block is first reduced into.
    reduced: Vec<u32>,
}

/// What a distributed-shared-memory reduction into a word found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Reduced {
    /// [`DiagKind::SharedOutOfBounds`] (nothing was done) or
    /// [`DiagKind::UninitializedSharedRead`] (the old value was never written).
    pub(crate) finding: Option<DiagKind>,
    /// The owning block plainly read or wrote the word in this cluster phase.
    pub(crate) race: bool,
}

impl SharedMem {
    /// Resets to `words` uninitialized words for a new block (allocations are reused). A size
    /// that cannot be allocated is a [`SimError::InvalidLaunch`], never an abort.
    pub fn reset(&mut self, words: usize) -> Result<(), SimError> {
        self.words.clear();
        self.reduced.clear();
        self.reserve(words)?;
        self.words.resize(words, Word::default());
        Ok(())
    }

    /// Makes room for `words` words without touching them (a later [`SharedMem::reset`] to at
    /// most that size allocates nothing): a size that cannot be had is an error up front.
    pub fn reserve(&mut self, words: usize) -> Result<(), SimError> {
        let too_large = |_| {
            SimError::InvalidLaunch(format!(
                "shared memory of {words} words per block is too large to simulate"
            ))
        };
        self.words.try_reserve(words.saturating_sub(self.words.len())).map_err(too_large)
    }

    /// Size in words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// `true` when no word is allocated.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The value of word `addr`, if it exists (a host-side look: nothing is checked).
    pub fn word(&self, addr: usize) -> Option<u32> {
        self.words.get(addr).map(|w| w.value)
    }

    /// A load by block-thread `thread`; `checks` = whether shadows are consulted and updated.
    #[inline]
    pub(crate) fn read(
        &mut self,
        addr: usize,
        thread: u16,
        now: &Now<'_>,
        checks: bool,
    ) -> SharedRead {
        let Some(w) = self.words.get_mut(addr) else {
            let finding = Some(DiagKind::SharedOutOfBounds);
            return SharedRead { poisoned: true, finding, ..SharedRead::default() };
        };
        let mut r = SharedRead {
            value: w.value,
            prev: w.prev,
            poisoned: w.flags & POISON != 0,
            ..SharedRead::default()
        };
        if !checks {
            return r;
        }
        let at = Epochs::of(now);
        if w.flags & INIT != 0 && w.writer == thread && w.reader == thread && w.reader_at == at {
            // The common case: a thread re-reading its own word in the same epoch.
            return r;
        }
        if w.flags & INIT == 0 {
            r.finding = Some(DiagKind::UninitializedSharedRead);
            r.poisoned = true;
        } else if w.flags & WROTE != 0
            && w.writer != thread
            && !w.writer_at.ordered_before(w.writer, now)
        {
            r.finding = Some(DiagKind::SharedRace);
        }
        let live_reader = w.flags & READ_ONE != 0 && !w.reader_at.ordered_before(w.reader, now);
        if live_reader && w.reader != thread {
            w.flags |= READ_MANY;
        } else if !live_reader {
            (w.reader, w.reader_at) = (thread, at);
            w.flags = (w.flags & !READ_MANY) | READ_ONE;
        }
        r
    }

    /// The fast path of a warp load: lane `l` of `lanes` reads word `start + l`, a word that
    /// only it has written and read — no race is possible; only the read's stamp moves on
    /// (`own[l]`: lane `l`'s own clock). With `checks` off, any word in bounds. Returns the
    /// values and poisoned lanes, or `None` when any lane needs the full check.
    #[inline]
    pub(crate) fn read_private_run(
        &mut self,
        start: usize,
        lanes: u32,
        thread0: u16,
        own: &[u32; WARP_SIZE],
        block_epoch: u32,
        checks: bool,
    ) -> Option<([u32; WARP_SIZE], u32)> {
        let span = WARP_SIZE - lanes.leading_zeros() as usize;
        let words = self.words.get_mut(start..start.checked_add(span)?)?;
        let mut vals = [0u32; WARP_SIZE];
        let mut poison = 0u32;
        let mut private = true;
        for (l, w) in words.iter().enumerate() {
            vals[l] = w.value;
            poison |= u32::from(w.flags & POISON != 0) << l;
            let me = thread0 + l as u16;
            let mine = w.flags & (INIT | READ_ONE | READ_MANY) == INIT | READ_ONE
                && w.writer == me
                && w.reader == me;
            private &= mine || lanes >> l & 1 == 0;
        }
        if !checks {
            return Some((vals, poison & lanes));
        }
        if !private {
            return None;
        }
        for l in lanes_of(lanes) {
            words[l].reader_at = Epochs { warp: own[l], block: block_epoch };
        }
        Some((vals, poison & lanes))
    }

    /// A store by block-thread `thread`: what it found, [`DiagKind::SharedOutOfBounds`]
    /// (nothing was written), or a conflict with an unordered access of another thread,
    /// [`DiagKind::SharedRace`] ([`DiagKind::SharedRaceSameValue`] for a benign write of the
    /// same value over another thread's write).
    #[inline]
    pub(crate) fn write(
        &mut self,
        addr: usize,
        value: u32,
        poisoned: bool,
        thread: u16,
        now: &Now<'_>,
        checks: bool,
    ) -> Option<DiagKind> {
        let Some(w) = self.words.get_mut(addr) else {
            return Some(DiagKind::SharedOutOfBounds);
        };
        let mut out = None;
        if checks {
            let ww = w.flags & WROTE != 0
                && w.writer != thread
                && !w.writer_at.ordered_before(w.writer, now);
            let war = w.flags & READ_ONE != 0
                && (w.flags & READ_MANY != 0 || w.reader != thread)
                && !w.reader_at.ordered_before(w.reader, now);
            if ww || war {
                let same_value = ww && !war && w.value == value;
                out = Some(if same_value {
                    DiagKind::SharedRaceSameValue
                } else {
                    DiagKind::SharedRace
                });
            }
        }
        w.prev = w.value;
        w.value = value;
        (w.writer, w.writer_at) = (thread, Epochs::of(now));
        w.flags = INIT | WROTE | if poisoned { POISON } else { 0 };
        out
    }

    /// An atomic read-modify-write `word = f(word)` by block-thread `thread`. Atomics of one
    /// word do not race with each other; they race, as a store does, with another thread's
    /// plain load or store that no barrier orders. The result is poisoned when the old value
    /// or `poisoned` (the operand) was.
    pub(crate) fn atomic(
        &mut self,
        addr: usize,
        f: impl FnOnce(u32) -> u32,
        (poisoned, thread): (bool, u16),
        now: &Now<'_>,
        checks: bool,
    ) -> SharedAtomic {
        let Some(w) = self.words.get_mut(addr) else {
            let finding = Some(DiagKind::SharedOutOfBounds);
            return SharedAtomic { poisoned: true, finding, ..SharedAtomic::default() };
        };
        let uninit = w.flags & INIT == 0;
        let mut out =
            SharedAtomic { old: w.value, poisoned: uninit || w.flags & POISON != 0, finding: None };
        if checks {
            let plain_write = w.flags & (WROTE | ATOMIC) == WROTE
                && w.writer != thread
                && !w.writer_at.ordered_before(w.writer, now);
            let read = w.flags & READ_ONE != 0
                && (w.flags & READ_MANY != 0 || w.reader != thread)
                && !w.reader_at.ordered_before(w.reader, now);
            if uninit {
                out.finding = Some(DiagKind::UninitializedSharedRead);
            } else if plain_write || read {
                out.finding = Some(DiagKind::SharedRace);
            }
        }
        let poison = out.poisoned || poisoned;
        w.prev = w.value;
        w.value = f(w.value);
        (w.writer, w.writer_at) = (thread, Epochs::of(now));
        w.flags = INIT | WROTE | ATOMIC | if poison { POISON } else { 0 };
        out
    }

    /// Whether any word was reduced into since the block started (plain accesses must then
    /// look at [`SharedMem::reduced_in`]).
    #[inline]
    pub(crate) fn has_reductions(&self) -> bool {
        !self.reduced.is_empty()
    }

    /// Whether word `addr` was reduced into in cluster phase `phase`.
    #[inline]
    pub(crate) fn reduced_in(&self, addr: usize, phase: u32) -> bool {
        self.reduced.get(addr) == Some(&phase.wrapping_add(1))
    }

    /// A distributed-shared-memory reduction `word = f(word)` in cluster phase `phase`; the
    /// block's plain accesses at block epochs from `phase_epoch` on are of the same phase.
    /// The result is poisoned when the old value or `poisoned` (the operand) was.
    pub(crate) fn reduce(
        &mut self,
        addr: usize,
        f: impl Fn(u32) -> u32,
        poisoned: bool,
        phase: u32,
        phase_epoch: u32,
    ) -> Reduced {
        self.write_remote(addr, f, true, poisoned, (phase, phase_epoch))
    }

    /// A distributed-shared-memory store `word = value` in cluster phase `phase`, checked as
    /// [`SharedMem::reduce`] checks a reduction, but the old value is not read, and a word the
    /// cluster already wrote or reduced into in this phase races with it (two writes that no
    /// barrier orders).
    pub(crate) fn store_remote(
        &mut self,
        addr: usize,
        value: u32,
        poisoned: bool,
        phase: u32,
        phase_epoch: u32,
    ) -> Reduced {
        self.write_remote(addr, |_| value, false, poisoned, (phase, phase_epoch))
    }

    /// [`SharedMem::reduce`] (`reads_old`) or [`SharedMem::store_remote`]: `word = f(word)`
    /// in cluster phase `phase`, recorded for the plain accesses of the phase.
    fn write_remote(
        &mut self,
        addr: usize,
        f: impl Fn(u32) -> u32,
        reads_old: bool,
        poisoned: bool,
        (phase, phase_epoch): (u32, u32),
    ) -> Reduced {
        let again = !reads_old && self.reduced.get(addr) == Some(&phase.wrapping_add(1));
        let Some(w) = self.words.get_mut(addr) else {
            return Reduced { finding: Some(DiagKind::SharedOutOfBounds), race: false };
        };
        let uninit = reads_old && w.flags & INIT == 0;
        let race = again
            || (w.flags & WROTE != 0 && w.writer_at.block >= phase_epoch)
            || (w.flags & READ_ONE != 0 && w.reader_at.block >= phase_epoch);
        let poisoned = poisoned || (reads_old && (uninit || w.flags & POISON != 0));
        w.prev = w.value;
        w.value = f(w.value);
        w.flags = (w.flags & !POISON) | INIT | if poisoned { POISON } else { 0 };
        if self.reduced.is_empty() {
            self.reduced.resize(self.words.len(), 0);
        }
        self.reduced[addr] = phase.wrapping_add(1);
        let finding = uninit.then_some(DiagKind::UninitializedSharedRead);
        Reduced { finding, race }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A race, of the same value or not.
    fn race(finding: Option<DiagKind>) -> bool {
        matches!(finding, Some(DiagKind::SharedRace | DiagKind::SharedRaceSameValue))
    }

    /// A lane's view at block epoch `block` of warp `warp`, with vector clock `vc`.
    fn now(block: u32, warp: u32, vc: &WarpClocks, lane: usize) -> Now<'_> {
        Now { block_epoch: block, warp, clock: vc.row(lane), own: vc.own(lane) }
    }

    #[test]
    fn shared_races_need_two_threads_and_no_barrier() {
        let mut s = SharedMem::default();
        s.reset(4).unwrap();
        let mut vc = WarpClocks::default();
        assert_eq!(
            s.read(0, 0, &now(0, 0, &vc, 0), true).finding,
            Some(DiagKind::UninitializedSharedRead)
        );
        assert!(!race(s.write(1, 5, false, 3, &now(0, 0, &vc, 3), true)));
        // Same thread: no race. Another lane of the warp, no syncwarp: race.
        assert!(!race(s.read(1, 3, &now(0, 0, &vc, 3), true).finding));
        assert!(race(s.read(1, 4, &now(0, 0, &vc, 4), true).finding));
        // Lanes 3 and 4 meet at a __syncwarp: ordered.
        vc.sync(0b1_1000);
        assert!(!race(s.read(1, 4, &now(0, 0, &vc, 4), true).finding));
        // Lane 5 did not take part: still a race.
        assert!(race(s.read(1, 5, &now(0, 0, &vc, 5), true).finding));
        // Thread 40 (warp 1): only a __syncthreads orders it.
        let other = WarpClocks::default();
        assert!(race(s.read(1, 40, &now(0, 1, &other, 8), true).finding));
        assert!(!race(s.read(1, 40, &now(1, 1, &other, 8), true).finding));
        // Write after another thread's unordered read.
        let w = s.write(1, 6, false, 41, &now(1, 1, &other, 9), true);
        assert_eq!(w, Some(DiagKind::SharedRace));
        // Same-value write-write race is flagged as such.
        let vc0 = WarpClocks::default();
        assert!(!race(s.write(2, 9, false, 0, &now(0, 0, &vc0, 0), true)));
        let w = s.write(2, 9, false, 1, &now(0, 0, &vc0, 1), true);
        assert_eq!(w, Some(DiagKind::SharedRaceSameValue));
        assert_eq!(
            s.read(7, 0, &now(0, 0, &vc0, 0), true).finding,
            Some(DiagKind::SharedOutOfBounds)
        );
        assert_eq!(
            s.write(7, 0, false, 0, &now(0, 0, &vc0, 0), true),
            Some(DiagKind::SharedOutOfBounds)
        );
    }

    #[test]
    fn a_syncwarp_of_one_segment_does_not_order_another() {
        let mut vc = WarpClocks::default();
        vc.sync(0xffff); // lanes 0..15 meet; 16..31 do not
        assert_eq!((vc.own(3), vc.row(4)[3], vc.row(20)[3]), (1, 1, 0));
        vc.sync(FULL);
        assert_eq!((vc.own(20), vc.row(3)[20], vc.row(3)[5]), (1, 1, 2));
        vc.reset();
        assert_eq!(vc.own(3), 0);
    }

    const FULL: u32 = u32::MAX;

    #[test]
    fn shared_atomics_race_with_plain_accesses_not_with_each_other() {
        let mut s = SharedMem::default();
        s.reset(2).unwrap();
        let vc = WarpClocks::default();
        let other = WarpClocks::default();
        let add = |old| old + 1;
        // never written: the old value is garbage
        let a = s.atomic(0, add, (false, 0), &now(0, 0, &vc, 0), true);
        assert_eq!(a.finding, Some(DiagKind::UninitializedSharedRead));
        assert!(!race(s.write(1, 0, false, 0, &now(0, 0, &vc, 0), true)));
        // another thread's plain store, no barrier: a race; after one, atomics in any order
        let a = s.atomic(1, add, (false, 40), &now(0, 1, &other, 8), true);
        assert_eq!(a.finding, Some(DiagKind::SharedRace));
        let a = s.atomic(1, add, (false, 40), &now(1, 1, &other, 8), true);
        assert_eq!((a.finding, a.old), (None, 1));
        let a = s.atomic(1, add, (false, 3), &now(1, 0, &vc, 3), true);
        assert_eq!((a.finding, a.old, a.poisoned), (None, 2, false));
        // a plain load of an atomic's word races until a barrier orders them
        assert!(race(s.read(1, 5, &now(1, 0, &vc, 5), true).finding));
        let r = s.read(1, 5, &now(2, 0, &vc, 5), true);
        assert_eq!((r.finding, r.value), (None, 3));
        let a = s.atomic(2, add, (false, 0), &now(2, 0, &vc, 0), true);
        assert_eq!(a.finding, Some(DiagKind::SharedOutOfBounds));
    }

    #[test]
    fn sizes_that_cannot_be_allocated_are_errors() {
        let mut s = SharedMem::default();
        assert!(matches!(s.reset(usize::MAX / 2), Err(SimError::InvalidLaunch(_))));
        assert!(matches!(s.reserve(usize::MAX / 2), Err(SimError::InvalidLaunch(_))));
        assert!(s.reserve(64).is_ok() && s.is_empty());
        assert!(s.reset(3).is_ok() && s.len() == 3);
    }
}
