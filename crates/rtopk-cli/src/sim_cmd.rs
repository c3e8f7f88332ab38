//! `rtopk sim`: the warp simulator's own tools. `rtopk sim mutants` runs the seeded-bug
//! catalog of the RTop-K kernel and prints how each bug is caught.

use clap::Subcommand;
use rtopk::sim::{Caught, catalog, render_table};

use crate::error::CliError;

/// `rtopk sim` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum SimCommand {
    /// Run every seeded bug of the simulated kernel and print how it is caught (mutant, how
    /// caught, first diagnostic); exits 1 if a bug escapes or the clean kernel is flagged
    Mutants,
}

/// Runs `rtopk sim ...`.
pub(crate) fn run(cmd: &SimCommand) -> Result<(), CliError> {
    match cmd {
        SimCommand::Mutants => mutants(),
    }
}

fn mutants() -> Result<(), CliError> {
    let reports = catalog();
    print!("{}", render_table(&reports));
    let escaped: Vec<String> = reports
        .iter()
        .filter(|r| {
            let expect_clean = r.mutant.is_none_or(|m| m.is_equivalent());
            (r.caught == Caught::NotCaught) != expect_clean
        })
        .map(|r| r.mutant.map_or("the clean kernel".to_string(), |m| m.name().to_string()))
        .collect();
    if escaped.is_empty() {
        return Ok(());
    }
    Err(CliError::WrongAnswer(format!(
        "the mutant catalog did not come out as expected for: {}",
        escaped.join(", ")
    )))
}
