//! How a benchmark reports as it goes: an [`Observer`] of its cells, and a progress bar on a
//! terminal.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// Told about a benchmark as it runs, cell by cell (one algorithm on one input and k). Every
/// method has a silent default, and `()` observes nothing.
///
/// A face implements it to print rows as they come (the command line's table) or to forward
/// them (a Python callback); the harness itself prints nothing.
pub trait Observer<R> {
    /// The run starts: `cells` cells will be reported.
    fn begin(&mut self, cells: u64) {
        let _ = cells;
    }

    /// A cell starts (`label` says which, e.g. "normal 16384×256 k=16 radix").
    fn cell(&mut self, label: &str) {
        let _ = label;
    }

    /// A cell is done; `row` is its result (timed, skipped, or a wrong answer).
    fn row(&mut self, row: &R) {
        let _ = row;
    }

    /// An algorithm gave a wrong answer; `message` says which, where and how.
    fn wrong_answer(&mut self, message: &str) {
        let _ = message;
    }

    /// The run is over.
    fn end(&mut self) {}
}

impl<R> Observer<R> for () {}

/// Redraws per second of the bar while a long cell runs.
const TICK: Duration = Duration::from_millis(200);

/// A progress bar of cells on stderr, drawn only when stderr is a terminal: piped, in CI and
/// in tests it is hidden and writes nothing.
#[derive(Debug)]
pub struct TerminalProgress {
    bar: ProgressBar,
}

impl Default for TerminalProgress {
    fn default() -> Self {
        Self::new()
    }
}

impl TerminalProgress {
    /// A bar (hidden unless stderr is a terminal).
    pub fn new() -> Self {
        Self::drawn(std::io::stderr().is_terminal())
    }

    /// A bar drawn on stderr when `visible`, hidden otherwise.
    pub fn drawn(visible: bool) -> Self {
        Self { bar: if visible { ProgressBar::new(0) } else { ProgressBar::hidden() } }
    }

    /// `true` when the bar is drawn.
    pub fn is_visible(&self) -> bool {
        !self.bar.is_hidden()
    }

    /// Runs `f` with the bar cleared from the terminal, so that what `f` prints (a table row
    /// on stdout, a message on stderr) does not tangle with it.
    pub fn suspend<T>(&self, f: impl FnOnce() -> T) -> T {
        self.bar.suspend(f)
    }
}

impl<R> Observer<R> for TerminalProgress {
    fn begin(&mut self, cells: u64) {
        if let Ok(style) =
            ProgressStyle::with_template("{elapsed_precise} [{wide_bar}] {pos}/{len} {msg}")
        {
            self.bar.set_style(style.progress_chars("=> "));
        }
        self.bar.set_length(cells);
        self.bar.set_position(0);
        if self.is_visible() {
            // Single-vector cells take seconds: keep the clock moving between cells.
            self.bar.enable_steady_tick(TICK);
        }
    }

    fn cell(&mut self, label: &str) {
        self.bar.set_message(label.to_string());
    }

    fn row(&mut self, _row: &R) {
        self.bar.inc(1);
    }

    fn wrong_answer(&mut self, message: &str) {
        self.bar.suspend(|| eprintln!("error: WRONG ANSWER {message}"));
    }

    fn end(&mut self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_bars_observe_silently() {
        let mut p = TerminalProgress::drawn(false);
        assert!(!p.is_visible());
        Observer::<u32>::begin(&mut p, 3);
        Observer::<u32>::cell(&mut p, "a cell");
        Observer::<u32>::row(&mut p, &1);
        assert_eq!(p.suspend(|| 7), 7);
        Observer::<u32>::end(&mut p);
    }
}
