//! Which tool calls run on the async worker that received them, and which on the blocking pool.
//!
//! A tool call is CPU work. One that takes a few tens of microseconds (a `get_series` of a few countries)
//! costs the server more to hand to a blocking thread and back (a queue, a futex wake-up each way, two
//! context switches) than to run; one that takes milliseconds (a corpus-wide search) must not stall the
//! worker whose other connections wait on it. So the HTTP transport keeps, per tool, a moving average of
//! what its recent answered calls cost their thread ([`CallCosts::record`] of
//! [`CallOutcome::cpu_us`](super::jsonrpc::CallOutcome::cpu_us): the CPU time, so a cheap call preempted
//! on a busy core, or on the one core the workers keep to while dear calls fill the others,
//! [`super::placement`], is not taken for a dear one and sent to the pool (and a tool on the pool does
//! not keep the workers there by itself); measured once the corpus is warm (`Plugin::is_warm`), since
//! a call that waits for the thread reading it uses little CPU time; a refusal of bad arguments is
//! cheap and says nothing of the work) and runs a call in place when its tool's average is at most
//! [`INLINE_AT_MOST_US`] after [`WARM_UP_CALLS`] measured calls ([`CallCosts::runs_inline`]; forgotten
//! when another corpus is loaded, whose first calls build its lazy indexes),
//! on the blocking pool under its deadline otherwise. A tool whose calls grow dear (larger arguments, a
//! larger corpus) moves back to the pool by itself once its average passes the bound; an inline call
//! still holds its slot of the cap on calls in flight and is measured like the others.
//!
//! An inline call cannot be given up at its deadline (nothing else runs on its thread meanwhile): the
//! bound keeps such calls' work three orders of magnitude under the shortest deadline allowed (1 s).
//!
//! Where the calls that do not run in place go, and at what priority: [`super::placement`].

use std::{
    collections::HashMap,
    sync::atomic::{AtomicU64, Ordering},
};

/// The largest moving average, in microseconds, of a tool whose calls run in place.
pub const INLINE_AT_MOST_US: u64 = 250;

/// How many calls of a tool are measured on the blocking pool before its average decides.
pub const WARM_UP_CALLS: u64 = 8;

/// The weight of the newest call in a tool's moving average: 1/8 (`average += (new - average) / 8`).
const NEWEST_WEIGHT_SHIFT: u32 = 3;

/// Per tool, the moving average of its calls' running time (see the module doc). Lock-free: one atomic
/// word per tool holds the number of calls measured (high 16 bits, saturating) and the average in
/// sixteenths of a microsecond (low 48 bits).
#[derive(Debug, Default)]
pub struct CallCosts {
    tools: HashMap<&'static str, AtomicU64>,
}

/// The bits of a tool's word that hold its average.
const AVERAGE_BITS: u32 = 48;
const AVERAGE_MASK: u64 = (1 << AVERAGE_BITS) - 1;
/// Sixteenths of a microsecond per microsecond (the average's fixed point).
const FIXED_POINT: u64 = 16;

impl CallCosts {
    /// Costs for the tools named `tools`, none measured yet.
    pub fn new(tools: impl IntoIterator<Item = &'static str>) -> CallCosts {
        CallCosts {
            tools: tools
                .into_iter()
                .map(|tool| (tool, AtomicU64::new(0)))
                .collect(),
        }
    }

    /// Whether a call of `tool` runs in place: its tool is known, measured [`WARM_UP_CALLS`] times, and
    /// its average is at most [`INLINE_AT_MOST_US`].
    pub fn runs_inline(&self, tool: &str) -> bool {
        self.average_us(tool)
            .is_some_and(|(calls, average)| calls >= WARM_UP_CALLS && average <= INLINE_AT_MOST_US)
    }

    /// The calls of `tool` measured (at most 65,535) and their moving average in microseconds; `None`
    /// for a tool not named at [`CallCosts::new`].
    pub fn average_us(&self, tool: &str) -> Option<(u64, u64)> {
        let word = self.tools.get(tool)?.load(Ordering::Relaxed);
        Some((word >> AVERAGE_BITS, (word & AVERAGE_MASK) / FIXED_POINT))
    }

    /// Forgets every measurement (a newly loaded corpus: its lazy indexes are built by its first calls,
    /// which must run on the pool again).
    pub fn reset(&self) {
        for word in self.tools.values() {
            word.store(0, Ordering::Relaxed);
        }
    }

    /// Adds a call of `tool` that ran `elapsed_us` microseconds to its average (the first call sets it).
    /// A tool not named at [`CallCosts::new`] is ignored.
    pub fn record(&self, tool: &str, elapsed_us: u64) {
        let Some(word) = self.tools.get(tool) else {
            return;
        };
        let sample = elapsed_us.saturating_mul(FIXED_POINT).min(AVERAGE_MASK);
        let _ = word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |word| {
            let calls = word >> AVERAGE_BITS;
            let average = word & AVERAGE_MASK;
            let average = if calls == 0 {
                sample
            } else if sample >= average {
                average + ((sample - average) >> NEWEST_WEIGHT_SHIFT)
            } else {
                average - ((average - sample) >> NEWEST_WEIGHT_SHIFT)
            };
            Some(((calls + 1).min(u64::from(u16::MAX)) << AVERAGE_BITS) | average)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_runs_inline_only_once_measured_cheap() {
        let costs = CallCosts::new(["get_series", "search_corpus"]);
        assert!(!costs.runs_inline("get_series"), "nothing measured yet");
        for _ in 0..WARM_UP_CALLS - 1 {
            costs.record("get_series", 40);
        }
        assert!(!costs.runs_inline("get_series"), "still warming up");
        costs.record("get_series", 40);
        assert_eq!(costs.average_us("get_series"), Some((WARM_UP_CALLS, 40)));
        assert!(costs.runs_inline("get_series"));
        for _ in 0..WARM_UP_CALLS {
            costs.record("search_corpus", 5_000);
        }
        assert!(
            !costs.runs_inline("search_corpus"),
            "a dear tool stays on the pool"
        );
        assert!(!costs.runs_inline("no_such_tool"));
        costs.record("no_such_tool", 1);
        assert_eq!(costs.average_us("no_such_tool"), None);
    }

    #[test]
    fn a_tool_whose_calls_grow_dear_goes_back_to_the_pool_and_returns_when_cheap_again() {
        let costs = CallCosts::new(["get_series"]);
        for _ in 0..WARM_UP_CALLS {
            costs.record("get_series", 50);
        }
        assert!(costs.runs_inline("get_series"));
        // Calls of 2 ms: the average passes 250 µs within two.
        costs.record("get_series", 2_000);
        costs.record("get_series", 2_000);
        let (_, average) = costs.average_us("get_series").unwrap();
        assert!(average > INLINE_AT_MOST_US, "average {average} µs");
        assert!(!costs.runs_inline("get_series"));
        for _ in 0..40 {
            costs.record("get_series", 50);
        }
        assert!(costs.runs_inline("get_series"));
        costs.reset();
        assert!(
            !costs.runs_inline("get_series"),
            "a new corpus measures again"
        );
        assert_eq!(costs.average_us("get_series"), Some((0, 0)));
    }

    #[test]
    fn a_call_longer_than_the_word_holds_saturates_instead_of_wrapping() {
        let costs = CallCosts::new(["get_series"]);
        costs.record("get_series", u64::MAX);
        let (calls, average) = costs.average_us("get_series").unwrap();
        assert_eq!(calls, 1);
        assert_eq!(average, AVERAGE_MASK / FIXED_POINT);
        assert!(!costs.runs_inline("get_series"));
    }
}
