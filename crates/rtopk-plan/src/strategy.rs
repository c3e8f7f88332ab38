//! The caller's choice of launch family ([`Strategy`]), apart from the plan that reads it so
//! that the error type can name it without depending on the plan.

use std::fmt;

use serde::Serialize;

use crate::units::{ElemType, Family};

/// Which launch family runs a top-k, passed per call (as RAFT's `SelectAlgo` or CubeCL's
/// strategy argument). A forced strategy that cannot hold the row is an error
/// ([`crate::PlanError::Strategy`]), never a silent fallback.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// The measured defaults (the module's documentation).
    #[default]
    Auto,
    /// Four rows per warp (8 lanes each): rows of up to 256.
    Quarter,
    /// Two rows per warp (16 lanes each): rows of up to 512.
    Half,
    /// One warp per row: rows of up to 3072.
    Warp,
    /// One block per row (narrowing where the defaults narrow): any row.
    Block,
    /// Split rows (crate::split) wherever the shape can be split, the defaults for their
    /// chunks and second stage.
    Split,
    /// The radix select (crate::radix) wherever the request has one, the default's sort.
    Radix,
}

impl Strategy {
    /// Every strategy.
    pub const ALL: [Strategy; 7] = [
        Strategy::Auto,
        Strategy::Quarter,
        Strategy::Half,
        Strategy::Warp,
        Strategy::Block,
        Strategy::Split,
        Strategy::Radix,
    ];

    /// The strategy's name, as [`Strategy::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Auto => "auto",
            Strategy::Quarter => "quarter",
            Strategy::Half => "half",
            Strategy::Warp => "warp",
            Strategy::Block => "block",
            Strategy::Split => "split",
            Strategy::Radix => "radix",
        }
    }

    /// The strategy named `name` (auto, quarter, half, warp, block, split, radix).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether a launch under the strategy can write iteration counts: split rows
    /// (crate::split) and the radix select (crate::radix) search no row whole, so have none.
    pub fn counts(self) -> bool {
        !matches!(self, Strategy::Split | Strategy::Radix)
    }

    /// The widest row of `elem` the strategy holds.
    pub fn max_row(self, elem: ElemType) -> usize {
        let widest = |f: Family| {
            f.lanes().unwrap_or(0) * f.widths().last().map_or(0, |w| w.epl) * elem.per_word()
        };
        match self {
            Strategy::Quarter => widest(Family::QuarterRows),
            Strategy::Half => widest(Family::HalfRows),
            Strategy::Warp => widest(Family::WarpRows),
            Strategy::Auto | Strategy::Block | Strategy::Split | Strategy::Radix => {
                u32::MAX as usize
            }
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
