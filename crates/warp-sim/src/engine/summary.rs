//! A launch's findings in brief: each kind of [`Diagnostic`] with how often it occurred and
//! where first — what a user of the simulator reads (the library's `sim` algorithm and the
//! command line print it; every finding is still available one by one).

use std::fmt;

use crate::engine::diag::{DiagKind, Diagnostic};

/// One kind of finding: how many, and the first one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindCount {
    /// The kind.
    pub kind: DiagKind,
    /// How many findings of this kind.
    pub count: u64,
    /// The first of them (block, warp, lanes, label, address).
    pub first: Diagnostic,
}

/// Findings by kind, in [`DiagKind`] order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiagSummary {
    kinds: Vec<KindCount>,
}

impl DiagSummary {
    /// No findings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts `d` (keeping it when it is the first of its kind).
    pub fn add(&mut self, d: &Diagnostic) {
        self.add_count(d, 1);
    }

    fn add_count(&mut self, d: &Diagnostic, count: u64) {
        match self.kinds.binary_search_by(|k| k.kind.cmp(&d.kind)) {
            Ok(i) => self.kinds[i].count += count,
            Err(i) => self.kinds.insert(i, KindCount { kind: d.kind, count, first: d.clone() }),
        }
    }

    /// Adds another summary's counts (its first findings stand where this one has none).
    pub fn merge(&mut self, other: &DiagSummary) {
        for k in &other.kinds {
            self.add_count(&k.first, k.count);
        }
    }

    /// The kinds found, in [`DiagKind`] order.
    pub fn kinds(&self) -> &[KindCount] {
        &self.kinds
    }

    /// How many findings in all.
    pub fn total(&self) -> u64 {
        self.kinds.iter().map(|k| k.count).sum()
    }

    /// Findings that are not benign ([`DiagKind::is_benign`]).
    pub fn serious(&self) -> u64 {
        self.kinds.iter().filter(|k| !k.kind.is_benign()).map(|k| k.count).sum()
    }

    /// `true` when nothing was found.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// How many findings of `kind`.
    pub fn count(&self, kind: DiagKind) -> u64 {
        self.kinds.iter().find(|k| k.kind == kind).map_or(0, |k| k.count)
    }
}

impl fmt::Display for DiagSummary {
    /// `no findings`, or one line per kind: `kind x count, first: <finding>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kinds.is_empty() {
            return write!(f, "no findings");
        }
        for (i, k) in self.kinds.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{} x {}, first: {}", k.kind.name(), k.count, k.first)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::diag::Op;

    fn d(kind: DiagKind, block: u32) -> Diagnostic {
        Diagnostic { kind, op: Op::Launch, label: "x", block, warp: 0, lanes: 1, address: None }
    }

    #[test]
    fn counts_by_kind_keep_the_first_and_merge() {
        let mut s = DiagSummary::new();
        assert_eq!(s.to_string(), "no findings");
        s.add(&d(DiagKind::SharedRace, 3));
        s.add(&d(DiagKind::CallerNotInMask, 1));
        s.add(&d(DiagKind::SharedRace, 5));
        assert_eq!((s.total(), s.count(DiagKind::SharedRace)), (3, 2));
        assert_eq!(s.kinds()[0].kind, DiagKind::CallerNotInMask, "in kind order");
        assert_eq!(s.kinds()[1].first.block, 3, "the first is kept");
        let mut t = DiagSummary::new();
        t.add(&d(DiagKind::SharedRaceSameValue, 9));
        t.merge(&s);
        assert_eq!((t.total(), t.serious()), (4, 3));
        assert!(t.to_string().contains("shared-race x 2, first: shared-race"));
    }
}
