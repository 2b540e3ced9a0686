//! The storage decision: which disks a boot claims, which it keeps, which it
//! refuses, and what backs each of the nine roles.
//!
//! Input: the Machine's spec.storage and what was observed of each disk (its
//! names, size, logical sector size and partition table as read). Output: a
//! [`Plan`]. This module is pure: it reads no disk, writes nothing, and the
//! same input always gives the same plan.
//!
//! The rules, from the reference machine:
//! - A role is found by its GPT partition name (`liken:<role>`) on whatever
//!   disk holds it, wherever the kernel enumerated that disk this boot; the
//!   spec's device path is read only to claim a blank disk.
//! - Only a blank disk is claimed. A disk liken claimed before is kept as it
//!   is (never repartitioned), and a disk with data liken did not write is
//!   never touched: a role that would need either is refused, with the
//!   correction in the reason.
//! - A claim lays the disk's roles out in the standard order
//!   ([`StorageRole::ALL`]), each starting on a 1 MiB boundary, each exactly
//!   its declared size (which must be a whole number of sectors); the one
//!   role per disk without a size takes what is left, in whole MiB. Sizes
//!   that do not fit the disk refuse the disk.
//! - A declared size below what the disk holds is a refusal (the caller
//!   quarantines the staged spec), never a repartition; so is any change to
//!   a fixed-size role (biosBoot, systemA, systemB). A larger size keeps the
//!   partition as it is: growing in place is not decided here.
//! - Every role the spec does not declare is backed by memory (the RAM root).
//!
//! A plan with any refusal is not [`Plan::satisfied`], and the executor must
//! then act on none of it: nothing is claimed on a boot whose spec is refused.

use std::collections::BTreeMap;

use liken_documents::machine::{Storage, StorageRole};
use liken_documents::quantity;

/// Partitions start on this boundary, and a rest-of-disk role is a whole
/// number of it.
pub const ALIGN: u64 = 1 << 20;

/// The bytes a GPT's partition entry array takes (128 entries of 128 bytes),
/// at each end of the disk.
pub const ENTRY_ARRAY_BYTES: u64 = 128 * 128;

/// One disk as observed this boot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservedDisk {
    /// The kernel's device path this boot (/dev/vda) first, then every
    /// stable name (/dev/disk/by-id/..., /dev/disk/by-path/...). A spec's
    /// device matches any of them.
    pub names: Vec<String>,
    pub size_bytes: u64,
    pub logical_sector_bytes: u64,
    pub contents: Contents,
}

/// What the disk held when read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contents {
    /// No partition table and no filesystem signature.
    Blank,
    /// A GPT whose every partition is named `liken:<role>`.
    Liken(Vec<FoundPartition>),
    /// Anything else, in words for the refusal ("an MBR partition table").
    Foreign(String),
}

/// A liken partition found on a disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundPartition {
    /// The partition's number on its disk, from 1.
    pub number: u32,
    pub role: StorageRole,
    pub start_bytes: u64,
    pub size_bytes: u64,
}

/// The decision for every disk and every role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// One entry per observed disk, in the order observed.
    pub disks: Vec<DiskPlan>,
    /// All nine roles.
    pub roles: BTreeMap<StorageRole, Backing>,
    /// Refusals that belong to no observed disk (a device that is absent, a
    /// role found on two disks).
    pub problems: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskPlan {
    /// The disk's kernel path this boot.
    pub device: String,
    pub action: Action,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Write this GPT: the disk is blank and the spec puts roles on it.
    Claim(Layout),
    /// A liken disk: use its partitions as they are.
    Keep(Vec<FoundPartition>),
    /// The spec needs this disk in a way the rules forbid; each reason names
    /// the disk and the correction.
    Refuse(Vec<String>),
    /// Not needed by the spec: leave it alone.
    Leave,
}

/// The partitions a claim writes, in the standard order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub logical_sector_bytes: u64,
    pub size_bytes: u64,
    pub partitions: Vec<Planned>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    pub role: StorageRole,
    pub start_bytes: u64,
    pub size_bytes: u64,
}

/// What backs one role on this boot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backing {
    /// The RAM root: the spec does not declare the role.
    Memory,
    /// A partition, found or about to be claimed.
    Partition {
        device: String,
        number: u32,
        size_bytes: u64,
    },
    /// Declared, but refused; the plan's refusals say why.
    Unbacked,
}

impl Plan {
    /// Whether the spec can be carried out: no refusal anywhere.
    pub fn satisfied(&self) -> bool {
        self.refusals().next().is_none()
    }

    /// Every refusal, the disks' first in disk order.
    pub fn refusals(&self) -> impl Iterator<Item = &str> {
        self.disks
            .iter()
            .flat_map(|d| match &d.action {
                Action::Refuse(reasons) => reasons.as_slice(),
                _ => &[],
            })
            .chain(self.problems.iter())
            .map(String::as_str)
    }
}

/// Decide the storage of this boot.
pub fn plan(spec: &Storage, disks: &[ObservedDisk]) -> Plan {
    let mut found: BTreeMap<StorageRole, Vec<(usize, &FoundPartition)>> = BTreeMap::new();
    for (i, disk) in disks.iter().enumerate() {
        if let Contents::Liken(parts) = &disk.contents {
            for p in parts {
                found.entry(p.role).or_default().push((i, p));
            }
        }
    }

    let mut reasons: Vec<Vec<String>> = vec![Vec::new(); disks.len()];
    let mut claims: Vec<Vec<StorageRole>> = vec![Vec::new(); disks.len()];
    let mut problems = Vec::new();
    let mut roles: BTreeMap<StorageRole, Backing> = StorageRole::ALL
        .into_iter()
        .map(|r| (r, Backing::Memory))
        .collect();

    for (role, alloc) in spec.declared() {
        let name = role.partition_name();
        let declared = alloc.size.as_deref().map(quantity::bytes);
        match found.get(&role).map(Vec::as_slice).unwrap_or_default() {
            [] => {
                roles.insert(role, Backing::Unbacked);
                let Some(i) = disks.iter().position(|d| d.names.contains(&alloc.device)) else {
                    problems.push(format!(
                        "{name}: no disk named {} was found, and no disk holds {name}; attach the disk, or name one of the disks in status.hardware.blockDevices",
                        alloc.device
                    ));
                    continue;
                };
                let dev = device(&disks[i]);
                match &disks[i].contents {
                    Contents::Blank => claims[i].push(role),
                    Contents::Liken(_) => reasons[i].push(format!(
                        "{dev} was claimed by liken before and holds no {name}; a claimed disk is never repartitioned, so use `wipe and reinstall` to lay it out again"
                    )),
                    Contents::Foreign(what) => reasons[i].push(format!(
                        "{dev} holds {what}, data liken did not write, so it is never touched; erase the disk yourself if its data is not needed, or name a blank disk for {}",
                        role.as_str()
                    )),
                }
            }
            [(i, p)] => {
                let dev = device(&disks[*i]);
                let field = format!("spec.storage.{}.size", role.as_str());
                let have = quantity::format(p.size_bytes);
                match declared {
                    Some(None) => reasons[*i].push(format!(
                        "{field} is not a binary quantity; declare {have}, the size of {name} on {dev}"
                    )),
                    Some(Some(want)) if role.fixed_size() && want != p.size_bytes => {
                        reasons[*i].push(format!(
                            "{field} is {}, but {name} on {dev} is {have} and cannot change once claimed; declare {have}, or use `wipe and reinstall`",
                            quantity::format(want)
                        ))
                    }
                    Some(Some(want)) if want < p.size_bytes => reasons[*i].push(format!(
                        "{field} is {}, below the {have} of {name} on {dev}; a partition cannot shrink, so declare at least {have}",
                        quantity::format(want)
                    )),
                    _ => {}
                }
                roles.insert(
                    role,
                    Backing::Partition {
                        device: dev.to_owned(),
                        number: p.number,
                        size_bytes: p.size_bytes,
                    },
                );
            }
            many => {
                roles.insert(role, Backing::Unbacked);
                let devs: Vec<&str> = many.iter().map(|(i, _)| device(&disks[*i])).collect();
                problems.push(format!(
                    "{name} is on more than one disk ({}); detach the disk that does not belong to this machine, or use `wipe and reinstall`",
                    devs.join(", ")
                ));
            }
        }
    }

    let mut plans = Vec::with_capacity(disks.len());
    for (i, disk) in disks.iter().enumerate() {
        let dev = device(disk).to_owned();
        if claims[i].is_empty() && reasons[i].is_empty() {
            let action = match &disk.contents {
                Contents::Liken(parts) => Action::Keep(parts.clone()),
                _ => Action::Leave,
            };
            plans.push(DiskPlan {
                device: dev,
                action,
            });
            continue;
        }
        if reasons[i].is_empty() {
            match layout(spec, &claims[i], disk) {
                Ok(l) => {
                    for (n, p) in l.partitions.iter().enumerate() {
                        roles.insert(
                            p.role,
                            Backing::Partition {
                                device: dev.clone(),
                                number: n as u32 + 1,
                                size_bytes: p.size_bytes,
                            },
                        );
                    }
                    plans.push(DiskPlan {
                        device: dev,
                        action: Action::Claim(l),
                    });
                    continue;
                }
                Err(why) => reasons[i].push(why),
            }
        }
        for (_, p) in found.values().flatten().filter(|(d, _)| *d == i) {
            roles.insert(p.role, Backing::Unbacked);
        }
        plans.push(DiskPlan {
            device: dev,
            action: Action::Refuse(std::mem::take(&mut reasons[i])),
        });
    }
    for (role, backing) in roles.iter_mut() {
        if spec.get(*role).is_none() {
            *backing = Backing::Memory;
        }
    }
    Plan {
        disks: plans,
        roles,
        problems,
    }
}

fn device(disk: &ObservedDisk) -> &str {
    disk.names
        .first()
        .map(String::as_str)
        .unwrap_or("(unnamed disk)")
}

/// Lay `roles` (in standard order) out on the blank `disk`.
fn layout(spec: &Storage, roles: &[StorageRole], disk: &ObservedDisk) -> Result<Layout, String> {
    let dev = device(disk);
    let sector = disk.logical_sector_bytes;
    if sector == 0 || !ALIGN.is_multiple_of(sector) {
        return Err(format!(
            "{dev} reports a logical sector of {sector} bytes, which liken cannot align partitions to; use a disk with 512- or 4096-byte sectors"
        ));
    }
    // The backup GPT: the entry array and the header, in the last sectors.
    let backup = ENTRY_ARRAY_BYTES.div_ceil(sector) * sector + sector;
    let end = disk.size_bytes.saturating_sub(backup);

    let mut sizes: Vec<(StorageRole, Option<u64>)> = Vec::with_capacity(roles.len());
    for &role in roles {
        let field = format!("spec.storage.{}.size", role.as_str());
        let size = match spec.get(role).and_then(|a| a.size.as_deref()) {
            None => None,
            Some(q) => match quantity::bytes(q) {
                Some(0) => {
                    return Err(format!(
                        "{field} is 0; give {} on {dev} a size, or leave it out to take the rest of the disk",
                        role.as_str()
                    ));
                }
                Some(b) if !b.is_multiple_of(sector) => {
                    return Err(format!(
                        "{field} is {b} bytes, not a whole number of {dev}'s {sector}-byte sectors; declare a multiple of {sector}, such as {}",
                        quantity::format(b.div_ceil(ALIGN) * ALIGN)
                    ));
                }
                Some(b) => Some(b),
                None => {
                    return Err(format!(
                        "{field} is not a binary quantity; declare the size of {} on {dev} as one, such as 20Gi",
                        role.as_str()
                    ));
                }
            },
        };
        sizes.push((role, size));
    }

    // Two names of one disk can each carry a sizeless role past the
    // documents' check, which compares device strings.
    let sizeless: Vec<&str> = sizes
        .iter()
        .filter(|(_, s)| s.is_none())
        .map(|(r, _)| r.as_str())
        .collect();
    if sizeless.len() > 1 {
        return Err(format!(
            "{} all leave out their size on {dev}, but only one role per disk may take the rest; give the others a size",
            sizeless.join(", ")
        ));
    }

    // Place everything with the rest-of-disk role at size 0: it starts and
    // ends on a boundary, so what follows it moves by exactly its size.
    let mut at = ALIGN;
    let mut planned = Vec::with_capacity(sizes.len());
    for &(role, size) in &sizes {
        let size = size.unwrap_or(0);
        planned.push(Planned {
            role,
            start_bytes: at,
            size_bytes: size,
        });
        at = (at + size).div_ceil(ALIGN) * ALIGN;
    }
    let used = planned
        .last()
        .map_or(ALIGN, |p| p.start_bytes + p.size_bytes);
    if used > end {
        return Err(format!(
            "{dev} has {}, too small for the roles declared on it, which need {} with the partition table; declare smaller sizes, or name a larger disk",
            quantity::format(disk.size_bytes),
            quantity::format(used + backup)
        ));
    }
    if let Some(rest) = sizes.iter().position(|(_, s)| s.is_none()) {
        let room = (end - used) / ALIGN * ALIGN;
        if room == 0 {
            return Err(format!(
                "{dev} has no whole MiB left for {}, which takes the rest of the disk; declare smaller sizes, or name a larger disk",
                sizes[rest].0.as_str()
            ));
        }
        planned[rest].size_bytes = room;
        for p in &mut planned[rest + 1..] {
            p.start_bytes += room;
        }
    }
    Ok(Layout {
        logical_sector_bytes: sector,
        size_bytes: disk.size_bytes,
        partitions: planned,
    })
}
