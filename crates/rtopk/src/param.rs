//! [`Param`]: the name of a parameter or output that not every algorithm takes, in its
//! command-line and Python spellings (for messages).

use std::fmt;

/// A parameter that not every algorithm takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// Early stopping after N bisection steps (Algorithm 2).
    MaxIter,
    /// Algorithm 1's precision ε'.
    Precision,
    /// A recall target `r` in (0, 1] (docs/contract.md §6).
    Recall,
    /// How the precision becomes a width (relative to the row maximum, or absolute).
    Epsilon,
    /// Per-row iteration counts as an output (docs/contract.md §3).
    Iterations,
}

impl Param {
    /// The keyword in Python (`max_iter`; the output's is `return_iterations`), also the
    /// Rust request's field where one is named alike.
    pub const fn name(self) -> &'static str {
        match self {
            Param::MaxIter => "max_iter",
            Param::Precision => "precision",
            Param::Recall => "recall",
            Param::Epsilon => "epsilon",
            Param::Iterations => "return_iterations",
        }
    }

    /// The command-line flag (`--max-iter`).
    pub const fn flag(self) -> &'static str {
        match self {
            Param::MaxIter => "--max-iter",
            Param::Precision => "--precision",
            Param::Recall => "--recall",
            Param::Epsilon => "--epsilon",
            Param::Iterations => "--iterations",
        }
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Both spellings, so one message serves the command line and Python.
        write!(f, "{} ({})", self.flag(), self.name())
    }
}
