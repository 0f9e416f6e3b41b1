//! Threads kept for reuse: a connection (and its reader) runs on an idle worker when there is
//! one, else on a new thread. Starting a thread per connection cost about a tenth of the
//! service's time per hook call (clone, stack map and unmap); a worker idle for
//! [`IDLE_EXIT`] ends, so an idle service holds few threads.
//!
//! A job is queued only while more workers are idle than jobs are waiting, and a worker leaves
//! only when nothing is waiting (both under one lock), so a queued job always has a worker:
//! no job waits behind a long one (an approval can hold a worker for two minutes).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// How long a worker waits for work before it ends.
pub(crate) const IDLE_EXIT: Duration = Duration::from_secs(30);

#[derive(Default)]
struct State {
    jobs: VecDeque<Job>,
    idle: usize,
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    wake: Condvar,
}

/// A pool of reusable threads that grows as needed.
#[derive(Clone, Default)]
pub(crate) struct Workers {
    inner: Arc<Inner>,
    idle_exit: Option<Duration>,
}

impl Workers {
    #[cfg(test)]
    fn with_idle_exit(d: Duration) -> Workers {
        Workers {
            inner: Arc::default(),
            idle_exit: Some(d),
        }
    }

    /// Runs `job` on an idle worker, or on a new thread. `Err` when no thread could be
    /// started (the job is dropped: its connection closes and the client denies).
    pub(crate) fn spawn(&self, job: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
        let job: Job = Box::new(job);
        {
            let mut st = self
                .inner
                .state
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if st.idle > st.jobs.len() {
                st.jobs.push_back(job);
                self.inner.wake.notify_one();
                return Ok(());
            }
        }
        let inner = Arc::clone(&self.inner);
        let idle_exit = self.idle_exit.unwrap_or(IDLE_EXIT);
        std::thread::Builder::new()
            .name("airlock-worker".into())
            .spawn(move || {
                run(job);
                work(&inner, idle_exit);
            })
            .map(|_| ())
    }

    /// Idle workers right now (for tests).
    #[cfg(test)]
    fn idle(&self) -> usize {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .idle
    }
}

fn run(job: Job) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).is_err() {
        tracing::error!("a service worker's job panicked");
    }
}

fn work(inner: &Inner, idle_exit: Duration) {
    let mut st = inner.state.lock().unwrap_or_else(PoisonError::into_inner);
    st.idle += 1;
    loop {
        if let Some(job) = st.jobs.pop_front() {
            st.idle -= 1;
            drop(st);
            run(job);
            st = inner.state.lock().unwrap_or_else(PoisonError::into_inner);
            st.idle += 1;
            continue;
        }
        let (guard, waited) = inner
            .wake
            .wait_timeout(st, idle_exit)
            .unwrap_or_else(PoisonError::into_inner);
        st = guard;
        if waited.timed_out() && st.jobs.is_empty() {
            st.idle -= 1;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn threads_are_reused_and_a_long_job_never_holds_up_another() {
        let w = Workers::with_idle_exit(Duration::from_secs(5));
        let (tx, rx) = mpsc::channel();
        let tx2 = tx.clone();
        w.spawn(move || tx2.send(std::thread::current().id()).unwrap())
            .unwrap();
        let first = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        // Wait until that worker is idle, then the next job runs on it.
        for _ in 0..200 {
            if w.idle() == 1 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let tx3 = tx.clone();
        w.spawn(move || tx3.send(std::thread::current().id()).unwrap())
            .unwrap();
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), first);

        // A job that blocks (an approval being waited for) does not hold up the next one.
        let (release_tx, release_rx) = mpsc::channel::<()>();
        w.spawn(move || {
            let _ = release_rx.recv_timeout(Duration::from_secs(10));
        })
        .unwrap();
        let tx4 = tx.clone();
        w.spawn(move || tx4.send(std::thread::current().id()).unwrap())
            .unwrap();
        assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok());
        release_tx.send(()).unwrap();
    }

    #[test]
    fn many_jobs_at_once_all_run_and_a_panic_loses_only_its_job() {
        let w = Workers::with_idle_exit(Duration::from_millis(200));
        let (tx, rx) = mpsc::channel();
        w.spawn(|| panic!("boom")).unwrap();
        for i in 0..64 {
            let tx = tx.clone();
            w.spawn(move || {
                std::thread::sleep(Duration::from_millis(2));
                tx.send(i).unwrap();
            })
            .unwrap();
        }
        let mut got: Vec<i32> = (0..64)
            .map(|_| rx.recv_timeout(Duration::from_secs(10)).unwrap())
            .collect();
        got.sort_unstable();
        assert_eq!(got, (0..64).collect::<Vec<_>>());
        // Idle workers end after their idle time.
        for _ in 0..200 {
            if w.idle() == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(w.idle(), 0);
    }
}
