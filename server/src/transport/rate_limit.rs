//! The in-memory rate limiter: a fixed window per client key, bounded in size, O(1) per charge.
//!
//! Each request charges one unit per contained JSON-RPC message. A key's window opens at its first
//! charge and lasts [`RateLimiter::window`]; when a charge takes the count above the limit the request is
//! refused with the time left in the window (units already charged stay consumed). Keys live in a
//! least-recently-charged list (`lru::LruCache`): each charge drops the expired windows at its cold end
//! (each key is dropped once, so this is O(1) amortised) and, when the list holds `max_keys` keys, a new
//! key evicts the least recently charged one in O(1). No charge ever scans the map, so 50,000 tracked
//! clients cost a new one what one client costs. The limiter never fails a request because of itself: a
//! poisoned lock is recovered.

use std::{
    hash::Hash,
    sync::{Mutex, PoisonError},
    time::{Duration, Instant},
};

use lru::LruCache;

/// The outcome of a charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charge {
    /// Within the limit.
    Allowed,
    /// Over the limit; retry after this long.
    Limited {
        /// Time until the key's window closes.
        retry_after: Duration,
    },
}

/// A bounded fixed-window limiter over keys of type `K` (the HTTP transport keys clients by IP address,
/// or an IPv6 client's network, so that charging allocates nothing).
#[derive(Debug)]
pub struct RateLimiter<K: Hash + Eq = String> {
    limit: u32,
    window: Duration,
    max_keys: usize,
    windows: Mutex<LruCache<K, Window>>,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    count: u32,
}

impl<K: Hash + Eq + Clone> RateLimiter<K> {
    /// `limit` units per `window` per key, at most `max_keys` keys (the seed's: 60 per minute, 50,000 keys).
    pub fn new(limit: u32, window: Duration, max_keys: usize) -> RateLimiter<K> {
        RateLimiter {
            limit,
            window,
            max_keys: max_keys.max(1),
            windows: Mutex::new(LruCache::unbounded()),
        }
    }

    /// The window length.
    pub fn window(&self) -> Duration {
        self.window
    }

    /// Number of keys tracked.
    pub fn len(&self) -> usize {
        self.windows
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether no key is tracked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Charges `units` to `key` at time `now`.
    pub fn charge(&self, key: K, units: u32, now: Instant) -> Charge {
        let mut windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        // The cold end holds the keys charged longest ago; those whose window has closed go.
        while windows
            .peek_lru()
            .is_some_and(|(_, window)| now.saturating_duration_since(window.started) >= self.window)
        {
            windows.pop_lru();
        }
        // The key charged last (one client's run of calls) is found without hashing it, and stays at the
        // front; any other is looked up and moved there.
        let is_latest = windows.peek_mru().is_some_and(|(latest, _)| *latest == key);
        let found = if is_latest {
            windows.iter_mut().next().map(|(_, window)| window)
        } else {
            windows.get_mut(&key)
        };
        let window = match found {
            Some(window) => window,
            None => {
                if windows.len() >= self.max_keys {
                    windows.pop_lru();
                }
                windows.push(
                    key.clone(),
                    Window {
                        started: now,
                        count: 0,
                    },
                );
                windows
                    .get_mut(&key)
                    .expect("the key was just pushed into a list with room for it")
            }
        };
        if now.saturating_duration_since(window.started) >= self.window {
            *window = Window {
                started: now,
                count: 0,
            };
        }
        window.count = window.count.saturating_add(units);
        if window.count > self.limit {
            let retry_after = self
                .window
                .saturating_sub(now.saturating_duration_since(window.started));
            Charge::Limited {
                retry_after: retry_after.max(Duration::from_secs(1)),
            }
        } else {
            Charge::Allowed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<'a>(
        charges: &[(&'a str, u32, u64)],
        limiter: &RateLimiter<&'a str>,
        expected: &[bool],
    ) {
        let base = Instant::now();
        let outcomes: Vec<bool> = charges
            .iter()
            .map(|(key, units, at_seconds)| {
                limiter.charge(*key, *units, base + Duration::from_secs(*at_seconds))
                    == Charge::Allowed
            })
            .collect();
        assert_eq!(outcomes, expected);
    }

    #[test]
    fn the_sixty_first_message_in_a_minute_is_limited() {
        let limiter = RateLimiter::new(60, Duration::from_secs(60), 50_000);
        let mut charges = vec![("1.1.1.1", 1, 0); 60];
        charges.push(("1.1.1.1", 1, 59));
        charges.push(("2.2.2.2", 1, 59));
        charges.push(("1.1.1.1", 1, 60));
        let mut expected = vec![true; 60];
        expected.extend([false, true, true]);
        check(&charges, &limiter, &expected);
    }

    #[test]
    fn a_batch_charges_one_unit_per_message() {
        let limiter = RateLimiter::new(60, Duration::from_secs(60), 50_000);
        check(
            &[("ip", 20, 0), ("ip", 20, 1), ("ip", 20, 2), ("ip", 1, 3)],
            &limiter,
            &[true, true, true, false],
        );
    }

    #[test]
    fn retry_after_is_the_time_left_in_the_window() {
        let limiter = RateLimiter::new(1, Duration::from_secs(60), 10);
        let base = Instant::now();
        limiter.charge("ip", 1, base);
        assert_eq!(
            limiter.charge("ip", 1, base + Duration::from_secs(15)),
            Charge::Limited {
                retry_after: Duration::from_secs(45)
            }
        );
    }

    #[test]
    fn the_map_stays_bounded_by_evicting_the_oldest() {
        let limiter = RateLimiter::new(60, Duration::from_secs(60), 3);
        let base = Instant::now();
        for (offset, key) in ["a", "b", "c", "d"].iter().enumerate() {
            limiter.charge(*key, 1, base + Duration::from_millis(offset as u64));
        }
        assert_eq!(limiter.len(), 3);
        // `a` (the oldest) was evicted; `b` keeps its count: 1 + 59, then one more is over 60.
        limiter.charge("b", 59, base + Duration::from_millis(10));
        assert!(matches!(
            limiter.charge("b", 1, base + Duration::from_millis(11)),
            Charge::Limited { .. }
        ));
    }

    #[test]
    fn a_full_list_evicts_the_least_recently_charged_key() {
        let limiter = RateLimiter::new(2, Duration::from_secs(60), 3);
        let base = Instant::now();
        for (offset, key) in ["a", "b", "c"].iter().enumerate() {
            limiter.charge(*key, 1, base + Duration::from_millis(offset as u64));
        }
        // `a` is charged again, so `b` is now the one charged longest ago: `d` evicts it, and `a`
        // keeps its count (a third unit is over the limit of 2).
        limiter.charge("a", 1, base + Duration::from_millis(5));
        limiter.charge("d", 1, base + Duration::from_millis(6));
        assert_eq!(limiter.len(), 3);
        assert!(matches!(
            limiter.charge("a", 1, base + Duration::from_millis(7)),
            Charge::Limited { .. }
        ));
        assert_eq!(
            limiter.charge("b", 2, base + Duration::from_millis(8)),
            Charge::Allowed,
            "b starts a new window"
        );
    }

    #[test]
    fn expired_windows_are_swept() {
        let limiter = RateLimiter::new(60, Duration::from_secs(60), 100);
        let base = Instant::now();
        limiter.charge("a", 1, base);
        limiter.charge("b", 1, base + Duration::from_secs(90));
        assert_eq!(limiter.len(), 1);
    }
}
