//! The release channel poll: channel.yaml at spec.releases.source, every
//! `interval` (6 h), and at once on a new source or a new value of the
//! liken.sh/check-releases annotation. [`Poller::observe`] decides and
//! returns at once; the fetch runs on a blocking thread with a stall bound
//! and a total bound, and the document is read up to 1 MiB (liken-channel's
//! limits). A failure keeps the last answer; a new source drops it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::Timestamp;
use liken_api::Version;

pub const CHECK_RELEASES: &str = "liken.sh/check-releases";

#[derive(Debug, Default)]
struct State {
    source: Option<String>,
    check: Option<String>,
    polled: Option<Timestamp>,
    in_flight: bool,
    available: Option<Version>,
}

/// What the poll should do on this look, decided from the held state.
#[derive(Debug, PartialEq, Eq)]
pub enum Due {
    Nothing,
    Poll(String),
}

#[derive(Clone, Debug)]
pub struct Poller {
    state: Arc<Mutex<State>>,
    interval: Duration,
    bound: Duration,
    wake: Option<Arc<tokio::sync::Notify>>,
}

impl Poller {
    pub fn new(interval: Duration, bound: Duration) -> Self {
        Poller {
            state: Arc::default(),
            interval,
            bound,
            wake: None,
        }
    }

    /// Wakes `wake` when a poll brings a new answer, so the next sweep
    /// publishes it at once rather than at the periodic sweep.
    pub fn waking(mut self, wake: Arc<tokio::sync::Notify>) -> Self {
        self.wake = Some(wake);
        self
    }

    fn decide(&self, source: Option<&str>, check: Option<&str>, now: Timestamp) -> Due {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some(source) = source else {
            *s = State::default();
            return Due::Nothing;
        };
        if s.source.as_deref() != Some(source) {
            s.source = Some(source.to_owned());
            s.check = check.map(str::to_owned);
            s.available = None;
            s.polled = None;
        } else if s.check.as_deref() != check {
            s.check = check.map(str::to_owned);
            s.polled = None;
        }
        let fresh = s.polled.is_some_and(|p| {
            Duration::try_from(now.duration_since(p)).unwrap_or(Duration::ZERO) < self.interval
        });
        if s.in_flight || fresh {
            return Due::Nothing;
        }
        s.polled = Some(now);
        s.in_flight = true;
        Due::Poll(source.to_owned())
    }

    /// Starts a poll when one is due; never blocks.
    pub fn observe(&self, source: Option<&str>, check: Option<&str>, now: Timestamp) {
        let Due::Poll(source) = self.decide(source, check, now) else {
            return;
        };
        let me = self.clone();
        tokio::spawn(async move {
            let url = source.clone();
            let fetch = tokio::task::spawn_blocking(move || {
                let options = liken_channel::http::ClientOptions {
                    stall_timeout: Duration::from_secs(30),
                    ca_file: None,
                };
                let client =
                    liken_channel::http::Client::new(&options).map_err(|e| e.to_string())?;
                liken_channel::fetch::resolve_latest(&client, &url).map_err(|e| e.to_string())
            });
            let answer = match tokio::time::timeout(me.bound, fetch).await {
                Ok(Ok(answer)) => answer,
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err(format!("no answer within {}s", me.bound.as_secs())),
            };
            let mut s = me.state.lock().unwrap_or_else(|e| e.into_inner());
            s.in_flight = false;
            if s.source.as_deref() != Some(source.as_str()) {
                return;
            }
            match answer {
                Ok(v) => {
                    let changed = s.available.as_ref() != Some(&v);
                    s.available = Some(v);
                    if changed && let Some(wake) = &me.wake {
                        wake.notify_one();
                    }
                }
                Err(e) => {
                    println!("channel={source} poll=failed error=\"{e}\" (keeping the last answer)")
                }
            }
        });
    }

    /// The channel's last answer.
    pub fn available(&self) -> Option<Version> {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .available
            .clone()
    }
}
