//! Grouped selection (docs/contract.md §8): the routing step of mixture-of-experts models
//! that choose experts in two stages (DeepSeek-V3's router): a row's `M` scores fall into
//! `groups` equal groups of consecutive experts; each group gets a score (its largest value,
//! or the sum of its two largest); the `top_groups` best groups are kept; the row's top `k`
//! among the kept groups' experts are the answer, in the canonical order of docs/contract.md
//! §1 (largest mode): value descending, NaN above `+inf`, `-0.0 == +0.0`, ties to the lower
//! index — the groups ranked the same way, ties to the lower group.
//!
//! This module is the CPU reference ([`grouped_topk`]) and the request's checks
//! ([`Grouped::check`]) that every layer shares: the simulator's and the CUDA kernel's
//! `rtopk_grouped_rows` compute the same answer bit for bit.

use crate::error::TopKError;
use crate::order::{Element, key_largest, ordered_value_of_key};

/// Most experts (scores per row) a grouped selection takes: the kernel holds a row in one
/// warp, 32 per lane.
pub const GROUPED_MAX_EXPERTS: usize = 1024;
/// Most groups a grouped selection takes: the kernel scores one group per lane.
pub const GROUPED_MAX_GROUPS: usize = 32;

/// How a group is scored (docs/contract.md §8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GroupScore {
    /// The group's largest value (DeepSeek-V2's group-limited routing).
    Max,
    /// The f32 sum of the group's two largest values (DeepSeek-V3), computed as
    /// `f32(first) + f32(second)`, rounded to nearest.
    #[default]
    TopTwoSum,
}

impl GroupScore {
    /// The score's name: `"max"` or `"sum2"`.
    pub fn name(self) -> &'static str {
        match self {
            GroupScore::Max => "max",
            GroupScore::TopTwoSum => "sum2",
        }
    }

    /// The score named `name` (`"max"` or `"sum2"`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "max" => Some(GroupScore::Max),
            "sum2" => Some(GroupScore::TopTwoSum),
            _ => None,
        }
    }
}

/// A grouped selection: `k` experts per row from the best `top_groups` of `groups` groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Grouped {
    /// Experts selected per row.
    pub k: usize,
    /// Groups per row; they divide the row's width.
    pub groups: usize,
    /// Groups kept per row.
    pub top_groups: usize,
    /// How a group is scored.
    pub score: GroupScore,
}

impl Grouped {
    /// Checks the selection against rows of `m` scores: `1 <= m <= 1024`, `1 <= groups <=
    /// 32` dividing `m`, `1 <= top_groups <= groups`, `k <= top_groups * (m / groups)`, and
    /// groups of at least two experts for [`GroupScore::TopTwoSum`].
    pub fn check(&self, m: usize) -> Result<(), TopKError> {
        let bad = |name, reason: String| Err(TopKError::InvalidParameter { name, reason });
        if m == 0 {
            return Err(TopKError::EmptyRows);
        }
        if m > GROUPED_MAX_EXPERTS {
            return Err(TopKError::RowTooWide { m, max: GROUPED_MAX_EXPERTS });
        }
        let g = self.groups;
        if g == 0 || g > GROUPED_MAX_GROUPS || m % g != 0 {
            return bad(
                "groups",
                format!(
                    "{g} groups: a grouped selection takes 1 to {GROUPED_MAX_GROUPS} groups that \
                     divide the row width M = {m}"
                ),
            );
        }
        if self.top_groups == 0 || self.top_groups > g {
            return bad(
                "top_groups",
                format!("{} groups kept of {g}: it must be 1 to {g}", self.top_groups),
            );
        }
        let size = m / g;
        if self.score == GroupScore::TopTwoSum && size < 2 {
            return bad(
                "score",
                format!("sum2 sums a group's two largest values; groups of M / groups = {size}"),
            );
        }
        let kept = self.top_groups * size;
        if self.k > kept {
            return bad(
                "k",
                format!(
                    "k = {} is more than the {kept} experts of the {} kept groups of {size}",
                    self.k, self.top_groups
                ),
            );
        }
        Ok(())
    }

    /// Experts per group for rows of `m` scores.
    pub fn group_size(&self, m: usize) -> usize {
        m / self.groups.max(1)
    }
}

/// The key of a group's score (docs/contract.md §8): the f32 value of its best key, or the f32
/// sum of its two best keys' values, keyed in largest mode (a NaN score at the top).
pub fn group_score_key(first: u32, second: u32, score: GroupScore) -> u32 {
    let value = match score {
        GroupScore::Max => ordered_value_of_key(first),
        GroupScore::TopTwoSum => ordered_value_of_key(first) + ordered_value_of_key(second),
    };
    key_largest(value)
}

/// The grouped selection of `n` rows of `m` scores (`x`, row-major): each row's `k` values and
/// indices into `values` and `indices` (`n * k` each), in the canonical order.
pub fn grouped_topk<E: Element>(
    x: &[E],
    n: usize,
    m: usize,
    g: &Grouped,
    values: &mut [E],
    indices: &mut [u32],
) -> Result<(), TopKError> {
    g.check(m)?;
    let k = g.k;
    let size = |what, got: usize, want: usize| {
        if got == want { Ok(()) } else { Err(TopKError::PerRowLength { what, got, n: want }) }
    };
    let cells = n.checked_mul(m).ok_or(TopKError::TooLarge { what: "the rows", n, m })?;
    size("the rows", x.len(), cells)?;
    size("the values output", values.len(), n * k)?;
    size("the indices output", indices.len(), n * k)?;
    if k == 0 {
        return Ok(());
    }
    for (r, row) in x.chunks_exact(m).enumerate() {
        let chosen = grouped_row(row, g);
        for (i, &j) in chosen.iter().enumerate() {
            values[r * k + i] = row[j as usize];
            indices[r * k + i] = j;
        }
    }
    Ok(())
}

/// One row's `k` selected indices, in the canonical order.
fn grouped_row<E: Element>(row: &[E], g: &Grouped) -> Vec<u32> {
    let keys: Vec<u32> = row.iter().map(|v| key_largest(v.to_f32())).collect();
    let size = g.group_size(row.len());
    let mut groups: Vec<(u32, usize)> = keys
        .chunks_exact(size)
        .enumerate()
        .map(|(q, group)| {
            let mut best = group.to_vec();
            best.sort_unstable_by(|a, b| b.cmp(a));
            let second = best.get(1).copied().unwrap_or(0);
            (group_score_key(best[0], second, g.score), q)
        })
        .collect();
    // score descending, ties to the lower group
    groups.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut experts: Vec<u32> = groups[..g.top_groups]
        .iter()
        .flat_map(|&(_, q)| (q * size) as u32..((q + 1) * size) as u32)
        .collect();
    experts.sort_unstable_by_key(|&j| std::cmp::Reverse(crate::order::rank(keys[j as usize], j)));
    experts.truncate(g.k);
    experts
}

#[cfg(test)]
mod tests {
    use half::bf16;

    use super::*;

    fn run<E: Element>(x: &[E], m: usize, g: Grouped) -> (Vec<E>, Vec<u32>) {
        let n = x.len() / m;
        let (mut v, mut i) = (vec![E::default(); n * g.k], vec![0u32; n * g.k]);
        grouped_topk(x, n, m, &g, &mut v, &mut i).unwrap();
        (v, i)
    }

    const V3: Grouped = Grouped { k: 2, groups: 4, top_groups: 2, score: GroupScore::TopTwoSum };

    #[test]
    fn groups_by_the_sum_of_their_two_best() {
        // groups: [9, 0] sum 9, [5, 5] sum 10, [6, 1] sum 7, [8, 0] sum 8
        let x = [9.0f32, 0.0, 5.0, 5.0, 6.0, 1.0, 8.0, 0.0];
        let (v, i) = run(&x, 8, V3);
        assert_eq!(i, [0, 2]); // groups 1 and 0 kept; 8.0 (group 3) is not
        assert_eq!(v, [9.0, 5.0]);
        let (_, i) = run(&x, 8, Grouped { score: GroupScore::Max, ..V3 });
        assert_eq!(i, [0, 6]); // by their best: groups 0 (9) and 3 (8)
    }

    #[test]
    fn nan_scores_rank_first_and_ties_go_to_the_lower_group() {
        let x = [1.0f32, 1.0, f32::NAN, -1.0, 2.0, 0.0, 0.0, 2.0];
        let (v, i) = run(&x, 8, V3);
        // group 1 scores NaN; groups 2 and 3 tie at 2.0 and group 2 wins over 3; group 0 at 2.0
        // too and wins over both
        assert_eq!(i, [2, 0]);
        assert!(v[0].is_nan());
        let (_, i) = run(&x, 8, Grouped { k: 4, top_groups: 3, ..V3 });
        assert_eq!(i, [2, 4, 0, 1]);
    }

    #[test]
    fn zeros_of_both_signs_are_equal_and_values_keep_their_bits() {
        let x = [-0.0f32, 0.0, -1.0, -2.0];
        let g = Grouped { k: 2, groups: 2, top_groups: 1, score: GroupScore::TopTwoSum };
        let (v, i) = run(&x, 4, g);
        assert_eq!(i, [0, 1]);
        assert_eq!(v[0].to_bits(), 0x8000_0000);
        let h: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
        assert_eq!(run(&h, 4, g).1, [0, 1]);
    }

    #[test]
    fn bad_selections_are_refused() {
        let cases = [
            (Grouped { groups: 3, ..V3 }, 8),
            (Grouped { groups: 0, ..V3 }, 8),
            (Grouped { top_groups: 5, ..V3 }, 8),
            (Grouped { top_groups: 0, ..V3 }, 8),
            (Grouped { k: 5, ..V3 }, 8),
            (Grouped { groups: 8, ..V3 }, 8),
            (Grouped { groups: 64, ..V3 }, 128),
            (V3, 2048),
            (V3, 0),
        ];
        for (g, m) in cases {
            assert!(g.check(m).is_err(), "{g:?} on M = {m}");
        }
        assert!(Grouped { groups: 8, score: GroupScore::Max, ..V3 }.check(8).is_ok());
        let mut v = [0.0f32; 2];
        let mut i = [0u32; 2];
        assert!(grouped_topk(&[0.0f32; 7], 1, 8, &V3, &mut v, &mut i).is_err());
    }
}
