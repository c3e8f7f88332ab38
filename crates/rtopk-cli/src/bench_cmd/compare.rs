//! `rtopk bench cpu --compare`: the comparison grid ([`rtopk_tools::bench::compare`]) as a table, one
//! JSON object with `--json`, and an SVG chart with `--svg FILE`.

use rtopk_tools::bench::chart::compare_chart;
use rtopk_tools::bench::compare::{self, AIR_FAMILIES, CompareConfig, CompareRow};
use rtopk_tools::bench::{Observer, TerminalProgress};

use super::{CpuArgs, Printer};
use crate::error::CliError;

/// Runs the comparison.
pub(super) fn run(args: &CpuArgs) -> Result<(), CliError> {
    let config = CompareConfig {
        quick: args.quick,
        algos: args.algos.clone(),
        families: args.dist.clone().unwrap_or_else(|| AIR_FAMILIES.to_vec()),
        reps: args.reps,
        seed: args.seed,
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    let contenders = compare::plan(&config)?;
    eprintln!(
        "rtopk bench cpu --compare: {} rayon threads, {} algorithm(s), {} families, median of up \
         to {} runs (3 for cells over a second) after 1 checked run, seed {}{}",
        rayon::current_num_threads(),
        contenders.len(),
        config.families.len(),
        args.reps,
        args.seed,
        if args.quick { ", quick" } else { "" }
    );
    if !args.json {
        print_header();
    }
    let mut printer =
        Printer { progress: TerminalProgress::new(), json: args.json, print: print_row };
    let report = compare::run(&config, &mut printer as &mut dyn Observer<CompareRow>)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    if let Some(path) = &args.svg {
        compare_chart(&report).write(path)?;
    }
    eprintln!("compared in {:.1} s", report.wall_s);
    let wrong = report.wrong_answers();
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(CliError::WrongAnswer(format!("wrong answers from: {}", wrong.join(", "))))
    }
}

fn print_header() {
    println!(
        "{:<18} {:<13} {:>6} {:>9} {:>6} {:<19} {:>10} {:>9} {:>6} {:>6} {:>6} {:>7}  check",
        "family",
        "regime",
        "n",
        "m",
        "k",
        "algo",
        "median ms",
        "M elem/s",
        "rd/el",
        "wr/el",
        "passes",
        "merges"
    );
}

fn print_row(r: &CompareRow) {
    let num = |v: Option<f64>, prec: usize| v.map_or("-".to_string(), |v| format!("{v:.prec$}"));
    let check = match (&r.skipped, &r.error) {
        (Some(why), _) => format!("skipped: {why}"),
        (None, Some(_)) => "WRONG ANSWER".to_string(),
        (None, None) => "ok".to_string(),
    };
    println!(
        "{:<18} {:<13} {:>6} {:>9} {:>6} {:<19} {:>10} {:>9} {:>6} {:>6} {:>6} {:>7}  {check}",
        r.family,
        r.regime,
        r.n,
        r.m,
        r.k,
        r.label,
        num(r.median_ms, 3),
        num(r.melem_per_s, 1),
        num(r.reads_per_elem, 2),
        num(r.writes_per_elem, 3),
        num(r.passes_per_row, 1),
        num(r.merges_per_row, 1),
    );
}
