//! [`Repoll`]: a future that polls its inner future again at once, on the same thread, when the inner
//! future wakes itself while being polled, instead of handing that wake to the runtime.
//!
//! Why: hyper's HTTP/1 connection wakes its own task while serving a request with a body (the body
//! channel wakes the connection's reader when the handler takes the body's bytes). Handed to tokio, such
//! a wake reschedules the connection's task behind the others and signals an idle worker to come and
//! steal it (a `futex` or `eventfd` write, a context switch), for a second poll that finds nothing new
//! to read. `Repoll` keeps that second poll on the thread that is already polling, and forwards every
//! other wake (the socket, a timer, a signal from another task) to the runtime unchanged.
//!
//! At most [`REPOLLS`] polls are made in a row; past them the wake goes to the runtime, so a future that
//! wakes itself to yield (hyper does after 16 pipelined requests) still yields.

use std::{
    future::Future,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    task::{Context, Poll, Wake, Waker},
};

use atomic_waker::AtomicWaker;

/// How many times in a row [`Repoll`] polls its inner future before it hands a self-wake to the runtime.
pub const REPOLLS: usize = 4;

/// See the module doc.
pub struct Repoll<F> {
    inner: Pin<Box<F>>,
    signal: Arc<Signal>,
    /// The waker the inner future sees: [`Signal`]'s, made once.
    waker: Waker,
}

/// What the inner future's waker does: while it is being polled, note the wake; otherwise wake the task.
#[derive(Default)]
struct Signal {
    /// The inner future is being polled.
    polling: AtomicBool,
    /// It was woken since its poll began.
    woken: AtomicBool,
    /// The task that polls the [`Repoll`].
    task: AtomicWaker,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Noted first, then the poll's state read: either the poller sees `woken` after it stops
        // polling, or this sees that it stopped and wakes the task (or both: one spare poll).
        self.woken.store(true, Ordering::SeqCst);
        if !self.polling.load(Ordering::SeqCst) {
            self.task.wake();
        }
    }
}

impl<F: Future> Repoll<F> {
    /// `inner`, polled again at once when it wakes itself.
    pub fn new(inner: F) -> Repoll<F> {
        let signal = Arc::new(Signal::default());
        Repoll {
            inner: Box::pin(inner),
            waker: Waker::from(signal.clone()),
            signal,
        }
    }
}

impl<F: Future> Future for Repoll<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        this.signal.task.register(context.waker());
        let mut inner_context = Context::from_waker(&this.waker);
        for _ in 0..REPOLLS {
            this.signal.woken.store(false, Ordering::SeqCst);
            this.signal.polling.store(true, Ordering::SeqCst);
            let poll = this.inner.as_mut().poll(&mut inner_context);
            this.signal.polling.store(false, Ordering::SeqCst);
            if poll.is_ready() {
                return poll;
            }
            if !this.signal.woken.load(Ordering::SeqCst) {
                return Poll::Pending;
            }
        }
        // Still waking itself: let the runtime run the others first.
        context.waker().wake_by_ref();
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// Counts the wakes the runtime would see.
    #[derive(Default)]
    struct CountingWaker(AtomicUsize);

    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Wakes itself on each of its first `self_wakes` polls, then is ready.
    struct SelfWaking {
        polls: usize,
        self_wakes: usize,
    }

    impl Future for SelfWaking {
        type Output = usize;

        fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<usize> {
            self.polls += 1;
            if self.polls <= self.self_wakes {
                context.waker().wake_by_ref();
                return Poll::Pending;
            }
            Poll::Ready(self.polls)
        }
    }

    fn poll_once<F: Future>(future: &mut Repoll<F>, task: &Arc<CountingWaker>) -> Poll<F::Output> {
        let waker = Waker::from(task.clone());
        Pin::new(future).poll(&mut Context::from_waker(&waker))
    }

    #[test]
    fn a_future_that_wakes_itself_is_polled_again_at_once_without_waking_the_task() {
        let task = Arc::new(CountingWaker::default());
        let mut future = Repoll::new(SelfWaking {
            polls: 0,
            self_wakes: 2,
        });
        assert_eq!(poll_once(&mut future, &task), Poll::Ready(3));
        assert_eq!(task.0.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn past_the_repolls_a_self_wake_goes_to_the_task_so_others_run_first() {
        let task = Arc::new(CountingWaker::default());
        let mut future = Repoll::new(SelfWaking {
            polls: 0,
            self_wakes: REPOLLS + 1,
        });
        assert_eq!(poll_once(&mut future, &task), Poll::Pending);
        assert_eq!(task.0.load(Ordering::SeqCst), 1, "the task is woken once");
        assert_eq!(poll_once(&mut future, &task), Poll::Ready(REPOLLS + 2));
    }

    #[test]
    fn a_wake_from_outside_a_poll_wakes_the_task() {
        let task = Arc::new(CountingWaker::default());
        let (sender, receiver) = std::sync::mpsc::channel::<Waker>();
        let mut future = Repoll::new(std::future::poll_fn(move |context| {
            let _ = sender.send(context.waker().clone());
            Poll::<()>::Pending
        }));
        assert_eq!(poll_once(&mut future, &task), Poll::Pending);
        assert_eq!(task.0.load(Ordering::SeqCst), 0);
        let inner = receiver.recv().unwrap();
        std::thread::spawn(move || inner.wake()).join().unwrap();
        assert_eq!(task.0.load(Ordering::SeqCst), 1);
    }
}
