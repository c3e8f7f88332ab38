//! The programs a device has planned, kept by launch: a framework's eager loop calls the same
//! shape again and again, and planning a split route each time cost more host time than the
//! launches (docs/performance.md, "Host time per call").

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rtopk_plan::{DeviceLimits, ElemType, Launch, Program, Ragged, Strategy};
use topk_ref::{Bisect, EpsilonMode, Mode};

use crate::CudaError;

/// More distinct launches than this and the cache starts over (a program is a few hundred
/// bytes; a server sees a few dozen shapes).
const MOST: usize = 4096;

/// Everything a program is a function of, besides the device's limits (fixed per device).
/// [`Key::of`] destructures [`Launch`] and [`Bisect`] whole, so a field added to either cannot be
/// left out of the key (a program planned for one recall target must not serve another).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Key {
    n: usize,
    m: usize,
    k: usize,
    largest: bool,
    sorted: bool,
    elem: ElemType,
    precision: u32,
    relative: bool,
    max_iter: Option<u32>,
    recall: Option<u32>,
    strategy: Strategy,
    counts: bool,
    ragged: Ragged,
}

impl Key {
    fn of(launch: &Launch, strategy: Strategy, counts: bool, ragged: Ragged) -> Self {
        let Launch { n, m, k, mode, bisect, sorted, elem } = *launch;
        let Bisect { precision, epsilon_mode, max_iter, recall } = bisect;
        Key {
            n,
            m,
            k,
            largest: mode == Mode::Largest,
            sorted,
            elem,
            precision: precision.to_bits(),
            relative: epsilon_mode == EpsilonMode::RelativeToMax,
            max_iter,
            recall: recall.map(f32::to_bits),
            strategy,
            counts,
            ragged,
        }
    }
}

/// One device's planned programs.
#[derive(Debug, Default)]
pub(crate) struct Programs {
    planned: Mutex<HashMap<Key, Arc<Program>>>,
}

impl Programs {
    /// The program of `launch` (rtopk-plan's `program_ragged`), planned once per launch.
    pub(crate) fn get(
        &self,
        limits: &DeviceLimits,
        launch: &Launch,
        strategy: Strategy,
        counts: bool,
        ragged: Ragged,
    ) -> Result<Arc<Program>, CudaError> {
        let key = Key::of(launch, strategy, counts, ragged);
        if let Some(p) = self.lock().get(&key) {
            return Ok(Arc::clone(p));
        }
        // planned outside the lock: another thread planning the same launch does no harm
        let p = Arc::new(rtopk_plan::program_ragged(launch, limits, strategy, counts, ragged)?);
        let mut planned = self.lock();
        if planned.len() >= MOST {
            planned.clear();
        }
        planned.insert(key, Arc::clone(&p));
        Ok(p)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Arc<Program>>> {
        // a panic elsewhere cannot leave a map of complete programs half-written
        self.planned.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_planned_once_per_launch() {
        let limits = DeviceLimits::preset("h100").unwrap();
        let launch = Launch {
            n: 64,
            m: 128_256,
            k: 50,
            mode: Mode::Largest,
            bisect: Bisect::exact(),
            sorted: true,
            elem: ElemType::Bf16,
        };
        let programs = Programs::default();
        let none = Ragged::default();
        let a = programs.get(&limits, &launch, Strategy::Auto, false, none).unwrap();
        let b = programs.get(&limits, &launch, Strategy::Auto, false, none).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let want = rtopk_plan::program_ragged(&launch, &limits, Strategy::Auto, false, none);
        let json = |p: &Program| format!("{p:?}");
        assert_eq!(json(&a), json(&want.unwrap()));
        // any difference in the launch is another program
        let counts = programs.get(&limits, &launch, Strategy::Auto, true, none).unwrap();
        assert!(!Arc::ptr_eq(&a, &counts));
        let smaller = Launch { k: 49, ..launch };
        let c = programs.get(&limits, &smaller, Strategy::Auto, false, none).unwrap();
        assert_eq!(c.launch.k, 49);
        let bad = Launch { k: 200_000, ..launch };
        assert!(programs.get(&limits, &bad, Strategy::Auto, false, none).is_err());
    }

    /// A 64-bit launch is one wide-rows select step, plain or ragged: with per-row arrays the
    /// step is the wide rows' ragged twin (`rtopk_wide_rows_ragged_<EPL>`), with the threshold
    /// output a `row_threshold` step of the 64-bit threshold unit follows — each a program of
    /// its own, kept like any other. A forced strategy is still [`CudaError::Wide`] (only
    /// strategy auto holds 64-bit rows), ragged or not.
    #[test]
    fn a_64_bit_launch_is_planned_plain_ragged_and_with_thresholds() {
        let limits = DeviceLimits::preset("h100").unwrap();
        let programs = Programs::default();
        let none = Ragged::default();
        let all = Ragged { lengths: true, k_per_row: true, hint: true, threshold: true };
        for elem in ElemType::WIDE {
            let launch = Launch {
                n: 9,
                m: 3000,
                k: 20,
                mode: Mode::Smallest,
                bisect: Bisect::exact(),
                sorted: true,
                elem,
            };
            let p = programs.get(&limits, &launch, Strategy::Auto, false, none).unwrap();
            assert_eq!(p.steps.len(), 1);
            assert_eq!(p.steps[0].unit.family(), rtopk_plan::Family::WideRows);
            assert!(!p.steps[0].unit.is_ragged());
            for ragged in [
                all,
                Ragged { lengths: true, ..none },
                Ragged { k_per_row: true, ..none },
                Ragged { hint: true, ..none },
                Ragged { threshold: true, ..none },
            ] {
                for counts in [false, true] {
                    let what = format!("{elem:?} {ragged:?} counts={counts}");
                    let p = programs.get(&limits, &launch, Strategy::Auto, counts, ragged);
                    let p = p.unwrap_or_else(|e| panic!("{what}: {e}"));
                    let again = programs.get(&limits, &launch, Strategy::Auto, counts, ragged);
                    assert!(Arc::ptr_eq(&p, &again.unwrap()), "{what}: planned once");
                    let select = p.steps[0].unit;
                    assert_eq!(select.family(), rtopk_plan::Family::WideRows, "{what}");
                    assert_eq!(select.is_ragged(), ragged.any(), "{what}");
                    assert_eq!(select.elem_type(), elem, "{what}");
                    let names: Vec<_> = p.steps.iter().map(|s| s.name).collect();
                    if ragged.threshold {
                        use rtopk_plan::StepKind::{RowThreshold, SelectRows};
                        assert_eq!(names, [SelectRows, RowThreshold], "{what}");
                        assert_eq!(p.steps[1].unit, rtopk_plan::Unit::threshold(elem), "{what}");
                    } else {
                        assert_eq!(names.len(), 1, "{what}");
                    }
                }
            }
            for strategy in Strategy::ALL.into_iter().filter(|&s| s != Strategy::Auto) {
                for ragged in [none, all] {
                    let e = programs.get(&limits, &launch, strategy, false, ragged).unwrap_err();
                    assert!(matches!(e, CudaError::Wide { .. }), "{strategy:?}: {e}");
                    assert!(e.to_string().contains(elem.name()), "{e}");
                }
            }
        }
    }

    #[test]
    fn every_search_option_is_another_program() {
        let limits = DeviceLimits::preset("h100").unwrap();
        let launch = |bisect| Launch {
            n: 12,
            m: 5000,
            k: 100,
            mode: Mode::Largest,
            bisect,
            sorted: false,
            elem: ElemType::F32,
        };
        let programs = Programs::default();
        let none = Ragged::default();
        let searches = [
            Bisect::exact(),
            Bisect::with_recall(0.5).unwrap(),
            Bisect::with_recall(0.8).unwrap(),
            Bisect::early_stopping(3),
            Bisect::with_precision(1e-3).unwrap(),
        ];
        // asked in turn, each launch gets the program of its own search, never another's
        for bisect in searches {
            let p = programs.get(&limits, &launch(bisect), Strategy::Auto, false, none).unwrap();
            assert_eq!(p.launch.bisect, bisect);
        }
    }
}
