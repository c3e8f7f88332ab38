//! Simulated memories: a block's shared memory with a shadow per word, and global buffers.
//!
//! **Shared memory** is an array of 32-bit words. Each word has a shadow: initialized?,
//! poisoned?, the last writer and the last reader(s), each stamped with the barrier epochs in
//! force when they accessed it. Two accesses by different threads, at least one a write, race
//! unless a barrier lies between them: a `__syncthreads` of the block (the block epoch moved),
//! or a `__syncwarp` of the warp when both threads are in the same warp (that warp's epoch
//! moved). Shuffles and ballots are *not* memory barriers in CUDA, so they do not count.
//!
//! **Global memory** buffers are bounds-checked; writable ones remember their last writer so
//! that two threads writing one element without a barrier are reported.

/// Lanes of one warp access (words of one contiguous warp load).
const WARP_WORDS: usize = 32;

/// Shadow flag: some thread wrote this word since the block started.
const INIT: u8 = 1;
/// Shadow flag: the value written was poisoned.
const POISON: u8 = 2;
/// Shadow flag: more than one thread read the word since it was last ordered.
const READ_MANY: u8 = 4;
/// Shadow flag: `reader` holds a read.
const READ_ONE: u8 = 8;

/// The barrier epochs seen by the accessing thread.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Now {
    /// `__syncthreads` executed by the block so far.
    pub(crate) block_epoch: u32,
    /// `__syncwarp` executed by the accessing warp so far.
    pub(crate) warp_epoch: u32,
    /// The accessing warp.
    pub(crate) warp: u32,
}

/// The barrier epochs in force when a word was touched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Epochs {
    warp: u32,
    block: u32,
}

impl Epochs {
    #[inline]
    fn of(now: Now) -> Self {
        Self { warp: now.warp_epoch, block: now.block_epoch }
    }

    /// `true` when a barrier separates an access by `thread` at these epochs from one `now`.
    #[inline]
    fn ordered_before(self, thread: u16, now: Now) -> bool {
        now.block_epoch > self.block
            || (u32::from(thread) / 32 == now.warp && now.warp_epoch > self.warp)
    }
}

/// A tag naming "thread `thread` at these epochs". Epochs are kept modulo 2^24: a word
/// untouched for exactly 2^24 barriers and then read again by the same thread would skip one
/// re-stamp (a missed race in that corner, never a false one).
#[inline]
fn clean_tag(thread: u16, at: Epochs) -> u64 {
    1 << 63
        | u64::from(thread) << 48
        | u64::from(at.warp & 0xFF_FFFF) << 24
        | u64::from(at.block & 0xFF_FFFF)
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
    /// Address outside the allocation.
    pub(crate) out_of_bounds: bool,
    /// Never written.
    pub(crate) uninit: bool,
    /// Written by another thread with no barrier between.
    pub(crate) race: bool,
}

/// What a shared store found.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SharedWrite {
    /// Address outside the allocation (nothing was written).
    pub(crate) out_of_bounds: bool,
    /// Conflicts with an unordered access of another thread.
    pub(crate) race: bool,
    /// The conflict is a write of the same value (benign).
    pub(crate) same_value: bool,
}

/// A block's shared memory: `u32` words and their shadows.
#[derive(Clone, Debug, Default)]
pub struct SharedMem {
    words: Vec<Word>,
    /// Per word, the [`clean_tag`] of the thread that both wrote and read it in the current
    /// epochs (0 = none). Kept apart from `words` so that the fast path of a load compares 32
    /// contiguous numbers (it vectorizes).
    clean: Vec<u64>,
}

impl SharedMem {
    /// Resets to `words` uninitialized words for a new block (allocations are reused).
    pub fn reset(&mut self, words: usize) {
        self.words.clear();
        self.words.resize(words, Word::default());
        self.clean.clear();
        self.clean.resize(words, 0);
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
    pub(crate) fn read(&mut self, addr: usize, thread: u16, now: Now, checks: bool) -> SharedRead {
        let Some(w) = self.words.get_mut(addr) else {
            return SharedRead { out_of_bounds: true, poisoned: true, ..SharedRead::default() };
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
            r.uninit = true;
            r.poisoned = true;
        } else {
            r.race = w.writer != thread && !w.writer_at.ordered_before(w.writer, now);
        }
        let live_reader = w.flags & READ_ONE != 0 && !w.reader_at.ordered_before(w.reader, now);
        if live_reader && w.reader != thread {
            w.flags |= READ_MANY;
        } else if !live_reader {
            (w.reader, w.reader_at) = (thread, at);
            w.flags = (w.flags & !READ_MANY) | READ_ONE;
        }
        let own = w.flags & INIT != 0 && w.flags & READ_MANY == 0 && w.writer == thread;
        self.clean[addr] =
            if own && w.reader == thread && w.reader_at == at { clean_tag(thread, at) } else { 0 };
        r
    }

    /// The fast path of a warp load: lane `l` of `lanes` reads word `start + l`, a word it
    /// wrote itself and already read in this epoch — nothing to report and no shadow to
    /// update (with `checks` off, any word in bounds). Returns the values and poisoned lanes,
    /// or `None` when any lane needs the full check.
    #[inline]
    pub(crate) fn read_own_run(
        &self,
        start: usize,
        lanes: u32,
        thread0: u16,
        now: Now,
        checks: bool,
    ) -> Option<([u32; WARP_WORDS], u32)> {
        let span = WARP_WORDS - lanes.leading_zeros() as usize;
        let words = self.words.get(start..start.checked_add(span)?)?;
        let at = Epochs::of(now);
        let mut vals = [0u32; WARP_WORDS];
        let mut poison = 0u32;
        for (l, w) in words.iter().enumerate() {
            vals[l] = w.value;
            poison |= u32::from(w.flags & POISON != 0) << l;
        }
        if !checks {
            return Some((vals, poison & lanes));
        }
        let base = clean_tag(thread0, at);
        let mut foreign = 0u32;
        for (l, &tag) in self.clean[start..start + span].iter().enumerate() {
            foreign |= u32::from(tag != base + ((l as u64) << 48)) << l;
        }
        let all_own = foreign & lanes == 0;
        all_own.then_some((vals, poison & lanes))
    }

    /// A store by block-thread `thread`.
    #[inline]
    pub(crate) fn write(
        &mut self,
        addr: usize,
        value: u32,
        poisoned: bool,
        thread: u16,
        now: Now,
        checks: bool,
    ) -> SharedWrite {
        let Some(w) = self.words.get_mut(addr) else {
            return SharedWrite { out_of_bounds: true, ..SharedWrite::default() };
        };
        let mut out = SharedWrite::default();
        if checks {
            let ww = w.flags & INIT != 0
                && w.writer != thread
                && !w.writer_at.ordered_before(w.writer, now);
            let war = w.flags & READ_ONE != 0
                && (w.flags & READ_MANY != 0 || w.reader != thread)
                && !w.reader_at.ordered_before(w.reader, now);
            out.race = ww || war;
            out.same_value = ww && !war && w.value == value;
        }
        w.prev = w.value;
        w.value = value;
        (w.writer, w.writer_at) = (thread, Epochs::of(now));
        self.clean[addr] = 0;
        w.flags = INIT | if poisoned { POISON } else { 0 };
        out
    }
}

/// A writable global-memory buffer with a last-writer shadow per element.
#[derive(Clone, Debug)]
pub struct Global<T> {
    name: &'static str,
    data: Vec<T>,
    /// `1 + global thread id` of the last writer; 0 = not written in this launch.
    writer: Vec<u32>,
    /// The writer's block epoch.
    epoch: Vec<u32>,
    /// Elements whose last write stored a poisoned value.
    poisoned: Vec<bool>,
}

/// What a global store found.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GlobalWrite {
    pub(crate) out_of_bounds: bool,
    pub(crate) race: bool,
    pub(crate) same_value: bool,
}

impl<T: Copy + PartialEq> Global<T> {
    /// `len` elements holding `fill`.
    pub fn new(name: &'static str, len: usize, fill: T) -> Self {
        Self {
            name,
            data: vec![fill; len],
            writer: vec![0; len],
            epoch: vec![0; len],
            poisoned: vec![false; len],
        }
    }

    /// The buffer's name (for messages).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The elements.
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// The elements, by value.
    pub fn into_data(self) -> Vec<T> {
        self.data
    }

    /// Indices whose last stored value was poisoned.
    pub fn poisoned_elements(&self) -> impl Iterator<Item = usize> + '_ {
        self.poisoned.iter().enumerate().filter(|(_, p)| **p).map(|(i, _)| i)
    }

    /// A store by global thread `gtid` of block `block`, whose block epoch is `epoch`;
    /// `threads_per_block` tells which block an earlier writer belonged to.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write(
        &mut self,
        idx: usize,
        value: T,
        poisoned: bool,
        gtid: u32,
        epoch: u32,
        threads_per_block: u32,
        checks: bool,
    ) -> GlobalWrite {
        let Some(slot) = self.data.get_mut(idx) else {
            return GlobalWrite { out_of_bounds: true, ..GlobalWrite::default() };
        };
        let mut w = GlobalWrite::default();
        if checks {
            let last = self.writer[idx];
            if last != 0 && last - 1 != gtid {
                let same_block = (last - 1) / threads_per_block == gtid / threads_per_block;
                if !(same_block && epoch > self.epoch[idx]) {
                    w.race = true;
                    w.same_value = *slot == value;
                }
            }
            self.writer[idx] = gtid + 1;
            self.epoch[idx] = epoch;
        }
        *slot = value;
        self.poisoned[idx] = poisoned;
        w
    }
}

/// The seeded generator of the schedule-shuffle mode (SplitMix64: tiny, fast, deterministic).
#[derive(Clone, Debug)]
pub(crate) struct ScheduleRng(u64);

impl ScheduleRng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed ^ 0x5851_F42D_4C95_7F2D)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniformly random index below `n` (`n >= 1`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// `0..n` in a random order (Fisher–Yates).
    pub(crate) fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            p.swap(i, self.below(i + 1));
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now(block_epoch: u32, warp_epoch: u32, warp: u32) -> Now {
        Now { block_epoch, warp_epoch, warp }
    }

    #[test]
    fn shared_races_need_two_threads_and_no_barrier() {
        let mut s = SharedMem::default();
        s.reset(4);
        assert!(s.read(0, 0, now(0, 0, 0), true).uninit);
        assert!(!s.write(1, 5, false, 3, now(0, 0, 0), true).race);
        // Same thread: no race. Another lane of the warp, same epoch: race.
        assert!(!s.read(1, 3, now(0, 0, 0), true).race);
        assert!(s.read(1, 4, now(0, 0, 0), true).race);
        // After a __syncwarp of that warp: ordered.
        assert!(!s.read(1, 4, now(0, 1, 0), true).race);
        // Thread 40 (warp 1) reading after warp 0's syncwarp: still a race; syncthreads fixes it.
        assert!(s.read(1, 40, now(0, 0, 1), true).race);
        assert!(!s.read(1, 40, now(1, 0, 1), true).race);
        // Write after another thread's unordered read.
        let w = s.write(1, 6, false, 41, now(1, 0, 1), true);
        assert!(w.race && !w.same_value);
        // Same-value write-write race is flagged as such.
        let w = s.write(2, 9, false, 0, now(0, 0, 0), true);
        assert!(!w.race);
        let w = s.write(2, 9, false, 1, now(0, 0, 0), true);
        assert!(w.race && w.same_value);
        assert!(s.read(7, 0, now(0, 0, 0), true).out_of_bounds);
        assert!(s.write(7, 0, false, 0, now(0, 0, 0), true).out_of_bounds);
    }

    #[test]
    fn global_writes_race_across_threads() {
        let mut g = Global::new("out", 2, 0u32);
        assert!(!g.write(0, 1, false, 5, 0, 64, true).race);
        assert!(!g.write(0, 2, false, 5, 0, 64, true).race, "same thread rewrites");
        let w = g.write(0, 2, false, 6, 0, 64, true);
        assert!(w.race && w.same_value);
        assert!(!g.write(0, 3, false, 7, 1, 64, true).race, "same block after a barrier");
        assert!(g.write(0, 3, false, 100, 5, 64, true).race, "another block");
        assert!(g.write(9, 3, false, 0, 0, 64, true).out_of_bounds);
        assert_eq!(g.data(), &[3, 0]);
    }

    #[test]
    fn permutations_are_deterministic() {
        let a = ScheduleRng::new(7).permutation(32);
        let b = ScheduleRng::new(7).permutation(32);
        assert_eq!(a, b);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..32).collect::<Vec<_>>());
        assert_ne!(a, ScheduleRng::new(8).permutation(32));
    }
}
