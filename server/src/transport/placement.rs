//! Where the server's threads run, so that cheap calls keep their latency while dear ones fill the cores.
//!
//! The server's call threads ([`super::workers`], its own blocking pool, which runs the tool calls too
//! dear to run in place; [`super::call_costs`]) run below the async workers ([`run_below_the_workers`],
//! nice [`POOL_NICE`] on Linux): when dear calls fill every core (a client flooding the server with
//! corpus-wide searches), the workers still get a core first to answer other clients' cheap calls, and the
//! dear calls share what is left.
//!
//! A nice value is not enough on its own. The kernel lets a thread finish its scheduler slice (a
//! millisecond or more) before a thread it wakes on the same core runs, whatever their nice values; and
//! when a call thread finishes a call, the worker it wakes to send the answer is woken on the call
//! thread's core, behind the next dear call, even while another core idles (`perf sched timehist` during
//! the flood of `bench/faults.sh`: workers runnable for 1.7 ms on the call threads' core while the other
//! stood idle). So an HTTP server spares cores (`MCP_SPARE_CORE`, on by default; [`spare_cores`]):
//! - the **spared CPUs** are the first quarter of the process' set at start, rounded up (one of 2 to 4,
//!   two of 5 to 8; none when the set has a single CPU); the call threads keep to the others, always;
//! - the async workers keep to the spared CPUs **while dear calls fill every core the call threads may
//!   use** ([`DearCall`] counts the calls running; the call thread whose call fills them moves every
//!   worker at once; when a CPU quota allows fewer cores than the set holds, as many calls as the quota
//!   leaves them fill them), and take the whole set back once the calls have left a core free for
//!   [`CALM_AFTER`] (a task of the runtime, [`release_workers_when_calm`]: a flood's calls end and begin
//!   again within microseconds, and moving the workers costs a system call each). The accept loop runs on
//!   the workers, and the runtime's other threads (its blocking pool: file reads, reloads) start on every
//!   core ([`runtime_thread_started`]) rather than on the set of the worker that started them. So while
//!   dear calls fill their cores no worker is woken behind one, and when no dear call runs (cached and
//!   cheap calls alone) the workers use every core.
//!
//! Measured with the flood of `bench/faults.sh` on 2 cores (64 connections of country-filtered
//! `search_corpus` against one connection of `get_series`), five interleaved runs each way: the other
//! client's p99 under the flood was 0.62–1.15 ms with the call threads kept off the spared core alone,
//! and 0.28–0.45 ms in four runs of five (1.87 ms in the fifth) with the workers kept to it as well and
//! the call threads' short slice ([`CALL_SLICE`]); its idle p99 was 0.23–0.29 ms. Every worker keeps to
//! the spared CPUs, not only as many as they are: with one worker there and the other on the call threads'
//! core, the other client's p99 under the flood was 1.46–1.76 ms in five rounds.
//!
//! What is left above the idle p99 is no more than the machine's share: the flood of `bench/faults.sh` also
//! measures the other client while the same flood hits a second server on the same cores, and its p99
//! there (median of five rounds, three runs: 0.35–0.42 ms) was higher than under the flood of its own
//! server (0.33–0.37 ms; idle 0.28–0.31 ms). The server's own histogram shows the `get_series` tool
//! itself running slower while the other core runs searches (within 100 µs in 97.7–98.1 % of calls,
//! against 98.6–99.5 % idle), not waiting for a worker.
//!
//! stdio spares nothing: one client, every core for its calls.

use std::{
    sync::atomic::{AtomicUsize, Ordering},
    time::{Duration, Instant},
};

/// How long the dear calls must leave a core of theirs free before the workers take every core back.
pub const CALM_AFTER: Duration = Duration::from_millis(50);

/// The nice value of a call thread (the workers keep the process' own, 0 by default): a weight of about
/// a tenth of theirs when both want a core.
pub const POOL_NICE: i32 = 10;

/// The spared CPUs and the workers that keep to them while dear calls fill the rest (see the module doc).
#[derive(Debug)]
pub struct Spare {
    #[cfg(target_os = "linux")]
    cores: Cores,
    /// Dear calls running now (each a [`DearCall`]).
    running: AtomicUsize,
    #[cfg(target_os = "linux")]
    workers: std::sync::Mutex<Workers>,
    /// Signalled when the dear calls leave a core free while the workers keep to the spared ones.
    calm: tokio::sync::Notify,
}

/// The process' CPUs at start, split (see the module doc).
#[cfg(target_os = "linux")]
struct Cores {
    /// Every CPU of the process' set: the workers' while dear calls leave a core free.
    all: libc::cpu_set_t,
    /// A quarter of them, rounded up: the workers' while dear calls fill the rest.
    spared: libc::cpu_set_t,
    /// The rest: the call threads'.
    calls: libc::cpu_set_t,
    /// The dear calls running at once that fill the calls' CPUs: how many `calls` holds, or fewer when a
    /// CPU quota leaves them fewer cores (`std::thread::available_parallelism` less the spared ones).
    call_cpus: usize,
}

#[cfg(target_os = "linux")]
impl std::fmt::Debug for Cores {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Cores")
            .field("spared", &cpus_of(&self.spared))
            .field("calls", &cpus_of(&self.calls))
            .finish()
    }
}

/// The async workers, by thread id, and which set they keep to now.
#[cfg(target_os = "linux")]
#[derive(Debug, Default)]
struct Workers {
    threads: Vec<libc::pid_t>,
    kept_to_spared: bool,
    /// Since when the dear calls have left a core free, while the workers keep to the spared CPUs.
    calm_since: Option<Instant>,
}

/// What [`spare_cores`] set: unset when nothing is spared.
static SPARE: std::sync::OnceLock<Spare> = std::sync::OnceLock::new();

/// Whether the server spares cores for its async workers (see the module doc); what the HTTP server sets
/// from `MCP_SPARE_CORE` at start, on its main thread, whose set is the process' (stdio never calls it).
/// The set is read once, here: a call thread started by another inherits its set, and each applies the
/// one read here. Nothing is spared when the set has fewer than two CPUs, or the system will not say
/// which it has.
pub fn spare_cores(spare: bool) {
    #[cfg(target_os = "linux")]
    if spare {
        match this_thread_cpus() {
            Ok(all) => {
                let quota = std::thread::available_parallelism().ok().map(usize::from);
                if let Some(spare) = Spare::of(all, quota) {
                    tracing::debug!(cores = ?spare.cores, "cores spared for the async workers");
                    let _ = SPARE.set(spare);
                }
            }
            Err(error) => {
                tracing::warn!(%error, "cannot read this process' CPUs: no core is spared")
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = spare;
}

/// Tokio's hook for a worker thread that unparks (`on_thread_unpark`): the first time, the worker is
/// counted among those [`Spare`] moves, and kept to the spared CPUs at once if dear calls fill the rest.
/// A thread-local check otherwise; nothing when no core is spared.
pub fn worker_unparked() {
    thread_local! {
        static COUNTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if COUNTED.replace(true) {
        return;
    }
    #[cfg(target_os = "linux")]
    if let Some(spare) = SPARE.get() {
        spare.add_worker(this_thread_id());
    }
}

/// Tokio's hook for a thread of the runtime that starts (`on_thread_start`): it takes every CPU of the
/// process' set, whatever the set of the thread that started it (a blocking-pool thread started by a
/// worker kept to the spared CPUs would otherwise stay there). Nothing when no core is spared.
pub fn runtime_thread_started() {
    #[cfg(target_os = "linux")]
    if let Some(spare) = SPARE.get()
        && let Err(error) = keep_thread_to(0, &spare.cores.all)
    {
        tracing::debug!(%error, "could not give a runtime thread every core");
    }
}

/// One dear call running on a call thread, from [`DearCall::begin`] until dropped: what decides where the
/// async workers run (see the module doc). Nothing when no core is spared.
#[derive(Debug)]
#[must_use = "the call counts as running until this is dropped"]
pub struct DearCall(Option<&'static Spare>);

impl DearCall {
    /// Counts a dear call as running on the calling thread (a call thread).
    pub fn begin() -> DearCall {
        let spare = SPARE.get();
        if let Some(spare) = spare {
            spare.dear_call_began();
        }
        DearCall(spare)
    }
}

impl Drop for DearCall {
    fn drop(&mut self) {
        if let Some(spare) = self.0 {
            spare.dear_call_ended();
        }
    }
}

impl Spare {
    /// The split of `all` (see the module doc); `None` for fewer than two CPUs. `cores_allowed`: how many
    /// cores a CPU quota lets the process use (`None`: all of `all`).
    #[cfg(target_os = "linux")]
    fn of(all: libc::cpu_set_t, cores_allowed: Option<usize>) -> Option<Spare> {
        let cpus = cpus_of(&all);
        if cpus.len() < 2 {
            return None;
        }
        let spared_count = cpus.len().div_ceil(4);
        // SAFETY: a zeroed `cpu_set_t` is an empty set; the `CPU_*` helpers index within it (the CPUs
        // come from a set of the same size).
        let (spared, calls) = unsafe {
            let mut spared: libc::cpu_set_t = std::mem::zeroed();
            let mut calls: libc::cpu_set_t = std::mem::zeroed();
            for (index, &cpu) in cpus.iter().enumerate() {
                if index < spared_count {
                    libc::CPU_SET(cpu, &mut spared);
                } else {
                    libc::CPU_SET(cpu, &mut calls);
                }
            }
            (spared, calls)
        };
        Some(Spare {
            cores: Cores {
                all,
                spared,
                calls,
                call_cpus: cores_allowed
                    .unwrap_or(cpus.len())
                    .min(cpus.len())
                    .saturating_sub(spared_count)
                    .max(1),
            },
            running: AtomicUsize::new(0),
            workers: std::sync::Mutex::default(),
            calm: tokio::sync::Notify::new(),
        })
    }

    /// A dear call began: the workers move to the spared CPUs when it is the one that fills the rest.
    fn dear_call_began(&self) {
        let running = self.running.fetch_add(1, Ordering::AcqRel) + 1;
        #[cfg(target_os = "linux")]
        if running == self.cores.call_cpus {
            let mut workers = self.lock_workers();
            // Read again under the lock: a call that ended meanwhile may have freed a core again.
            if self.running.load(Ordering::Acquire) >= self.cores.call_cpus {
                workers.calm_since = None;
                if !workers.kept_to_spared {
                    workers.kept_to_spared = true;
                    workers.move_to(&self.cores.spared);
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = running;
    }

    /// A dear call ended: when it leaves a core of the calls' free, the calm starts (the workers take
    /// every core back after [`CALM_AFTER`] of it, [`Spare::release_if_calm`]).
    fn dear_call_ended(&self) {
        let before = self.running.fetch_sub(1, Ordering::AcqRel);
        #[cfg(target_os = "linux")]
        if before == self.cores.call_cpus {
            let mut workers = self.lock_workers();
            if workers.kept_to_spared && self.running.load(Ordering::Acquire) < self.cores.call_cpus
            {
                workers.calm_since.get_or_insert_with(Instant::now);
                drop(workers);
                self.calm.notify_one();
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = before;
    }

    /// At `now`: moves the workers back to every CPU if the dear calls have left a core free for
    /// [`CALM_AFTER`]; how long to wait before asking again when the calm is younger; `None` when
    /// there is nothing to wait for (the workers use every core, or dear calls fill the rest again and
    /// the next calm will be signalled).
    #[cfg(target_os = "linux")]
    fn release_if_calm(&self, now: Instant) -> Option<Duration> {
        let mut workers = self.lock_workers();
        if !workers.kept_to_spared {
            return None;
        }
        if self.running.load(Ordering::Acquire) >= self.cores.call_cpus {
            workers.calm_since = None;
            return None;
        }
        let since = *workers.calm_since.get_or_insert(now);
        let calm = now.saturating_duration_since(since);
        if calm < CALM_AFTER {
            return Some(CALM_AFTER - calm);
        }
        workers.kept_to_spared = false;
        workers.calm_since = None;
        workers.move_to(&self.cores.all);
        None
    }

    #[cfg(target_os = "linux")]
    fn lock_workers(&self) -> std::sync::MutexGuard<'_, Workers> {
        self.workers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Counts `thread` among the workers, and keeps it to the spared CPUs if they are kept there now.
    #[cfg(target_os = "linux")]
    fn add_worker(&self, thread: libc::pid_t) {
        let mut workers = self.lock_workers();
        workers.threads.push(thread);
        if workers.kept_to_spared {
            move_worker(thread, &self.cores.spared);
        }
    }
}

#[cfg(target_os = "linux")]
impl Workers {
    /// Keeps every worker to the CPUs of `set`.
    fn move_to(&self, set: &libc::cpu_set_t) {
        for &thread in &self.threads {
            move_worker(thread, set);
        }
    }
}

/// Keeps the async worker `thread` to the CPUs of `set` (a failure is logged: it keeps the set it had).
#[cfg(target_os = "linux")]
fn move_worker(thread: libc::pid_t, set: &libc::cpu_set_t) {
    if let Err(error) = keep_thread_to(thread, set) {
        tracing::debug!(%error, thread, "could not move an async worker");
    }
}

/// The task that gives the async workers every core back once the dear calls have left one of theirs
/// free for [`CALM_AFTER`] (see the module doc); spawned on the HTTP server's runtime at start. Returns at
/// once when no core is spared.
pub async fn release_workers_when_calm() {
    #[cfg(target_os = "linux")]
    if let Some(spare) = SPARE.get() {
        loop {
            spare.calm.notified().await;
            while let Some(wait) = spare.release_if_calm(Instant::now()) {
                tokio::time::sleep(wait).await;
            }
        }
    }
}

/// Lowers the calling thread's scheduling priority to [`POOL_NICE`] (or keeps a lower one it has), asks
/// for a scheduler slice of [`CALL_SLICE`], and, when cores are spared ([`spare_cores`]), keeps it off
/// them; once per thread (a call thread, before it runs a tool call; see the module doc). Linux sets all
/// three per thread; elsewhere, and if the system refuses, nothing changes.
pub fn run_below_the_workers() {
    thread_local! {
        static LOWERED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if LOWERED.replace(true) {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        if let Err(error) = lower_this_thread() {
            tracing::debug!(%error, "could not lower a pool thread's priority");
        }
        if let Some(spare) = SPARE.get()
            && let Err(error) = keep_thread_to(0, &spare.cores.calls)
        {
            tracing::debug!(%error, "could not keep a call thread off the workers' cores");
        }
    }
}

/// The scheduler slice a call thread asks for: the shortest Linux grants (its EEVDF scheduler, 6.12 and
/// later; earlier kernels ignore the request). The kernel lets a running thread finish its slice before
/// another it wakes on the same core may run; a client's thread woken on a call thread's core (a load
/// generator on the same machine, a proxy, the answer's reader) then waits about a tenth of a
/// millisecond instead of a default slice (0.75 ms or more). Measured with the flood of `bench/faults.sh`,
/// the workers kept to the spared core both ways: the other client's p99 under the flood was 0.32–0.37 ms
/// in three runs with this slice, 0.37–2.0 ms in three without.
pub const CALL_SLICE: Duration = Duration::from_micros(100);

/// `sched_setattr`'s flag that leaves the thread's policy as it is (`include/uapi/linux/sched.h`).
#[cfg(target_os = "linux")]
const SCHED_FLAG_KEEP_POLICY: u64 = 0x08;

/// What `sched_setattr` reads (`struct sched_attr`, its first version: 48 bytes).
#[cfg(target_os = "linux")]
#[derive(Clone, Copy)]
#[repr(C)]
struct SchedAttr {
    size: u32,
    sched_policy: u32,
    sched_flags: u64,
    sched_nice: i32,
    sched_priority: u32,
    sched_runtime: u64,
    sched_deadline: u64,
    sched_period: u64,
}

/// Sets the calling thread to nice [`POOL_NICE`] (or the lower priority it has) and a slice of
/// [`CALL_SLICE`], in one `sched_setattr` that keeps its policy (an operator's `SCHED_BATCH` stays); only
/// the nice value where the kernel refuses that.
#[cfg(target_os = "linux")]
fn lower_this_thread() -> std::io::Result<()> {
    let thread = this_thread_id();
    // SAFETY: `getpriority` on this thread's id reads no memory of ours (-1 is also a valid nice value,
    // so errno is not consulted: a failure leaves POOL_NICE).
    let nice =
        unsafe { libc::getpriority(libc::PRIO_PROCESS, thread as libc::id_t) }.max(POOL_NICE);
    let attr = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        sched_policy: libc::SCHED_OTHER as u32,
        sched_flags: SCHED_FLAG_KEEP_POLICY,
        sched_nice: nice,
        sched_priority: 0,
        sched_runtime: CALL_SLICE.as_nanos() as u64,
        sched_deadline: 0,
        sched_period: 0,
    };
    // SAFETY: `sched_setattr` on thread 0 (the calling one) reads only `attr`, whose size it is given
    // in its first field; `setpriority` on this thread's id changes only its nice value.
    unsafe {
        if libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) == 0 {
            return Ok(());
        }
        if libc::setpriority(libc::PRIO_PROCESS, thread as libc::id_t, nice) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The calling thread's id.
#[cfg(target_os = "linux")]
fn this_thread_id() -> libc::pid_t {
    // SAFETY: `gettid` takes nothing and returns the calling thread's id.
    unsafe { libc::syscall(libc::SYS_gettid) as libc::pid_t }
}

/// The CPUs of `thread` (0: the calling thread).
#[cfg(target_os = "linux")]
fn thread_cpus(thread: libc::pid_t) -> std::io::Result<libc::cpu_set_t> {
    // SAFETY: a zeroed `cpu_set_t` is an empty set; `sched_getaffinity` writes only the set passed with
    // its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(thread, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(set)
    }
}

/// The calling thread's CPUs.
#[cfg(target_os = "linux")]
fn this_thread_cpus() -> std::io::Result<libc::cpu_set_t> {
    thread_cpus(0)
}

/// Keeps `thread` (0: the calling thread; a thread of this process) to the CPUs of `set`.
#[cfg(target_os = "linux")]
fn keep_thread_to(thread: libc::pid_t, set: &libc::cpu_set_t) -> std::io::Result<()> {
    // SAFETY: `sched_setaffinity` reads only `set`, passed with its size.
    if unsafe { libc::sched_setaffinity(thread, std::mem::size_of::<libc::cpu_set_t>(), set) } != 0
    {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The CPUs of `set`, in order.
#[cfg(target_os = "linux")]
fn cpus_of(set: &libc::cpu_set_t) -> Vec<usize> {
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: the index is within the set (`CPU_SETSIZE` bits).
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, set) })
        .collect()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::sync::mpsc;

    use super::*;

    fn set_of(cpus: &[usize]) -> libc::cpu_set_t {
        // SAFETY: as in `Spare::of`.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &cpu in cpus {
                libc::CPU_SET(cpu, &mut set);
            }
            set
        }
    }

    #[test]
    fn a_quarter_of_the_cpus_at_least_one_is_spared_and_one_cpu_spares_none() {
        let split = |cpus: &[usize]| {
            Spare::of(set_of(cpus), None).map(|spare| {
                (
                    cpus_of(&spare.cores.spared),
                    cpus_of(&spare.cores.calls),
                    spare.cores.call_cpus,
                )
            })
        };
        assert_eq!(split(&[0, 1]), Some((vec![0], vec![1], 1)));
        assert_eq!(split(&[2, 5, 7, 9]), Some((vec![2], vec![5, 7, 9], 3)));
        assert_eq!(
            split(&(0..8).collect::<Vec<_>>()),
            Some((vec![0, 1], (2..8).collect(), 6))
        );
        assert_eq!(split(&[3]), None);
        let quota = Spare::of(set_of(&(0..64).collect::<Vec<_>>()), Some(2)).unwrap();
        assert_eq!(
            (cpus_of(&quota.cores.spared).len(), quota.cores.call_cpus),
            (16, 1),
            "a quota of two cores: one dear call fills what the calls get"
        );
        assert_eq!(split(&[]), None);
    }

    /// The calling thread's scheduling attributes, as `sched_getattr` gives them; `None` where the system
    /// refuses it (a sandbox).
    fn this_thread_attr() -> Option<SchedAttr> {
        let mut attr = SchedAttr {
            size: 0,
            sched_policy: 0,
            sched_flags: 0,
            sched_nice: 0,
            sched_priority: 0,
            sched_runtime: 0,
            sched_deadline: 0,
            sched_period: 0,
        };
        let size = std::mem::size_of::<SchedAttr>() as u32;
        // SAFETY: `sched_getattr` on thread 0 writes at most `size` bytes into `attr`.
        let result = unsafe {
            libc::syscall(
                libc::SYS_sched_getattr,
                0,
                &mut attr as *mut SchedAttr,
                size,
                0,
            )
        };
        (result == 0).then_some(attr)
    }

    /// Whether the running kernel grants a fair thread the slice it asks for (Linux 6.12 and later).
    fn kernel_grants_slices() -> bool {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let mut numbers = release
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|part| part.parse::<u32>().ok());
        let (major, minor) = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
        (major, minor) >= (6, 12)
    }

    #[test]
    fn a_pool_thread_runs_at_a_lower_priority_with_a_short_slice_and_other_threads_keep_theirs() {
        let Some(before) = this_thread_attr() else {
            return;
        };
        let (lowered, slice_granted) = std::thread::spawn(move || {
            run_below_the_workers();
            run_below_the_workers();
            let lowered = this_thread_attr().unwrap();
            // Whether this system takes a slice at all (a sandbox may refuse `sched_setattr`): asked
            // again, for the same slice, on this already lowered thread.
            let attr = SchedAttr {
                size: 48,
                ..lowered
            };
            // SAFETY: as in `lower_this_thread`.
            let granted = unsafe {
                libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) == 0
            };
            (lowered, granted)
        })
        .join()
        .unwrap();
        assert_eq!(lowered.sched_nice, before.sched_nice.max(POOL_NICE));
        assert_eq!(
            lowered.sched_policy, before.sched_policy,
            "the policy is kept"
        );
        if slice_granted && kernel_grants_slices() {
            assert_eq!(
                lowered.sched_runtime, 100_000,
                "a slice of 0.1 ms in nanoseconds"
            );
            assert_ne!(before.sched_runtime, 100_000, "the default slice is longer");
        }
        let after = this_thread_attr().unwrap();
        assert_eq!(
            (after.sched_nice, after.sched_runtime),
            (before.sched_nice, before.sched_runtime),
            "the calling thread keeps its own"
        );
    }

    /// A thread standing for an async worker: its id, and a sender that lets it end.
    fn worker_thread() -> (libc::pid_t, mpsc::Sender<()>, std::thread::JoinHandle<()>) {
        let (id_sender, id) = mpsc::channel();
        let (stop, stopped) = mpsc::channel::<()>();
        let handle = std::thread::spawn(move || {
            id_sender.send(this_thread_id()).unwrap();
            let _ = stopped.recv();
        });
        (id.recv().unwrap(), stop, handle)
    }

    #[test]
    fn the_workers_keep_to_the_spared_cpus_while_dear_calls_fill_the_rest_and_only_then() {
        let all = this_thread_cpus().unwrap();
        let Some(spare) = Spare::of(all, None) else {
            assert!(cpus_of(&all).len() < 2, "two CPUs or more spare one");
            return;
        };
        let cpus = |thread| cpus_of(&thread_cpus(thread).unwrap());
        let (early, stop_early, early_handle) = worker_thread();
        spare.add_worker(early);
        let calls = spare.cores.call_cpus;
        for _ in 0..calls - 1 {
            spare.dear_call_began();
        }
        assert_eq!(
            cpus(early),
            cpus_of(&all),
            "a core of the calls' is still free"
        );
        spare.dear_call_began();
        assert_eq!(
            cpus(early),
            cpus_of(&spare.cores.spared),
            "the calls fill theirs"
        );
        // A worker that first unparks now joins the others where they are.
        let (late, stop_late, late_handle) = worker_thread();
        spare.add_worker(late);
        assert_eq!(cpus(late), cpus_of(&spare.cores.spared));
        spare.dear_call_began();
        spare.dear_call_ended();
        assert_eq!(cpus(early), cpus_of(&spare.cores.spared), "still full");
        assert_eq!(spare.release_if_calm(Instant::now()), None, "no calm yet");
        let calm = Instant::now();
        spare.dear_call_ended();
        assert_eq!(
            cpus(early),
            cpus_of(&spare.cores.spared),
            "a core is free, but only just"
        );
        let wait = spare.release_if_calm(calm).expect("the calm is young");
        assert!(wait <= CALM_AFTER, "{wait:?}");
        // A call fills the cores again, and ends: the calm starts over.
        for _ in 0..calls {
            spare.dear_call_began();
        }
        assert_eq!(spare.release_if_calm(calm + CALM_AFTER), None, "full again");
        for _ in 0..calls {
            spare.dear_call_ended();
        }
        assert_eq!(cpus(early), cpus_of(&spare.cores.spared));
        let later = Instant::now() + CALM_AFTER;
        assert_eq!(spare.release_if_calm(later), None, "calm long enough");
        assert_eq!(
            cpus(early),
            cpus_of(&all),
            "every core is the workers' again"
        );
        assert_eq!(cpus(late), cpus_of(&all));
        assert_eq!(
            spare.release_if_calm(later),
            None,
            "nothing left to release"
        );
        assert_eq!(cpus(0), cpus_of(&all), "the calling thread was never moved");
        for stop in [stop_early, stop_late] {
            stop.send(()).unwrap();
        }
        early_handle.join().unwrap();
        late_handle.join().unwrap();
    }

    #[test]
    fn a_call_thread_keeps_off_the_spared_cpus_even_when_started_by_another() {
        let all = this_thread_cpus().unwrap();
        let Some(spare) = Spare::of(all, None) else {
            return;
        };
        let calls = spare.cores.calls;
        let cpus = || cpus_of(&this_thread_cpus().unwrap());
        let (kept, first, second) = std::thread::spawn(move || {
            let kept = cpus();
            keep_thread_to(0, &calls).unwrap();
            let first = cpus();
            // A call thread started by a call thread inherits its set and applies the same one again.
            let second = std::thread::spawn(move || {
                keep_thread_to(0, &calls).unwrap();
                cpus()
            })
            .join()
            .unwrap();
            (kept, first, second)
        })
        .join()
        .unwrap();
        assert_eq!(
            kept,
            cpus_of(&all),
            "a new thread starts with the process' set"
        );
        assert_eq!(
            first,
            cpus_of(&spare.cores.calls),
            "the spared CPUs are left to the workers"
        );
        assert_eq!(second, first, "the set does not shrink again");
        assert_eq!(cpus(), cpus_of(&all), "the calling thread keeps its set");
    }
}
