//! Which tool calls run on the async worker that received them, and which on the blocking pool.
//!
//! A tool call is CPU work. One that takes a few tens of microseconds (a `get_series` of a few countries)
//! costs the server more to hand to a blocking thread and back (a queue, a futex wake-up each way, two
//! context switches) than to run; one that takes milliseconds (a corpus-wide search) must not stall the
//! worker whose other connections wait on it. So the HTTP transport keeps, per tool, a moving average of
//! how long its recent answered calls ran ([`CallCosts::record`]; a refusal of bad arguments is cheap and
//! says nothing of the work) and runs a call in place when its tool's average is at most
//! [`INLINE_AT_MOST_US`] after [`WARM_UP_CALLS`] measured calls ([`CallCosts::runs_inline`]; forgotten
//! when another corpus is loaded, whose first calls build its lazy indexes),
//! on the blocking pool under its deadline otherwise. A tool whose calls grow dear (larger arguments, a
//! larger corpus) moves back to the pool by itself once its average passes the bound; an inline call
//! still holds its slot of the cap on calls in flight and is measured like the others.
//!
//! An inline call cannot be given up at its deadline (nothing else runs on its thread meanwhile): the
//! bound keeps such calls three orders of magnitude under the shortest deadline allowed (1 s).
//!
//! The server's call threads ([`super::workers`], its own blocking pool) run below the async workers
//! ([`run_below_the_workers`], nice [`POOL_NICE`] on Linux): when dear calls fill every core (a client
//! flooding the server with corpus-wide searches), the workers still get the CPU at once to answer other
//! clients' cheap calls, and the dear calls share what is left. An HTTP server also keeps one CPU of its set free of them
//! ([`set_spare_core`], `MCP_SPARE_CORE`, on by default): a niced thread busy on a core still delays a
//! worker the kernel wakes on that core by up to a scheduler slice (a millisecond or more), so a worker
//! woken while every core runs a dear call would answer a cheap one that much late; with a core the
//! dear calls never take, the kernel can wake workers there. Measured as in `bench/faults.sh flood` on 2
//! cores: the other client's p90 under the flood fell from 0.44–0.81 ms to 0.16–0.28 ms (three runs
//! each way, `MCP_SPARE_CORE=false` against the default).

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

/// The nice value of a blocking-pool thread that has run a tool call (the workers keep the process' own,
/// 0 by default): a weight of about a tenth of theirs when both want a core.
pub const POOL_NICE: i32 = 10;

/// The CPUs a call thread keeps when one is spared for the async workers ([`set_spare_core`]): the
/// process' set at start without its first CPU. Unset when none is spared.
#[cfg(target_os = "linux")]
static CALL_THREAD_CPUS: std::sync::OnceLock<libc::cpu_set_t> = std::sync::OnceLock::new();

/// Whether the server's call threads, from their first tool call on, keep off the first CPU of the
/// process' set, leaving it to the async workers (see the module doc); what the HTTP server sets from
/// `MCP_SPARE_CORE` at start, on its main thread, whose set is the process' (stdio never calls it: one
/// client, every core for its calls). The set is read once, here: a call thread started by another
/// inherits its set, and each applies this one, not one taken from its own. Nothing is spared when the
/// set has fewer than two CPUs, or the system will not say which it has.
pub fn set_spare_core(spare: bool) {
    #[cfg(target_os = "linux")]
    if spare {
        match spared_set() {
            Ok(Some(set)) => {
                let _ = CALL_THREAD_CPUS.set(set);
            }
            Ok(None) => {}
            Err(error) => {
                tracing::warn!(%error, "cannot read this process' CPUs: no core is spared")
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = spare;
}

/// Lowers the calling thread's scheduling priority to [`POOL_NICE`] and, when a core is spared
/// ([`set_spare_core`]), gives it the process' CPUs without that one; once per thread (a call thread,
/// before it runs a tool call; see the module doc). Linux sets both per thread; elsewhere, and if the
/// system refuses, nothing changes.
pub fn run_below_the_workers() {
    thread_local! {
        static LOWERED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if LOWERED.get() {
        return;
    }
    LOWERED.set(true);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `gettid` takes nothing and returns this thread's id; `setpriority` on that id changes
        // only this thread's nice value (Linux keeps one per thread) and reads no memory of ours.
        let result = unsafe {
            let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, thread, POOL_NICE)
        };
        if result != 0 {
            tracing::debug!(error = %std::io::Error::last_os_error(), "could not lower a pool thread's priority");
        }
        if let Some(set) = CALL_THREAD_CPUS.get()
            && let Err(error) = keep_to(set)
        {
            tracing::debug!(%error, "could not keep a call thread off the workers' core");
        }
    }
}

/// The calling thread's CPUs without the first, when it has two or more; `None` when it has fewer.
#[cfg(target_os = "linux")]
fn spared_set() -> std::io::Result<Option<libc::cpu_set_t>> {
    let mut set = this_thread_cpus()?;
    // SAFETY: the `CPU_*` helpers index within the set (`CPU_SETSIZE` bits).
    unsafe {
        if libc::CPU_COUNT(&set) < 2 {
            return Ok(None);
        }
        if let Some(first) = (0..libc::CPU_SETSIZE as usize).find(|&cpu| libc::CPU_ISSET(cpu, &set))
        {
            libc::CPU_CLR(first, &mut set);
        }
    }
    Ok(Some(set))
}

/// The calling thread's CPUs.
#[cfg(target_os = "linux")]
fn this_thread_cpus() -> std::io::Result<libc::cpu_set_t> {
    // SAFETY: a zeroed `cpu_set_t` is an empty set; `sched_getaffinity` on thread 0 (the calling one)
    // writes only the set passed with its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(set)
    }
}

/// Restricts the calling thread to the CPUs of `set`.
#[cfg(target_os = "linux")]
fn keep_to(set: &libc::cpu_set_t) -> std::io::Result<()> {
    // SAFETY: `sched_setaffinity` on thread 0 (the calling one) reads only `set`, passed with its size.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
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

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pool_thread_runs_at_a_lower_priority_and_other_threads_keep_theirs() {
        let nice = || {
            // SAFETY: as in `run_below_the_workers`.
            unsafe {
                libc::getpriority(
                    libc::PRIO_PROCESS,
                    libc::syscall(libc::SYS_gettid) as libc::id_t,
                )
            }
        };
        let before = nice();
        let lowered = std::thread::spawn(move || {
            run_below_the_workers();
            run_below_the_workers();
            nice()
        })
        .join()
        .unwrap();
        assert_eq!(lowered, before.max(POOL_NICE));
        assert_eq!(nice(), before, "the calling thread keeps its priority");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_call_thread_keeps_the_process_cpus_but_the_first_even_when_started_by_another() {
        let cpus = || {
            let set = this_thread_cpus().unwrap();
            (0..libc::CPU_SETSIZE as usize)
                // SAFETY: the index is within the set (`CPU_SETSIZE` bits).
                .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
                .collect::<Vec<usize>>()
        };
        let before = cpus();
        let Some(spared) = spared_set().unwrap() else {
            assert!(before.len() < 2, "two CPUs or more spare one: {before:?}");
            return;
        };
        let (kept, first, second) = std::thread::spawn(move || {
            let kept = cpus();
            keep_to(&spared).unwrap();
            let first = cpus();
            // A call thread started by a call thread inherits its set and applies the same one again.
            let second = std::thread::spawn(move || {
                keep_to(&spared).unwrap();
                cpus()
            })
            .join()
            .unwrap();
            (kept, first, second)
        })
        .join()
        .unwrap();
        assert_eq!(kept, before, "a new thread starts with the process' set");
        assert_eq!(first, before[1..], "the first CPU is left to the workers");
        assert_eq!(second, first, "the set does not shrink again");
        assert_eq!(cpus(), before, "the calling thread keeps its set");
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
