//! Cooperative cancellation of a tool call past its deadline.
//!
//! A transport stops waiting for a call at its deadline ([`crate::transport::jsonrpc::McpServer::call_deadline`])
//! and raises the call's [`CancelFlag`]; the tool's thread sees it at its next [`checkpoint`] and returns
//! [`ToolError::Cancelled`] at once, so the thread and its CPU come back to the server instead of
//! finishing work nobody waits for. Checkpoints sit in the loops whose length the caller controls (the
//! hits of a search, the claims of a verification, the countries of a computation, the fitting of a
//! default page) and in the per-indicator or per-project loops of the curated tools (a pillar's
//! comparison, regional pulse and gaps, a page of pilots). The flag reaches the tool through the thread
//! that runs it ([`run_with`]), so handlers keep their signatures; code run outside [`run_with`] (tests,
//! the bake) is never cancelled.

use std::{
    cell::RefCell,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
};

use super::ToolError;

/// The flag a transport raises when it stops waiting for a call; cheap to clone and share.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// Asks the call to stop at its next checkpoint.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the call was asked to stop.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

thread_local! {
    static CURRENT: RefCell<Option<CancelFlag>> = const { RefCell::new(None) };
}

/// Runs `work` on this thread with `flag` as the flag its checkpoints read (the previous flag is put back
/// after, also when `work` panics).
pub fn run_with<T>(flag: &CancelFlag, work: impl FnOnce() -> T) -> T {
    struct Restore(Option<CancelFlag>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|current| *current.borrow_mut() = previous);
        }
    }
    let previous = CURRENT.with(|current| current.borrow_mut().replace(flag.clone()));
    let _restore = Restore(previous);
    work()
}

/// `Err(ToolError::Cancelled)` when the call running on this thread was asked to stop; `Ok` otherwise
/// (and always outside [`run_with`]). An atomic load: cheap enough for every item of a loop.
///
/// # Errors
/// [`ToolError::Cancelled`] once the flag is raised.
pub fn checkpoint() -> Result<(), ToolError> {
    let cancelled = CURRENT.with(|current| {
        current
            .borrow()
            .as_ref()
            .is_some_and(CancelFlag::is_cancelled)
    });
    if cancelled {
        Err(ToolError::Cancelled)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::{sync::mpsc, thread, time::Duration};

    use super::*;

    #[test]
    fn a_loop_with_checkpoints_stops_when_its_flag_is_raised() {
        let flag = CancelFlag::default();
        let (started, wait_started) = mpsc::channel();
        let running = flag.clone();
        let worker = thread::spawn(move || {
            run_with(&running, || {
                let mut rounds = 0u64;
                loop {
                    checkpoint()?;
                    rounds += 1;
                    if rounds == 1 {
                        started.send(()).unwrap();
                    }
                    thread::sleep(Duration::from_millis(1));
                }
                #[allow(unreachable_code)]
                Ok::<u64, ToolError>(rounds)
            })
        });
        wait_started.recv().unwrap();
        flag.cancel();
        let outcome = worker.join().unwrap();
        assert!(matches!(outcome, Err(ToolError::Cancelled)), "{outcome:?}");
    }

    #[test]
    fn outside_a_call_and_after_one_nothing_is_cancelled() {
        assert!(checkpoint().is_ok());
        let flag = CancelFlag::default();
        flag.cancel();
        assert!(run_with(&flag, checkpoint).is_err());
        assert!(checkpoint().is_ok(), "the flag does not outlive its call");
    }
}
