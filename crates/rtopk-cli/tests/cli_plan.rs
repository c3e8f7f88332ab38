//! End-to-end tests of `rtopk plan`: the launch program for a named GPU, as a table and as
//! JSON — one entry per launch — with the route a selection takes (long rows split without
//! iteration counts, whole with them), and typed refusals (exit 2).

use crate::common;

use common::{fails_with, rtopk, stdout};
use serde_json::Value;

fn plan_json(args: &[&str]) -> Value {
    let mut all = vec!["plan", "--gpu", "h100", "--json"];
    all.extend_from_slice(args);
    let out = rtopk(&all);
    assert!(out.status.success(), "{}", common::stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn step_names(p: &Value) -> Vec<String> {
    p["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_long_row_is_split_without_counts_and_whole_with_them() {
    // k = 50: below the sampled radix select's smallest k (64)
    let split = plan_json(&["--n", "1", "--m", "134217728", "-k", "50"]);
    let names = step_names(&split);
    assert_eq!(names.first().map(String::as_str), Some("select_chunks"), "{names:?}");
    assert_eq!(names.last().map(String::as_str), Some("gather_indices"), "{names:?}");
    assert_eq!(split["counts"], false);
    assert!(split["depth"].as_u64().unwrap() >= 1);
    let whole = plan_json(&["--n", "1", "--m", "134217728", "-k", "100", "--iterations"]);
    assert_eq!(step_names(&whole), ["select_rows"]);
    assert_eq!(whole["counts"], true);
}

#[test]
fn every_step_names_its_kernel_grid_and_buffers() {
    let p =
        plan_json(&["--n", "3", "--m", "100000", "-k", "64", "--sorted", "--dtype", "bfloat16"]);
    let buffers: Vec<&str> =
        p["buffers"].as_array().unwrap().iter().map(|b| b["name"].as_str().unwrap()).collect();
    assert!(buffers.starts_with(&["x", "values", "indices"]), "{buffers:?}");
    for s in p["steps"].as_array().unwrap() {
        assert!(s["unit"].as_str().unwrap().starts_with("rtopk_"), "{s}");
        assert!(s["grid"]["blocks"].as_u64().unwrap() >= 1, "{s}");
        for b in s["reads"].as_array().unwrap().iter().chain(s["writes"].as_array().unwrap()) {
            assert!((b.as_u64().unwrap() as usize) < buffers.len(), "{s}");
        }
    }
    assert_eq!(p["launch"]["elem"], "bf16");
    assert!(step_names(&p).contains(&"sort_rows".to_string()));
}

#[test]
fn the_table_lists_one_line_per_launch() {
    let out = stdout(&rtopk(&["plan", "--gpu", "a100", "--n", "4096", "--m", "768", "-k", "32"]));
    assert!(out.contains("1 steps") && out.contains("select_rows"), "{out}");
    assert!(!out.contains("floor"), "{out}");
    // a row past FLOOR_MIN_ROW: its chunk selects read and raise the row's floor
    let m = (1u64 << 28).to_string();
    let out = stdout(&rtopk(&["plan", "--gpu", "h200", "--n", "1", "--m", &m, "-k", "50"]));
    let floors = out.lines().filter(|l| l.contains("with the row's floor")).count();
    let chunks = out.lines().filter(|l| l.contains("select_chunks")).count();
    assert!(floors == chunks && chunks >= 2, "{out}");
    // from k = 64 the radix select takes it, its sample first
    let out = stdout(&rtopk(&["plan", "--gpu", "h200", "--n", "1", "--m", &m, "-k", "256"]));
    let first = out.lines().nth(2).unwrap_or_default();
    assert!(first.contains("radix_sample") && first.contains("sample of bits 21..32"), "{out}");
    // large k on a long row: the radix select, its digits from the top
    let m = (1u64 << 22).to_string();
    let out = stdout(&rtopk(&["plan", "--gpu", "h200", "--n", "1", "--m", &m, "-k", "8192"]));
    let digits: Vec<&str> = out.lines().filter(|l| l.contains("radix_digits")).collect();
    assert_eq!(digits.len(), 3, "{out}");
    for (line, bits) in digits.iter().zip(["bits 21..32", "bits 10..21", "bits 0..10"]) {
        assert!(line.contains(bits), "{out}");
    }
    assert!(out.contains("radix_count") && out.contains("radix_write"), "{out}");
}

/// `--lengths`, `--k-per-row`, `--hint`, `--threshold`: the program of a call that passes
/// those arrays — the ragged twins where rows run whole, the hint read by the last select only
/// where they split (its `_hinted` entry point, which the table names), a `row_threshold` step
/// writing the threshold buffer last.
#[test]
fn per_row_arrays_give_the_program_a_call_with_them_runs() {
    let reads = |p: &Value, step: &Value, name: &str| {
        let at = p["buffers"].as_array().unwrap().iter().position(|b| b["name"] == name);
        at.is_some_and(|i| step["reads"].as_array().unwrap().iter().any(|r| r == i))
    };
    let plain = plan_json(&["--n", "16", "--m", "100352", "-k", "64"]);
    let hinted = plan_json(&["--n", "16", "--m", "100352", "-k", "64", "--hint"]);
    assert_eq!(step_names(&plain), step_names(&hinted));
    let (unit, twin) = (&plain["steps"][0]["unit"], &hinted["steps"][0]["unit"]);
    assert_eq!(format!("{}_ragged", unit.as_str().unwrap()), twin.as_str().unwrap());
    assert!(
        reads(&hinted, &hinted["steps"][0], "hint") && !reads(&plain, &plain["steps"][0], "hint")
    );
    assert_eq!(hinted["ragged"]["hint"], true);
    // split rows: the chunks never read the hint, the last select does
    let split = plan_json(&["--n", "128", "--m", "100352", "-k", "64", "--hint", "--threshold"]);
    let steps = split["steps"].as_array().unwrap();
    let names = step_names(&split);
    assert_eq!(names.first().map(String::as_str), Some("select_chunks"), "{names:?}");
    assert_eq!(names.last().map(String::as_str), Some("row_threshold"), "{names:?}");
    let selects: Vec<&Value> = steps.iter().filter(|s| s["name"] != "gather_indices").collect();
    assert!(!reads(&split, selects[0], "hint"), "{:?}", selects[0]);
    assert!(reads(&split, steps.iter().find(|s| s["name"] == "select_rows").unwrap(), "hint"));
    let lengths = plan_json(&["--n", "8", "--m", "4096", "-k", "16", "--lengths", "--k-per-row"]);
    assert!(reads(&lengths, &lengths["steps"][0], "lengths"));
    assert!(reads(&lengths, &lengths["steps"][0], "k_per_row"));
    let table = |extra: &[&str]| {
        let mut args = vec!["plan", "--gpu", "h100", "--n", "8", "--m", "4096", "-k", "16"];
        args.extend_from_slice(extra);
        stdout(&rtopk(&args))
    };
    let hinted = table(&["--lengths", "--hint"]);
    assert!(hinted.lines().next().unwrap().contains("(lengths, hints)"), "{hinted}");
    assert!(hinted.contains("_ragged") && hinted.contains("from the row's hint"), "{hinted}");
    let unhinted = table(&["--lengths"]);
    assert!(unhinted.contains("_ragged") && !unhinted.contains("hint"), "{unhinted}");
}

/// Every type the kernel takes has a plan: 64-bit rows take the wide rows, integer rows the
/// units of their own type; a name the kernel does not take exits 2 with the names it does.
#[test]
fn every_kernel_type_has_a_plan() {
    let unit = |dtype: &str| {
        let p = plan_json(&["--n", "1024", "--m", "256", "-k", "8", "--dtype", dtype]);
        p["steps"][0]["unit"].as_str().unwrap().to_string()
    };
    assert!(unit("float64").starts_with("rtopk_wide_rows_8_f64"), "{}", unit("float64"));
    assert!(unit("int64").starts_with("rtopk_wide_rows_8_i64"), "{}", unit("int64"));
    for (dtype, suffix) in [("int8", "_i8"), ("uint8", "_u8"), ("int16", "_i16"), ("int32", "_i32")]
    {
        assert!(unit(dtype).contains(suffix), "{dtype}: {}", unit(dtype));
    }
    fails_with(
        &["plan", "--gpu", "h100", "--n", "4", "--m", "256", "-k", "8", "--dtype", "float128"],
        2,
        "expected one of float32, float16, bfloat16, float64",
    );
}

/// Without `--gpu`, the plan is GPU 0's: with no CUDA driver (CI) that is the environment's
/// failure (exit 1, as `select --algo cuda`), naming the `--gpu` way around it; with one, a
/// program.
#[test]
fn the_live_gpus_plan_without_a_driver_exits_1_and_names_gpu() {
    let out = rtopk(&["plan", "--n", "4", "--m", "256", "-k", "8"]);
    if rtopk::cuda::check_libraries().is_err() {
        let err = common::stderr(&out);
        assert_eq!(out.status.code(), Some(1), "stderr: {err}");
        assert!(err.starts_with("error: no CUDA driver found"), "stderr: {err}");
        assert!(err.contains("--gpu a100|h100|h200"), "stderr: {err}");
    } else {
        assert!(out.status.success(), "{}", common::stderr(&out));
        assert!(stdout(&out).contains("select_rows"));
    }
}

#[test]
fn unknown_gpus_and_bad_shapes_exit_2() {
    fails_with(&["plan", "--gpu", "v100", "--n", "4", "--m", "256", "-k", "8"], 2, "v100");
    fails_with(&["plan", "--gpu", "h100", "--n", "4", "--m", "256", "-k", "300"], 2, "300");
}

/// `select --algo sim --coverage` names the program's steps the run launched and the branches
/// it reached: split rows without iteration counts, one whole-row step with them.
#[test]
fn select_sim_coverage_names_the_programs_steps_and_branches() {
    let dir = tempfile::TempDir::new().unwrap();
    let x = dir.path().join("x.npy");
    // past the rows a cluster's registers hold (16 blocks of 1024 threads: rtopk-plan's
    // WIDE_CLUSTER)
    let (n, m) = (1, 600_000);
    let data: Vec<f32> = (0..n * m).map(|i| ((i * 7919) % 10007) as f32 - 5000.0).collect();
    common::write_f32(&x, n, m, &data);
    let v = dir.path().join("v.npy");
    let (xs, vs) = (x.to_str().unwrap(), v.to_str().unwrap());
    let base = ["select", "--algo", "sim", "-k", "16", "--input", xs, "--values", vs, "--coverage"];
    let split = rtopk(&base);
    assert!(split.status.success(), "{}", common::stderr(&split));
    let err = common::stderr(&split);
    assert!(err.contains("coverage: steps: ") && err.contains("gather_indices x"), "{err}");
    assert!(err.contains("select_chunks x") && err.contains("split_rows"), "{err}");
    let it = dir.path().join("it.npy");
    let mut counted = base.to_vec();
    counted.extend(["--iterations", it.to_str().unwrap()]);
    let whole = rtopk(&counted);
    assert!(whole.status.success(), "{}", common::stderr(&whole));
    let err = common::stderr(&whole);
    assert!(err.contains("coverage: steps: select_rows x1\n"), "{err}");
    assert!(!err.contains("gather_indices"), "{err}");
    fails_with(
        &["select", "--algo", "bisect", "-k", "2", "--input", xs, "--values", vs, "--coverage"],
        2,
        "--coverage",
    );
}
