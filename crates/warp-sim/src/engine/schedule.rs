//! The order in which the simulator runs what the hardware leaves unordered: in order, or a
//! seeded shuffle of blocks, warps and the lanes of a store (with racy loads seeing either
//! side of the racing write), so that outputs which change between schedules reveal order
//! dependence.

/// The order in which the simulator runs blocks, warps and the lanes of a store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// Block 0, 1, ...; warp 0, 1, ...; lane 0, 1, ...; racy loads see the latest write.
    #[default]
    InOrder,
    /// A seeded random order everywhere the hardware gives no order guarantee.
    Shuffled {
        /// The seed.
        seed: u64,
    },
}

impl Schedule {
    /// The generator of a launch under this schedule (`None`: in order).
    pub(crate) fn rng(self) -> Option<ScheduleRng> {
        match self {
            Schedule::InOrder => None,
            Schedule::Shuffled { seed } => Some(ScheduleRng::new(seed)),
        }
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
