//! The watches a leading copy opens: Clusters, Machines, and the Leases in
//! liken-system. Sweeps read the Clusters and Machines from the watches'
//! caches, never a list per sweep. The DaemonSets in the namespace are
//! watched too (metadata only), for the feature janitor. Each Lease event goes through
//! [`Sightings`] at the moment it arrives, stamped with this program's
//! clock. Every Cluster or Machine change, and a Lease that appears or goes,
//! wakes the loop through one Notify permit, so a burst wakes one sweep; a
//! mere renewal wakes nothing (the periodic sweep judges ageing). Opened only
//! after the lead is taken, so a copy that never led holds no fleet copy.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use jiff::Timestamp;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{Api, ApiResource, DynamicObject};
use kube::core::PartialObjectMeta;
use kube::runtime::WatchStreamExt;
use kube::runtime::reflector::{self, Store};
use kube::runtime::watcher::{self, Event};
use liken_documents::{Cluster, Machine};
use tokio::sync::Notify;

use crate::sightings::Sightings;

/// The fleet as the watches hold it.
#[derive(Clone)]
pub struct Fleet {
    pub clusters: Store<Cluster>,
    pub machines: Store<DynamicObject>,
    pub sightings: Arc<Mutex<Sightings>>,
    /// When the Lease watch opened, on this program's clock.
    pub watching_since: Timestamp,
    pub restarts: Arc<AtomicU64>,
    /// The DaemonSets in the namespace, metadata only, for the janitor.
    pub daemonsets: Store<PartialObjectMeta<DaemonSet>>,
}

/// The ApiResource of Machines, for the dynamic (lenient) reads.
pub fn machine_resource() -> ApiResource {
    ApiResource::erase::<Machine>(&())
}

/// Opens the three watches and waits until the caches hold a first list.
pub async fn open(client: kube::Client, namespace: &str, wake: Arc<Notify>) -> Fleet {
    let restarts = Arc::new(AtomicU64::new(0));
    let (clusters, writer) = reflector::store::<Cluster>();
    let api: Api<Cluster> = Api::all(client.clone());
    let stream = watcher::watcher(api, watcher::Config::default())
        .default_backoff()
        .reflect(writer);
    spawn_waking(stream, wake.clone(), restarts.clone(), "clusters");

    let ar = machine_resource();
    let writer = reflector::store::Writer::<DynamicObject>::new(ar.clone());
    let machines = writer.as_reader();
    let api: Api<DynamicObject> = Api::all_with(client.clone(), &ar);
    let stream = watcher::watcher(api, watcher::Config::default())
        .default_backoff()
        .reflect(writer);
    spawn_waking(stream, wake.clone(), restarts.clone(), "machines");

    let (daemonsets, writer) = reflector::store::<PartialObjectMeta<DaemonSet>>();
    let api: Api<PartialObjectMeta<DaemonSet>> = Api::namespaced(client.clone(), namespace);
    let stream = watcher::watcher(api, watcher::Config::default())
        .default_backoff()
        .reflect(writer);
    spawn_waking(stream, wake.clone(), restarts.clone(), "daemonsets");

    let sightings = Arc::new(Mutex::new(Sightings::default()));
    let watching_since = Timestamp::now();
    let api: Api<Lease> = Api::namespaced(client, namespace);
    let record = sightings.clone();
    let lease_restarts = restarts.clone();
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let mut ready = Some(ready_tx);
        let mut stream = watcher::watcher(api, watcher::Config::default())
            .default_backoff()
            .boxed();
        while let Some(event) = stream.next().await {
            let now = Timestamp::now();
            match event {
                Ok(Event::Apply(l) | Event::InitApply(l)) => {
                    let name = l.metadata.name.clone().unwrap_or_default();
                    let mut s = record.lock().unwrap_or_else(|e| e.into_inner());
                    let new = !s.heard().contains_key(&name);
                    s.observe(&name, liken_kube::lease::renewal(&l), now);
                    if new {
                        wake.notify_one();
                    }
                }
                Ok(Event::Delete(l)) => {
                    let name = l.metadata.name.clone().unwrap_or_default();
                    record
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .forget(&name);
                    wake.notify_one();
                }
                Ok(Event::Init) => {}
                Ok(Event::InitDone) => {
                    if let Some(tx) = ready.take() {
                        let _ = tx.send(());
                    }
                }
                Err(e) => {
                    lease_restarts.fetch_add(1, Ordering::Relaxed);
                    println!("watch=leases error=\"{e}\"");
                }
            }
        }
    });
    let _ = clusters.wait_until_ready().await;
    let _ = machines.wait_until_ready().await;
    let _ = daemonsets.wait_until_ready().await;
    let _ = ready_rx.await;
    Fleet {
        clusters,
        machines,
        sightings,
        watching_since,
        restarts,
        daemonsets,
    }
}

fn spawn_waking<S, K>(stream: S, wake: Arc<Notify>, restarts: Arc<AtomicU64>, what: &'static str)
where
    S: futures::Stream<Item = Result<Event<K>, watcher::Error>> + Send + 'static,
    K: Send + 'static,
{
    tokio::spawn(async move {
        let mut stream = std::pin::pin!(stream);
        while let Some(event) = stream.next().await {
            match event {
                Ok(_) => wake.notify_one(),
                Err(e) => {
                    restarts.fetch_add(1, Ordering::Relaxed);
                    println!("watch={what} error=\"{e}\"");
                }
            }
        }
    });
}
