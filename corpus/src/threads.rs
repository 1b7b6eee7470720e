//! Two pieces of work side by side, for the readers' start-up (each piece independent of the other).

/// Runs `beside` on a second thread while `here` runs on this one, and returns both results
/// (`(beside's, here's)`). When no thread can be started, both run on this one, `here` first. A panic in
/// `beside` goes on in this thread once `here` is done, as it would have without a second thread.
pub fn join<Beside, Here, B, H>(beside: Beside, here: Here) -> (B, H)
where
    Beside: FnOnce() -> B + Send,
    Here: FnOnce() -> H,
    B: Send,
{
    // Held where both threads can take it: here, when the second thread cannot be started.
    let slot = std::sync::Mutex::new(Some(beside));
    let take = || {
        slot.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
            .expect("taken once")
    };
    std::thread::scope(|scope| {
        let started = std::thread::Builder::new()
            .spawn_scoped(scope, || take()())
            .ok();
        let here = here();
        let beside = match started {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => take()(),
        };
        (beside, here)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_results_come_back_in_order() {
        let words = ["a", "b"];
        let (length, joined) = super::join(|| words.len(), || words.concat());
        assert_eq!((length, joined.as_str()), (2, "ab"));
    }
}
