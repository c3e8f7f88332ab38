//! The guard of the one-binary test suites (each crate's `tests/suite.rs`, `autotests = false`):
//! a new file in `tests/` builds only once the suite declares it, so every suite checks, with
//! [`every_test_file_in_the_suite!`], that it declares them all.

use std::io;
use std::path::Path;

/// The `.rs` files of `tests_dir` that `root` (the suite's source) does not declare as
/// `mod NAME;`, leaving out `suite.rs` itself and `own_binaries` (files with a `[[test]]` of
/// their own), sorted.
pub fn unlisted_test_files(
    tests_dir: &Path,
    root: &str,
    own_binaries: &[&str],
) -> io::Result<Vec<String>> {
    let declared: Vec<&str> = root
        .lines()
        .filter_map(|line| line.trim().strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let mut unlisted = Vec::new();
    for entry in std::fs::read_dir(tests_dir)? {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        if path.is_file()
            && stem != "suite"
            && !own_binaries.contains(&stem)
            && !declared.contains(&stem)
        {
            unlisted.push(name.to_string());
        }
    }
    unlisted.sort();
    Ok(unlisted)
}

/// A test, for a crate's `tests/suite.rs`, that fails while a file of `tests/` is neither
/// declared there nor named (its stem) among the arguments, the files that build as binaries of
/// their own.
#[macro_export]
macro_rules! every_test_file_in_the_suite {
    ($($own:literal),* $(,)?) => {
        #[test]
        fn every_test_file_is_a_module_of_the_suite() {
            let dir = ::std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
            let root = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/suite.rs"));
            let unlisted = $crate::unlisted_test_files(&dir, root, &[$($own),*])
                .expect("the crate's tests/ directory is readable");
            assert!(
                unlisted.is_empty(),
                "tests/suite.rs does not declare {unlisted:?}: add `mod NAME;` there \
                 (autotests is off, so nothing else builds them)"
            );
        }
    };
}
