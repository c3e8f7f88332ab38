//! The iteration-count statistics of the bisection (docs/contract.md §3) and the paper's
//! tables (crate `analysis`), re-exported for the faces: E(n) ([`expected_iterations`]), the
//! Monte Carlo simulation of counts ([`simulate`]), and the report `rtopk reproduce` writes.

pub use analysis::expectation::{self, expected_iterations};
pub use analysis::montecarlo::{self, ROWS_PER_TASK};
pub use analysis::report::{self, ReproduceOptions, SectionId, reproduce};
pub use analysis::{AnalysisError, Convention, IterationStats, RowSource, SimSpec, simulate};
