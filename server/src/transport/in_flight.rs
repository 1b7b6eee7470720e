//! The cap on tool calls in flight: at most `max_total` uncached tool calls (or batches) run at once in
//! this process, at most `max_per_client` of them for one client (an IPv4 address, an IPv6 network:
//! [`super::guard::client_network`]), so a crowd of costly calls cannot take every thread and core from
//! the other clients.
//!
//! A call beyond either cap waits for a slot ([`InFlight::acquire_waiting`], at most [`QUEUE_WAIT`]) in a
//! short queue: at most twice the client's share of its calls, and twice the total of all, wait at once;
//! a client with no call running or waiting always gets a place (so clients flooding from many addresses
//! cannot fill the queue against a newcomer). A slot given back goes to the waiting client with the fewest
//! calls running: a light client is served before those holding their whole share. So an agent's burst
//! of parallel calls (four `get_series` at once is common) is served a few milliseconds late rather than
//! refused, while a flood fills its queue and the rest of it is answered 503 with `Retry-After`, each
//! such refusal held [`FLOOD_PACE`] first: a client pushing dozens of connections of calls then sends a
//! few requests a second on each instead of thousands, and the workers stay free for everyone else
//! (refusing at full speed would take the cores the other clients' answers need). A call that waited its
//! whole [`QUEUE_WAIT`] is refused at once. A refusal is counted in `/metrics`
//! (`lac_corpus_busy_requests_total{cap="global"|"client"}`); a waiting call holds no thread.
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
    time::Duration,
};

use tokio::sync::Notify;

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
    /// Woken whenever a slot is given back.
    released: Notify,
}

/// The longest a call waits in the queue for a slot before it is refused.
pub const QUEUE_WAIT: Duration = Duration::from_secs(1);

/// How long the refusal of a call whose client's own queue is full is held before it is answered (see
/// the module doc); the call holds no slot, no thread and no place in the queue meanwhile.
pub const FLOOD_PACE: Duration = Duration::from_millis(200);

#[derive(Debug, Default)]
struct State {
    total: usize,
    by_client: HashMap<Option<IpAddr>, usize>,
    waiting: usize,
    waiting_by_client: HashMap<Option<IpAddr>, usize>,
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
            released: Notify::new(),
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
        let taken = self.try_take(&mut self.lock(), client);
        if let Err(busy) = taken {
            metrics::record_busy(busy.label());
        }
        taken
    }

    /// A slot for one call of `client`, waiting for one up to `wait` when the caps are full and the
    /// queue has room (see the module doc).
    ///
    /// # Errors
    /// [`Busy`] naming the cap that is full when the queue is full too or `wait` passes (counted in
    /// `/metrics`).
    pub async fn acquire_waiting(
        self: &Arc<Self>,
        client: Option<IpAddr>,
        wait: Duration,
    ) -> Result<Slot, Busy> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut queued: Option<Queued<'_>> = None;
        loop {
            // Registered before the state is read, so a slot given back in between still wakes it.
            let released = self.released.notified();
            let mut released = std::pin::pin!(released);
            released.as_mut().enable();
            // A refusal for want of room in the queue, and whether the client's own queue is full.
            let refused: Option<Busy> = 'decide: {
                let mut state = self.lock();
                let busy = match self.lighter_client_waits(&state, client) {
                    // A slot, if free, is left to a waiting client running fewer calls.
                    Some(busy) => busy,
                    None => match self.try_take(&mut state, client) {
                        Ok(slot) => return Ok(slot),
                        Err(busy) => busy,
                    },
                };
                if queued.is_none() {
                    let running = state.by_client.get(&client).copied().unwrap_or(0);
                    let waiting = state.waiting_by_client.get(&client).copied().unwrap_or(0);
                    let newcomer = running == 0 && waiting == 0;
                    let room = newcomer
                        || (state.waiting < 2 * self.max_total
                            && waiting < 2 * self.max_per_client);
                    if !room {
                        break 'decide Some(busy);
                    }
                    state.waiting += 1;
                    *state.waiting_by_client.entry(client).or_insert(0) += 1;
                    queued = Some(Queued {
                        owner: self,
                        client,
                    });
                }
                if tokio::time::Instant::now() >= deadline {
                    drop(state);
                    metrics::record_busy(busy.label());
                    return Err(busy);
                }
                None
            };
            if let Some(busy) = refused {
                metrics::record_busy(busy.label());
                tokio::time::sleep(FLOOD_PACE).await;
                return Err(busy);
            }
            // Woken by a release or at the deadline; then tries again (another waiter may take it).
            let _ = tokio::time::timeout_at(deadline, released).await;
        }
    }

    /// `Some` (the cap to report) when another waiting client runs fewer calls than `client`: a slot
    /// free now is theirs first.
    fn lighter_client_waits(&self, state: &State, client: Option<IpAddr>) -> Option<Busy> {
        let running = |client: &Option<IpAddr>| state.by_client.get(client).copied().unwrap_or(0);
        let mine = running(&client);
        let lighter = state
            .waiting_by_client
            .keys()
            .any(|other| *other != client && running(other) < mine);
        lighter.then_some(if mine >= self.max_per_client {
            Busy::Client
        } else {
            Busy::Global
        })
    }

    /// Takes a slot for `client` if both caps allow it.
    fn try_take(self: &Arc<Self>, state: &mut State, client: Option<IpAddr>) -> Result<Slot, Busy> {
        if state.total >= self.max_total {
            return Err(Busy::Global);
        }
        if state.by_client.get(&client).copied().unwrap_or(0) >= self.max_per_client {
            return Err(Busy::Client);
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
        count_down(&mut state.by_client, self.client);
        metrics::set_in_flight(state.total);
        drop(state);
        self.owner.released.notify_waiters();
    }
}

/// A call counted in the queue until it takes its slot or gives up (dropped with its request too).
struct Queued<'a> {
    owner: &'a InFlight,
    client: Option<IpAddr>,
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        let mut state = self.owner.lock();
        state.waiting = state.waiting.saturating_sub(1);
        count_down(&mut state.waiting_by_client, self.client);
        let free = state.total < self.owner.max_total;
        drop(state);
        // A slot left to this client (the lightest waiting) is offered to the others again.
        if free {
            self.owner.released.notify_waiters();
        }
    }
}

/// One less for `client` in `counts`, its entry removed at zero (so the map holds only present clients).
fn count_down(counts: &mut HashMap<Option<IpAddr>, usize>, client: Option<IpAddr>) {
    if let Some(count) = counts.get_mut(&client) {
        *count = count.saturating_sub(1);
        if *count == 0 {
            counts.remove(&client);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    /// A call of `client` waiting for a slot (at most `wait`) on its own task; whether it got one.
    fn wait_in_background(
        in_flight: &Arc<InFlight>,
        client: Option<IpAddr>,
        wait: Duration,
    ) -> tokio::task::JoinHandle<Result<(), Busy>> {
        let in_flight = in_flight.clone();
        tokio::spawn(async move { in_flight.acquire_waiting(client, wait).await.map(|_| ()) })
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

    #[tokio::test]
    async fn a_burst_past_the_share_waits_for_slots_instead_of_being_refused() {
        let in_flight = Arc::new(InFlight::new(8, 2));
        let agent = client("203.0.113.1");
        let first = in_flight.acquire(agent).unwrap();
        let second = in_flight.acquire(agent).unwrap();
        // Two more calls of the same agent wait; each gets the slot of a call that ends.
        let third = wait_in_background(&in_flight, agent, QUEUE_WAIT);
        let fourth = wait_in_background(&in_flight, agent, QUEUE_WAIT);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(in_flight.lock().waiting, 2);
        drop(first);
        drop(second);
        assert_eq!(third.await.unwrap(), Ok(()));
        assert_eq!(fourth.await.unwrap(), Ok(()));
        assert_eq!((in_flight.len(), in_flight.lock().waiting), (0, 0));
        assert!(in_flight.lock().waiting_by_client.is_empty());
    }

    #[tokio::test]
    async fn a_newcomer_gets_a_place_in_a_full_queue_and_the_next_free_slot_before_heavier_clients()
    {
        // Two clients (two addresses of one flood) hold every slot and fill the queue.
        let in_flight = Arc::new(InFlight::new(4, 2));
        let (first, second) = (client("198.51.100.7"), client("198.51.100.8"));
        let mut running = vec![
            in_flight.acquire(first).unwrap(),
            in_flight.acquire(first).unwrap(),
            in_flight.acquire(second).unwrap(),
            in_flight.acquire(second).unwrap(),
        ];
        let mut queued = Vec::new();
        for flooder in [first, second] {
            for _ in 0..4 {
                queued.push(wait_in_background(
                    &in_flight,
                    flooder,
                    Duration::from_millis(800),
                ));
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(in_flight.lock().waiting, 8, "the queue is full");
        // The flooders' next call finds no place.
        assert!(in_flight.acquire_waiting(first, QUEUE_WAIT).await.is_err());
        // A newcomer still gets one, and the first slot given back is its, not the flooders'.
        let newcomer = tokio::spawn({
            let in_flight = in_flight.clone();
            async move {
                in_flight
                    .acquire_waiting(client("203.0.113.9"), QUEUE_WAIT)
                    .await
                    .map(|slot| {
                        let held = slot.client;
                        drop(slot);
                        held
                    })
            }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(in_flight.lock().waiting, 9);
        running.remove(0);
        assert_eq!(newcomer.await.unwrap(), Ok(client("203.0.113.9")));
        drop(running);
        for call in queued {
            let _ = call.await.unwrap();
        }
        assert_eq!(in_flight.lock().waiting, 0);
    }

    #[tokio::test]
    async fn a_flood_fills_its_queue_and_the_rest_is_refused_paced_without_a_place_in_it() {
        let in_flight = Arc::new(InFlight::new(8, 2));
        let flood = client("198.51.100.7");
        let _running = [
            in_flight.acquire(flood).unwrap(),
            in_flight.acquire(flood).unwrap(),
        ];
        let mut queued = Vec::new();
        for _ in 0..4 {
            queued.push(wait_in_background(
                &in_flight,
                flood,
                Duration::from_millis(600),
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(in_flight.lock().waiting, 4);
        // The queue holds twice the share: the next is refused without a place in it, its refusal held
        // FLOOD_PACE, not the queue's wait.
        let started = std::time::Instant::now();
        assert_eq!(
            in_flight
                .acquire_waiting(flood, QUEUE_WAIT)
                .await
                .unwrap_err(),
            Busy::Client
        );
        assert!((FLOOD_PACE..QUEUE_WAIT).contains(&started.elapsed()));
        assert_eq!(in_flight.lock().waiting, 4);
        // Another client is served at once meanwhile.
        assert!(
            in_flight
                .acquire_waiting(client("203.0.113.1"), QUEUE_WAIT)
                .await
                .is_ok()
        );
        // Nobody releases: the queued calls give up at their deadline, refused by the client cap.
        for call in queued {
            assert_eq!(call.await.unwrap(), Err(Busy::Client));
        }
        assert_eq!(in_flight.lock().waiting, 0);
    }
}
