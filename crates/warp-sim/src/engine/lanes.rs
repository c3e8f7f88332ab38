//! Lane-wise values: one register of a warp, 32 values plus a poison mask.
//!
//! A [`Lanes<T>`] is what a CUDA programmer writes as a local variable: every lane holds its
//! own copy. The simulator runs all 32 copies in lockstep, so arithmetic is a 32-wide map.
//!
//! **Poison.** A lane's value is *poisoned* when it is undefined in CUDA terms: the result of a
//! shuffle from an inactive lane, an out-of-bounds or uninitialized load, an oversized shift,
//! or a register written only by lanes that did not execute. Poison propagates through every
//! lane-wise operation (the result of combining a poisoned input is poisoned), and the warp
//! reports a diagnostic when a poisoned value reaches something observable: a branch, an
//! address, a store to global memory. That is how an undefined value that *influences the
//! output* is told apart from one that is computed and then ignored.

/// Lanes in a warp.
pub const WARP_SIZE: usize = 32;

/// The mask naming all 32 lanes (`0xffffffff`).
pub const FULL_MASK: u32 = u32::MAX;

/// One warp register: a value per lane and the set of lanes whose value is poisoned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lanes<T> {
    vals: [T; WARP_SIZE],
    poison: u32,
}

impl<T: Copy> Lanes<T> {
    /// The same value in every lane (a constant or a kernel argument).
    #[inline]
    pub fn splat(v: T) -> Self {
        Self { vals: [v; WARP_SIZE], poison: 0 }
    }

    /// Lane `l` holds `f(l)`; nothing is poisoned.
    #[inline]
    pub fn from_fn(f: impl FnMut(usize) -> T) -> Self {
        Self { vals: std::array::from_fn(f), poison: 0 }
    }

    /// Values and a poison mask (bit `l` set: lane `l` is poisoned).
    #[inline]
    pub fn from_parts(vals: [T; WARP_SIZE], poison: u32) -> Self {
        Self { vals, poison }
    }

    /// The value of lane `lane & 31`.
    #[inline]
    pub fn lane(&self, lane: usize) -> T {
        self.vals[lane % WARP_SIZE]
    }

    /// All 32 values.
    #[inline]
    pub fn values(&self) -> &[T; WARP_SIZE] {
        &self.vals
    }

    /// Lanes whose value is poisoned.
    #[inline]
    pub fn poison_mask(&self) -> u32 {
        self.poison
    }

    /// `true` when lane `lane` is poisoned.
    #[inline]
    pub fn is_poisoned(&self, lane: usize) -> bool {
        self.poison >> (lane % WARP_SIZE) & 1 == 1
    }

    /// The same values with `lanes` poisoned as well.
    #[inline]
    pub fn poisoned(mut self, lanes: u32) -> Self {
        self.poison |= lanes;
        self
    }

    /// Lane-wise `f(self)`; poison is kept.
    #[inline]
    pub fn map<U: Copy>(&self, f: impl Fn(T) -> U) -> Lanes<U> {
        Lanes { vals: self.vals.map(f), poison: self.poison }
    }

    /// Lane-wise `f(self, other)`; a lane is poisoned when either input is.
    #[inline]
    pub fn zip<U: Copy, V: Copy>(&self, other: &Lanes<U>, f: impl Fn(T, U) -> V) -> Lanes<V> {
        // `array::map` with a running index optimizes better than `array::from_fn`.
        let mut l = 0;
        let vals = self.vals.map(|a| {
            let b = other.vals[l];
            l += 1;
            f(a, b)
        });
        Lanes { vals, poison: self.poison | other.poison }
    }

    /// Lane-wise `cond ? a : b` (CUDA's `?:` on registers). A lane is poisoned when its
    /// condition is, or when the value it picks is.
    #[inline]
    pub fn select(cond: &Lanes<bool>, a: &Self, b: &Self) -> Self {
        let m = cond.mask();
        Self {
            vals: std::array::from_fn(|l| if cond.vals[l] { a.vals[l] } else { b.vals[l] }),
            poison: cond.poison | (a.poison & m) | (b.poison & !m),
        }
    }

    /// Overwrites the lanes in `mask` with `src` (values and poison); other lanes keep theirs.
    #[inline]
    pub fn set_where(&mut self, mask: u32, src: &Self) {
        if mask == FULL_MASK {
            // The common case (a converged warp): a plain copy.
            *self = *src;
            return;
        }
        for l in lanes_of(mask) {
            self.vals[l] = src.vals[l];
        }
        self.poison = (self.poison & !mask) | (src.poison & mask);
    }

    /// Sets one lane's value, clearing its poison (used by the simulator's primitives).
    #[inline]
    pub(crate) fn set_lane(&mut self, lane: usize, v: T) {
        self.vals[lane] = v;
        self.poison &= !(1 << lane);
    }
}

impl<T: Copy + PartialEq> Lanes<T> {
    /// Lane-wise `self == other`.
    #[inline]
    pub fn eq_lanes(&self, other: &Self) -> Lanes<bool> {
        self.zip(other, |a, b| a == b)
    }
}

impl Lanes<bool> {
    /// Bit `l` set when lane `l` holds `true` (poisoned lanes included as they are).
    #[inline]
    pub fn mask(&self) -> u32 {
        let mut m = 0u32;
        for (l, &b) in self.vals.iter().enumerate() {
            m |= u32::from(b) << l;
        }
        m
    }

    /// Lane-wise `&&`.
    #[inline]
    pub fn and(&self, other: &Self) -> Self {
        self.zip(other, |a, b| a && b)
    }

    /// Lane-wise `||`.
    #[inline]
    pub fn or(&self, other: &Self) -> Self {
        self.zip(other, |a, b| a || b)
    }

    /// Lane-wise `!`.
    #[inline]
    pub fn not(&self) -> Self {
        self.map(|a| !a)
    }
}

impl Lanes<u32> {
    /// CUDA's `__popc` on every lane.
    #[inline]
    pub fn popc(&self) -> Self {
        self.map(u32::count_ones)
    }
}

/// The first `n` lanes (all 32 when `n >= 32`): the lanes of a chunk of 32 that hold an
/// element when `n` elements are left (`if (i < M)` with `n = M - base`).
#[inline]
pub fn lanes_below(n: usize) -> u32 {
    if n >= WARP_SIZE { FULL_MASK } else { (1u32 << n) - 1 }
}

/// The lanes of `mask`, lowest first.
#[inline]
pub fn lanes_of(mask: u32) -> impl Iterator<Item = usize> {
    LaneBits(mask)
}

/// Iterates the set bits of a mask, lowest first.
struct LaneBits(u32);

impl Iterator for LaneBits {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let l = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poison_propagates_through_lane_wise_operations() {
        let a = Lanes::from_fn(|l| l as u32).poisoned(0b100);
        let b = Lanes::splat(10u32).poisoned(0b1000);
        let s = a.zip(&b, |x, y| x + y);
        assert_eq!(s.poison_mask(), 0b1100);
        assert_eq!(s.lane(3), 13);
        let cond = Lanes::from_fn(|l| l % 2 == 0);
        // Lane 2 picks a (poisoned there), lane 3 picks b (poisoned there).
        let picked = Lanes::select(&cond, &a, &b);
        assert_eq!(picked.poison_mask(), 0b1100);
        let picked = Lanes::select(&cond.not(), &a, &b);
        assert_eq!(picked.poison_mask(), 0, "each lane picked the clean side");
    }

    #[test]
    fn set_where_touches_only_masked_lanes() {
        let mut d = Lanes::splat(1u32);
        d.set_where(0b110, &Lanes::splat(7).poisoned(0b10));
        assert_eq!(&d.values()[..4], &[1, 7, 7, 1]);
        assert_eq!(d.poison_mask(), 0b10);
        assert_eq!(lanes_of(0b1010_0001).collect::<Vec<_>>(), vec![0, 5, 7]);
        assert_eq!(Lanes::from_fn(|l| l < 3).mask(), 0b111);
        assert_eq!(Lanes::splat(0b1011u32).popc().lane(9), 3);
        assert_eq!(
            (lanes_below(0), lanes_below(5), lanes_below(32), lanes_below(99)),
            (0, 31, !0, !0)
        );
    }
}
