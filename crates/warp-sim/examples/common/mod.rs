//! What the examples share.

use warp_sim::engine::Diagnostic;

/// Prints the first diagnostic of each kind.
pub(crate) fn print_kinds(found: &[Diagnostic]) {
    let mut seen = Vec::new();
    for d in found {
        if !seen.contains(&d.kind) {
            seen.push(d.kind);
            println!("  {d}");
        }
    }
}
