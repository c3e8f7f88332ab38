//! The launch plan the simulator runs — the CUDA launcher's own (the `rtopk-plan` crate):
//! which launch family, how many lanes per row and keys per lane, the grid and the sorted
//! output's launch, a pure function of the shape, the search, the device's limits and a
//! strategy; and the route (`route`, `Route`, `Split`): one plan, or split rows where the
//! strategy splits them. `--algo sim` and `--algo cuda` therefore run the same family for a
//! shape.

pub use rtopk_plan::plan::*;
pub use rtopk_plan::program::*;
pub use rtopk_plan::radix::*;
pub use rtopk_plan::split::*;
pub use rtopk_plan::units::*;
pub use rtopk_plan::{PlanError, plan, program, program_ragged};
