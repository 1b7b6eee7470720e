//! The threads `tools/call` runs tools on, so a caller can stop waiting at the call's deadline.
//!
//! A small elastic pool: a job goes to an idle worker when there is one, else to a new thread, so a
//! call never queues behind a slow one (a tool past its deadline keeps its thread until it returns; it
//! cannot be killed). A worker idle for [`IDLE_TIMEOUT`] exits, so the pool shrinks back after a burst.

use std::{
    collections::VecDeque,
    sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, mpsc},
    thread,
    time::Duration,
};

/// How long an idle worker waits for a job before it exits.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

type Job = Box<dyn FnOnce() + Send + 'static>;

thread_local! {
    /// Whether this thread is one of a pool's (see [`on_a_call_thread`]).
    static CALL_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the calling thread is one a [`Workers`] pool started (a job [`Workers::execute`] had to run
/// on its caller, for want of a thread, is not on one).
pub fn on_a_call_thread() -> bool {
    CALL_THREAD.get()
}

/// The pool (see the module doc).
#[derive(Debug, Default)]
pub struct Workers {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// Jobs handed to idle workers, not yet taken.
    queue: VecDeque<Job>,
    /// Workers waiting for a job.
    idle: usize,
}

impl std::fmt::Debug for State {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("State")
            .field("queued", &self.queue.len())
            .field("idle", &self.idle)
            .finish()
    }
}

impl Workers {
    /// Runs `job` on an idle worker, or on a new one; on the calling thread if no thread can be made.
    pub fn execute(self: &Arc<Self>, job: impl FnOnce() + Send + 'static) {
        let job: Job = Box::new(job);
        {
            let mut state = self.lock();
            if state.idle > state.queue.len() {
                state.queue.push_back(job);
                self.wake.notify_one();
                return;
            }
        }
        // The job stays reachable from here until the new thread takes it, in case it cannot start.
        let slot = Arc::new(Mutex::new(Some(job)));
        let taken = slot.clone();
        let workers = self.clone();
        let spawned = thread::Builder::new()
            .name("tools-call".into())
            .spawn(move || {
                CALL_THREAD.set(true);
                let job = taken.lock().unwrap_or_else(PoisonError::into_inner).take();
                if let Some(job) = job {
                    job();
                }
                workers.serve();
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "no thread for a tool call; running it on the caller's");
            let job = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(job) = job {
                job();
            }
        }
    }

    /// Runs `job` on a worker ([`Workers::execute`]) and waits at most `deadline` for what it returns;
    /// `None` past the deadline (the job finishes on its own and what it returns is dropped).
    pub fn run_within<T: Send + 'static>(
        self: &Arc<Self>,
        deadline: Duration,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let (sender, receiver) = mpsc::sync_channel::<T>(1);
        self.execute(move || {
            // Past the deadline nobody waits any more: the value is dropped.
            let _ = sender.send(job());
        });
        receiver.recv_timeout(deadline).ok()
    }

    /// A worker's loop: queued jobs until none comes for [`IDLE_TIMEOUT`].
    fn serve(&self) {
        let mut state = self.lock();
        loop {
            if let Some(job) = state.queue.pop_front() {
                drop(state);
                job();
                state = self.lock();
                continue;
            }
            state.idle += 1;
            let (next, wait) = self
                .wake
                .wait_timeout(state, IDLE_TIMEOUT)
                .unwrap_or_else(PoisonError::into_inner);
            state = next;
            state.idle -= 1;
            if wait.timed_out() && state.queue.is_empty() {
                return;
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    #[test]
    fn jobs_run_and_idle_workers_are_reused() {
        let workers = Arc::new(Workers::default());
        let (sender, receiver) = mpsc::channel();
        for round in 0..20 {
            let sender = sender.clone();
            workers.execute(move || sender.send((round, thread::current().id())).unwrap());
            let (got, _) = receiver.recv_timeout(Duration::from_secs(5)).unwrap();
            assert_eq!(got, round);
            // Let the worker go back to waiting, so the next job finds it idle.
            while workers.lock().idle == 0 {
                thread::yield_now();
            }
        }
        assert_eq!(
            workers.lock().idle,
            1,
            "one worker served every job in turn"
        );
    }

    #[test]
    fn a_job_knows_it_runs_on_a_call_thread_and_its_caller_does_not() {
        let workers = Arc::new(Workers::default());
        let (sender, receiver) = mpsc::channel();
        workers.execute(move || sender.send(on_a_call_thread()).unwrap());
        assert!(receiver.recv_timeout(Duration::from_secs(5)).unwrap());
        assert!(!on_a_call_thread());
    }

    #[test]
    fn a_slow_job_does_not_hold_up_the_next() {
        let workers = Arc::new(Workers::default());
        let (sender, receiver) = mpsc::channel();
        let slow = sender.clone();
        workers.execute(move || {
            thread::sleep(Duration::from_millis(500));
            let _ = slow.send("slow");
        });
        workers.execute(move || sender.send("fast").unwrap());
        assert_eq!(
            receiver.recv_timeout(Duration::from_secs(5)).unwrap(),
            "fast"
        );
    }
}
