//! When this program saw each heartbeat Lease's renewTime change, on its own
//! clock. renewTime comes from the machine's clock and is compared here only
//! for equality: a different value (later or earlier, since a machine's
//! clock can step back) is a renewal, stamped with this program's `now`.
//! A Lease without renewTime makes no liveness claim and is not recorded.
//! Pure bookkeeping: the caller passes `now`.

use std::collections::BTreeMap;

use jiff::Timestamp;

#[derive(Clone, Debug, Default)]
pub struct Sightings {
    seen: BTreeMap<String, (Timestamp, Timestamp)>,
}

impl Sightings {
    /// Records that `name` held `renewed` at `now`.
    pub fn observe(&mut self, name: &str, renewed: Option<Timestamp>, now: Timestamp) {
        let Some(renewed) = renewed else { return };
        match self.seen.get(name) {
            Some((held, _)) if *held == renewed => {}
            _ => {
                self.seen.insert(name.to_owned(), (renewed, now));
            }
        }
    }

    /// A deleted Lease: a Lease created again later counts from its arrival.
    pub fn forget(&mut self, name: &str) {
        self.seen.remove(name);
    }

    /// Lease name -> when its renewTime last changed, on this clock.
    pub fn heard(&self) -> BTreeMap<String, Timestamp> {
        self.seen
            .iter()
            .map(|(n, (_, at))| (n.clone(), *at))
            .collect()
    }
}
