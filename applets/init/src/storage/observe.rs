//! Between the disk and the decision: what a partition table read from a
//! disk means for storage ([`contents`]), and the partition table a claim
//! writes ([`table`]). Both are pure; the reading and writing themselves are
//! liken-formats' `gpt`.
//!
//! A GPT is liken's only when every partition on it is named
//! `liken:<role>` for a role liken knows, each role at most once, each on
//! whole sectors; any other GPT is foreign, as is anything that is not a
//! GPT and not blank. A claim writes each role's partition with the type
//! that tells firmware and tools what it is: BIOS boot for biosBoot, EFI
//! system for the two slots (the firmware reads them), and liken's own
//! data type ([`gpt::LIKEN_DATA`]) for the rest.

use liken_documents::machine::StorageRole;
use liken_formats::gpt::{self, Found, Guid, Partition, Table};

use super::plan::{Contents, FoundPartition, Layout};

/// The role a partition name names, if it is one of liken's.
pub fn role_of(name: &str) -> Option<StorageRole> {
    StorageRole::ALL
        .into_iter()
        .find(|r| r.partition_name() == name)
}

/// The partition type a claim writes for `role`.
pub fn type_of(role: StorageRole) -> &'static str {
    match role {
        StorageRole::BiosBoot => gpt::BIOS_BOOT,
        StorageRole::SystemA | StorageRole::SystemB => gpt::EFI_SYSTEM,
        _ => gpt::LIKEN_DATA,
    }
}

/// What a disk's table means for the storage decision.
pub fn contents(found: &Found) -> Contents {
    let table = match found {
        Found::Blank => return Contents::Blank,
        Found::Foreign(what) => return Contents::Foreign(what.clone()),
        Found::Gpt(t) => t,
    };
    let mut parts: Vec<FoundPartition> = Vec::with_capacity(table.partitions.len());
    for (i, p) in table.partitions.iter().enumerate() {
        let Some(role) = role_of(&p.name) else {
            return Contents::Foreign(format!(
                "a GPT with a partition named {:?}, which liken did not write",
                p.name
            ));
        };
        if parts.iter().any(|f| f.role == role) {
            return Contents::Foreign(format!("a GPT with two partitions named {:?}", p.name));
        }
        parts.push(FoundPartition {
            number: i as u32 + 1,
            role,
            start_bytes: p.first_lba * table.sector_bytes,
            size_bytes: p.size_bytes(table.sector_bytes),
        });
    }
    if parts.is_empty() {
        return Contents::Foreign("a GPT with no partitions".to_owned());
    }
    Contents::Liken(parts)
}

/// The GPT a claim of `layout` writes. `disk_guid` is the caller's random
/// GUID; each partition's GUID is derived from it and its number, so the
/// table is a pure function of its inputs.
pub fn table(layout: &Layout, disk_guid: Guid) -> Table {
    let ss = layout.logical_sector_bytes;
    let partitions = layout
        .partitions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut unique = disk_guid;
            unique[15] ^= i as u8 + 1;
            Partition {
                name: p.role.partition_name(),
                type_guid: gpt::guid(type_of(p.role)).unwrap_or_default(),
                unique_guid: unique,
                first_lba: p.start_bytes / ss,
                last_lba: (p.start_bytes + p.size_bytes) / ss - 1,
            }
        })
        .collect();
    Table {
        sector_bytes: ss,
        disk_guid,
        partitions,
    }
}
