//! The Events this program posts: one per Cluster condition transition
//! (after the status write lands, so a refused write posts nothing), and
//! MachineLost, RebootTurnGranted and RebootTurnReclaimed for the actions it
//! takes on Machines. Posting runs on its own task, so a sweep never waits
//! on an Event; [`Events::flush`] waits (bounded) for the queue to drain at
//! shutdown, before the Lease is released. Machines and Clusters are
//! cluster-scoped, so their Events are in the default namespace.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ObjectReference;
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use liken_kube::Election;
use tokio::sync::mpsc;

pub const MACHINE_LOST: &str = "MachineLost";
pub const TURN_GRANTED: &str = "RebootTurnGranted";
pub const TURN_RECLAIMED: &str = "RebootTurnReclaimed";

struct Posting {
    reference: ObjectReference,
    warning: bool,
    reason: String,
    note: String,
}

/// The queue of Events to post.
pub struct Events {
    tx: Option<mpsc::UnboundedSender<Posting>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

/// The reference of a liken.sh object, for an Event about it.
pub fn reference(kind: &str, name: &str, uid: &str) -> ObjectReference {
    ObjectReference {
        api_version: Some("liken.sh/v1alpha1".into()),
        kind: Some(kind.into()),
        name: Some(name.into()),
        uid: (!uid.is_empty()).then(|| uid.into()),
        ..Default::default()
    }
}

impl Events {
    pub fn start(client: kube::Client, identity: &str, election: Arc<Election>) -> Self {
        let recorder = Recorder::new(
            client,
            Reporter {
                controller: "liken-cluster-operator".into(),
                instance: Some(identity.into()),
            },
        );
        let (tx, mut rx) = mpsc::unbounded_channel::<Posting>();
        let task = tokio::spawn(async move {
            while let Some(p) = rx.recv().await {
                if !election.may_write() {
                    continue;
                }
                let event = Event {
                    type_: if p.warning {
                        EventType::Warning
                    } else {
                        EventType::Normal
                    },
                    reason: p.reason.clone(),
                    note: Some(p.note.chars().take(1000).collect()),
                    action: p.reason.clone(),
                    secondary: None,
                };
                if let Err(e) = recorder.publish(&event, &p.reference).await {
                    println!("event={} error=\"{e}\"", p.reason);
                }
            }
        });
        Events {
            tx: Some(tx),
            task: Some(task),
        }
    }

    pub fn post(&self, reference: ObjectReference, warning: bool, reason: &str, note: String) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(Posting {
                reference,
                warning,
                reason: reason.into(),
                note,
            });
        }
    }

    /// Closes the queue and waits up to `bound` for it to drain. Answers
    /// whether it drained.
    pub async fn flush(&mut self, bound: Duration) -> bool {
        self.tx = None;
        match self.task.take() {
            Some(task) => tokio::time::timeout(bound, task).await.is_ok(),
            None => true,
        }
    }
}
