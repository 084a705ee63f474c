//! The bounded pool every check and tool call runs on, off the async workers: at most `workers` jobs run at once on
//! blocking threads, `queue` more wait, and one past that is refused at once (a 503), never queued without limit.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Semaphore;

/// Seconds a refused caller is told to wait (`Retry-After`).
pub const RETRY_AFTER_SECS: u64 = 1;

/// Why a job gave no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobError {
    /// Refused before it started: the pool is full.
    Overloaded,
    /// The job panicked (a bug); the panic stays on its thread.
    Panicked,
}

/// Requests up to this many bytes are light: an ordinary check. Larger ones are heavy.
pub const LIGHT_BYTES: usize = 8 * 1024;

/// A fixed number of permits to run, and a count of jobs admitted (running or waiting). Heavy jobs (large
/// requests) first take one of `workers - 1` heavy permits (at least one), so one worker is always left to light
/// jobs: a flood of large requests slows ordinary checks by at most one job's time, never by a queue of them.
#[derive(Debug)]
pub struct WorkPool {
    running: Arc<Semaphore>,
    heavy: Arc<Semaphore>,
    admitted: Arc<AtomicUsize>,
    capacity: usize,
}

/// Counts a job as admitted until dropped, wherever it is dropped (a caller that goes away, the job's own thread).
struct Admission(Arc<AtomicUsize>);

impl Drop for Admission {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl WorkPool {
    /// `workers` jobs at once (at least one), `queue` more waiting.
    pub fn new(workers: usize, queue: usize) -> WorkPool {
        let workers = workers.max(1);
        WorkPool {
            running: Arc::new(Semaphore::new(workers)),
            heavy: Arc::new(Semaphore::new((workers - 1).max(1))),
            admitted: Arc::new(AtomicUsize::new(0)),
            capacity: workers.saturating_add(queue),
        }
    }

    /// Jobs running or waiting now.
    pub fn admitted(&self) -> usize {
        self.admitted.load(Ordering::Acquire)
    }

    /// Runs `job` on a blocking thread once a worker is free; [`JobError::Overloaded`] at once when `workers + queue`
    /// jobs are already admitted. The permit and the admission go with the job: a caller that stops waiting does not
    /// free its worker before the job ends, so no more than `workers` jobs ever run.
    pub async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Result<T, JobError> {
        self.run_sized(0, job).await
    }

    /// [`run`](Self::run) for a job on a request of `bytes` bytes: heavy past [`LIGHT_BYTES`].
    pub async fn run_sized<T: Send + 'static>(
        &self,
        bytes: usize,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, JobError> {
        let prior = self.admitted.fetch_add(1, Ordering::AcqRel);
        let admission = Admission(Arc::clone(&self.admitted));
        if prior >= self.capacity {
            return Err(JobError::Overloaded);
        }
        let heavy = match bytes > LIGHT_BYTES {
            true => Some(Arc::clone(&self.heavy).acquire_owned().await.map_err(|_| JobError::Overloaded)?),
            false => None,
        };
        let permit = Arc::clone(&self.running).acquire_owned().await.map_err(|_| JobError::Overloaded)?;
        tokio::task::spawn_blocking(move || {
            let _held = (permit, heavy, admission);
            job()
        })
        .await
        .map_err(|_| JobError::Panicked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_full_pool_refuses_at_once_and_frees_its_places() {
        let pool = Arc::new(WorkPool::new(1, 1));
        let (release, wait) = mpsc::channel::<()>();
        let wait = Arc::new(std::sync::Mutex::new(wait));
        let blocker = |w: Arc<std::sync::Mutex<mpsc::Receiver<()>>>| {
            move || {
                let _ = w.lock().map(|r| r.recv_timeout(Duration::from_secs(10)));
            }
        };
        let running = tokio::spawn({
            let (pool, w) = (Arc::clone(&pool), Arc::clone(&wait));
            async move { pool.run(blocker(w)).await }
        });
        let queued = tokio::spawn({
            let (pool, w) = (Arc::clone(&pool), Arc::clone(&wait));
            async move { pool.run(blocker(w)).await }
        });
        while pool.admitted() < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(pool.run(|| 1).await, Err(JobError::Overloaded));
        release.send(()).expect("release");
        release.send(()).expect("release");
        assert_eq!(running.await.expect("join"), Ok(()));
        assert_eq!(queued.await.expect("join"), Ok(()));
        assert_eq!(pool.admitted(), 0);
        assert_eq!(pool.run(|| 2).await, Ok(2));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn heavy_jobs_leave_a_worker_to_light_ones() {
        let pool = Arc::new(WorkPool::new(2, 8));
        let (release, wait) = mpsc::channel::<()>();
        let wait = Arc::new(std::sync::Mutex::new(wait));
        // Two heavy jobs: one runs, the other waits for the one heavy place.
        let heavy: Vec<_> = (0..2)
            .map(|_| {
                let (pool, w) = (Arc::clone(&pool), Arc::clone(&wait));
                tokio::spawn(async move {
                    pool.run_sized(LIGHT_BYTES + 1, move || {
                        let _ = w.lock().map(|r| r.recv_timeout(Duration::from_secs(10)));
                    })
                    .await
                })
            })
            .collect();
        while pool.admitted() < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // A light job still runs at once on the worker the heavy ones cannot take.
        let light = tokio::time::timeout(Duration::from_secs(5), pool.run_sized(100, || 7)).await;
        assert_eq!(light.expect("a light job is not stuck behind heavy ones"), Ok(7));
        release.send(()).expect("release");
        release.send(()).expect("release");
        for h in heavy {
            assert_eq!(h.await.expect("join"), Ok(()));
        }
    }
}
