//! The Kubernetes side of liken, shared by the operators: how a client is
//! made (in a pod or from a kubeconfig), writes guarded by a resourceVersion
//! so a conflict is seen as one, heartbeat Lease reading, and the Lease-based
//! leader election the cluster operator runs under.
//!
//! Nothing here decides anything about machines or clusters; it carries
//! requests and classifies their answers. The election's own judgement (may
//! this copy take the Lease now?) is a pure function, [`election::judge`],
//! tested without a server.

pub mod client;
pub mod election;
pub mod lease;
pub mod write;

pub use client::{ClientError, connect};
pub use election::{Election, ElectionSettings};
pub use write::{WriteError, merge_status_guarded};
