//! The cap on tool calls in flight: at most `max_total` uncached tool calls (or batches) run at once in
//! this process, at most `max_per_client` of them for one client (an IPv4 address, an IPv6 network:
//! [`super::guard::client_network`]). Beyond either, the request is answered 503 with `Retry-After`
//! at once and counted in `/metrics` (`lac_corpus_busy_requests_total{cap="global"|"client"}`), so a
//! crowd of costly calls cannot take every thread and core from the other clients.
//!
//! A slot ([`Slot`]) is held by the thread that runs the call, not by the request waiting on it: it is
//! released when the tool returns, so a call past its deadline keeps its slot until its next
//! cancellation checkpoint ([`crate::tools::cancel`]) stops it. Cached answers and the quick methods
//! (`initialize`, `ping`, lists) take no slot. A batch takes one slot for the whole batch: its calls run
//! one after another, and one past its deadline may go on beside the next until its next checkpoint.

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::{Arc, Mutex, PoisonError},
};

use super::metrics;

/// Which cap refused a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// Every slot of the process is taken.
    Global,
    /// This client holds its whole share.
    Client,
}

impl Busy {
    /// The metric label: `global` or `client`.
    pub fn label(self) -> &'static str {
        match self {
            Busy::Global => "global",
            Busy::Client => "client",
        }
    }
}

/// The caps and who holds their slots (see the module doc).
#[derive(Debug)]
pub struct InFlight {
    max_total: usize,
    max_per_client: usize,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    total: usize,
    by_client: HashMap<Option<IpAddr>, usize>,
}

/// One call's slot; released on drop.
#[derive(Debug)]
pub struct Slot {
    owner: Arc<InFlight>,
    client: Option<IpAddr>,
}

impl InFlight {
    /// At most `max_total` calls at once, `max_per_client` of one client (both at least 1; the share no
    /// more than the total).
    pub fn new(max_total: usize, max_per_client: usize) -> InFlight {
        let max_total = max_total.max(1);
        InFlight {
            max_total,
            max_per_client: max_per_client.clamp(1, max_total),
            state: Mutex::new(State::default()),
        }
    }

    /// The defaults for this machine: 4 calls per core in all, one client at most a core's worth (at
    /// least 2).
    pub fn for_this_machine() -> InFlight {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        InFlight::new(4 * cores, cores.max(2))
    }

    /// The cap on calls in flight.
    pub fn max_total(&self) -> usize {
        self.max_total
    }

    /// The cap on one client's calls in flight.
    pub fn max_per_client(&self) -> usize {
        self.max_per_client
    }

    /// Calls in flight now.
    pub fn len(&self) -> usize {
        self.lock().total
    }

    /// Whether no call is in flight.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A slot for one call of `client`.
    ///
    /// # Errors
    /// [`Busy`] naming the cap that is full (counted in `/metrics`).
    pub fn acquire(self: &Arc<Self>, client: Option<IpAddr>) -> Result<Slot, Busy> {
        let mut state = self.lock();
        let busy = if state.total >= self.max_total {
            Some(Busy::Global)
        } else if state.by_client.get(&client).copied().unwrap_or(0) >= self.max_per_client {
            Some(Busy::Client)
        } else {
            None
        };
        if let Some(busy) = busy {
            drop(state);
            metrics::record_busy(busy.label());
            return Err(busy);
        }
        state.total += 1;
        *state.by_client.entry(client).or_insert(0) += 1;
        metrics::set_in_flight(state.total);
        Ok(Slot {
            owner: self.clone(),
            client,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut state = self.owner.lock();
        state.total = state.total.saturating_sub(1);
        if let Some(held) = state.by_client.get_mut(&self.client) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                state.by_client.remove(&self.client);
            }
        }
        metrics::set_in_flight(state.total);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    #[test]
    fn a_client_holds_at_most_its_share_and_all_at_most_the_total() {
        let in_flight = Arc::new(InFlight::new(3, 2));
        let first = in_flight.acquire(client("203.0.113.1")).unwrap();
        let _second = in_flight.acquire(client("203.0.113.1")).unwrap();
        assert_eq!(
            in_flight.acquire(client("203.0.113.1")).unwrap_err(),
            Busy::Client
        );
        let _other = in_flight.acquire(client("198.51.100.7")).unwrap();
        assert_eq!(
            in_flight.acquire(client("198.51.100.8")).unwrap_err(),
            Busy::Global
        );
        // A call that ends gives its slot back, to anyone.
        drop(first);
        assert_eq!(in_flight.len(), 2);
        let _again = in_flight.acquire(client("198.51.100.8")).unwrap();
        assert_eq!(in_flight.len(), 3);
    }

    #[test]
    fn the_share_never_exceeds_the_total() {
        let in_flight = InFlight::new(2, 10);
        assert_eq!((in_flight.max_total(), in_flight.max_per_client()), (2, 2));
        assert!(in_flight.is_empty());
    }
}
