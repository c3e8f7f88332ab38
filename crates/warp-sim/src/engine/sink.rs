//! Where a launch's findings go: kept (up to a cap), counted and summarised by kind
//! ([`DiagSummary`]), or turned into the launch's error at the first one, by [`DiagPolicy`].

use crate::engine::diag::{DiagPolicy, Diagnostic};
use crate::engine::error::SimError;
use crate::engine::summary::DiagSummary;

/// Where findings go during a launch.
#[derive(Clone, Debug)]
pub struct DiagSink {
    policy: DiagPolicy,
    cap: usize,
    list: Vec<Diagnostic>,
    summary: DiagSummary,
}

impl DiagSink {
    /// A sink keeping at most `cap` findings (all of them are counted).
    pub fn new(policy: DiagPolicy, cap: usize) -> Self {
        Self { policy, cap, list: Vec::new(), summary: DiagSummary::new() }
    }

    /// `true` unless the policy is [`DiagPolicy::Off`].
    #[inline]
    pub fn enabled(&self) -> bool {
        self.policy != DiagPolicy::Off
    }

    /// Records `d`; under [`DiagPolicy::FailFast`] returns it as an error instead.
    #[inline]
    pub fn report(&mut self, d: Diagnostic) -> Result<(), SimError> {
        match self.policy {
            DiagPolicy::Off => Ok(()),
            DiagPolicy::FailFast => Err(SimError::Fatal(Box::new(d))),
            DiagPolicy::Collect => {
                self.summary.add(&d);
                if self.list.len() < self.cap {
                    self.list.push(d);
                }
                Ok(())
            }
        }
    }

    /// The findings kept so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.list
    }

    /// How many findings were reported (kept or not).
    pub fn total(&self) -> u64 {
        self.summary.total()
    }

    /// The findings so far by kind.
    pub fn summary(&self) -> &DiagSummary {
        &self.summary
    }

    /// Takes the kept findings and the summary out, and starts afresh.
    pub fn take(&mut self) -> (Vec<Diagnostic>, DiagSummary) {
        (std::mem::take(&mut self.list), std::mem::take(&mut self.summary))
    }
}
