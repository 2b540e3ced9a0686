//! GUID partition tables: written onto a disk (or a disk image) from a
//! [`Table`], and read back into what a boot needs to decide about a disk
//! ([`Found`]).
//!
//! [`write`] lays down a protective MBR, the primary header and entry array
//! after it, and the backup entry array and header in the disk's last
//! sectors (128 entries, as every partitioning tool writes them), through
//! the gptman crate. It writes nothing else: the partitions' contents are
//! untouched, and the caller must have decided the disk may be claimed.
//! The same table on the same size of disk always gives the same bytes;
//! GUIDs are inputs, never drawn here.
//!
//! [`read`] only reads. A disk is [`Found::Blank`] when its first and last
//! MiB are all zero: that is where every partition table (MBR, GPT and its
//! backup) and the common filesystem, RAID and volume signatures live. It is
//! [`Found::Gpt`] when a valid GPT (primary, or the backup when the primary
//! is damaged) is there, and [`Found::Foreign`] otherwise, in words naming
//! what was recognised. Which GPTs are liken's is the caller's decision.

use std::io::{self, Read, Seek, SeekFrom, Write};

/// A GUID as its 16 on-disk bytes (the first three fields little-endian).
pub type Guid = [u8; 16];

/// The BIOS boot partition, where GRUB's core image lives.
pub const BIOS_BOOT: &str = "21686148-6449-6E6F-744E-656564454649";
/// An EFI system partition: a FAT filesystem the firmware reads.
pub const EFI_SYSTEM: &str = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B";
/// Every other liken partition. The role is in the partition's name
/// (`liken:<role>`), so one type serves them all; it only tells other tools
/// the partition is liken's.
pub const LIKEN_DATA: &str = "BAB6C98D-24D9-4138-A0A5-EB5C36BC3CF3";

/// Bytes read at each end of a disk to decide whether it is blank.
pub const BLANK_WINDOW: u64 = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("could not read the disk: {0}")]
    Read(#[source] io::Error),
    #[error("could not write the partition table: {0}")]
    Write(#[source] gptman::Error),
    #[error("partition {name:?}: {why}")]
    Partition { name: String, why: &'static str },
    #[error("{0:?} is not a GUID (write it as 8-4-4-4-12 hex digits)")]
    Guid(String),
}

/// A whole partition table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub sector_bytes: u64,
    pub disk_guid: Guid,
    /// In partition-number order, from 1.
    pub partitions: Vec<Partition>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    pub name: String,
    pub type_guid: Guid,
    pub unique_guid: Guid,
    pub first_lba: u64,
    /// Inclusive, as GPT counts.
    pub last_lba: u64,
}

impl Partition {
    pub fn size_bytes(&self, sector_bytes: u64) -> u64 {
        (self.last_lba + 1 - self.first_lba) * sector_bytes
    }
}

/// What a disk held when read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    Blank,
    Gpt(Table),
    /// What was there, in words ("an MBR partition table").
    Foreign(String),
}

/// Parse `8-4-4-4-12` hex into on-disk bytes.
pub fn guid(text: &str) -> Result<Guid, Error> {
    let bad = || Error::Guid(text.to_owned());
    let parts: Vec<&str> = text.split('-').collect();
    let lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();
    if lens != [8, 4, 4, 4, 12] || !text.chars().all(|c| c == '-' || c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let hex: String = parts.concat();
    let mut b = [0u8; 16];
    for (i, byte) in b.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
    }
    b[0..4].reverse();
    b[4..6].reverse();
    b[6..8].reverse();
    Ok(b)
}

/// On-disk bytes as `8-4-4-4-12`, upper case, as sgdisk prints them.
pub fn guid_text(g: &Guid) -> String {
    let mut b = *g;
    b[0..4].reverse();
    b[4..6].reverse();
    b[6..8].reverse();
    let h: String = b.iter().map(|x| format!("{x:02X}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// Write `table` onto `disk`, whose length is the disk's size.
pub fn write<D: Read + Write + Seek>(disk: &mut D, table: &Table) -> Result<(), Error> {
    let mut gpt =
        gptman::GPT::new_from(disk, table.sector_bytes, table.disk_guid).map_err(Error::Write)?;
    if table.partitions.len() > gpt.header.number_of_partition_entries as usize {
        return Err(Error::Partition {
            name: String::new(),
            why: "more partitions than a GPT holds",
        });
    }
    for (i, p) in table.partitions.iter().enumerate() {
        if p.name.encode_utf16().count() > 36 {
            return Err(Error::Partition {
                name: p.name.clone(),
                why: "a GPT name holds at most 36 UTF-16 units",
            });
        }
        if p.first_lba < gpt.header.first_usable_lba
            || p.last_lba > gpt.header.last_usable_lba
            || p.last_lba < p.first_lba
        {
            return Err(Error::Partition {
                name: p.name.clone(),
                why: "does not fit between the disk's first and last usable sectors",
            });
        }
        gpt[i as u32 + 1] = gptman::GPTPartitionEntry {
            partition_type_guid: p.type_guid,
            unique_partition_guid: p.unique_guid,
            starting_lba: p.first_lba,
            ending_lba: p.last_lba,
            attribute_bits: 0,
            partition_name: p.name.as_str().into(),
        };
    }
    gptman::GPT::write_protective_mbr_into(disk, table.sector_bytes).map_err(Error::Write)?;
    gpt.write_into(disk).map_err(Error::Write)?;
    disk.flush().map_err(|e| Error::Write(e.into()))?;
    Ok(())
}

/// Read what `disk` holds; `sector_bytes` is its logical sector size.
pub fn read<D: Read + Seek>(disk: &mut D, sector_bytes: u64) -> Result<Found, Error> {
    let len = disk.seek(SeekFrom::End(0)).map_err(Error::Read)?;
    let head = read_at(disk, 0, len.min(BLANK_WINDOW))?;
    let tail_start = len.saturating_sub(BLANK_WINDOW);
    let tail = read_at(disk, tail_start, len - tail_start)?;
    if head.iter().chain(&tail).all(|&b| b == 0) {
        return Ok(Found::Blank);
    }
    if let Ok(gpt) = gptman::GPT::read_from(disk, sector_bytes) {
        let partitions = gpt
            .iter()
            .filter(|(_, e)| e.is_used())
            .map(|(_, e)| Partition {
                name: e.partition_name.as_str().to_owned(),
                type_guid: e.partition_type_guid,
                unique_guid: e.unique_partition_guid,
                first_lba: e.starting_lba,
                last_lba: e.ending_lba,
            })
            .collect();
        return Ok(Found::Gpt(Table {
            sector_bytes,
            disk_guid: gpt.header.disk_guid,
            partitions,
        }));
    }
    Ok(Found::Foreign(describe(&head)))
}

fn read_at<D: Read + Seek>(disk: &mut D, at: u64, n: u64) -> Result<Vec<u8>, Error> {
    let mut buf = vec![0u8; n as usize];
    disk.seek(SeekFrom::Start(at)).map_err(Error::Read)?;
    disk.read_exact(&mut buf).map_err(Error::Read)?;
    Ok(buf)
}

/// Name what the first MiB of a non-blank disk that is not a GPT holds.
fn describe(head: &[u8]) -> String {
    let at = |off: usize, magic: &[u8]| head.get(off..off + magic.len()) == Some(magic);
    let known: [(usize, &[u8], &str); 9] = [
        (0x438, &[0x53, 0xEF], "an ext2/3/4 filesystem"),
        (0, b"XFSB", "an XFS filesystem"),
        (0x10040, b"_BHRfS_M", "a btrfs filesystem"),
        (0, b"LUKS\xBA\xBE", "a LUKS encrypted volume"),
        (0x200, b"LABELONE", "an LVM physical volume"),
        (0xFF6, b"SWAPSPACE2", "a swap area"),
        (0x8001, b"CD001", "an ISO 9660 filesystem"),
        (0, b"hsqs", "a squashfs filesystem"),
        (0x1000, &[0xFC, 0x4E, 0x2B, 0xA9], "a Linux RAID member"),
    ];
    if let Some((_, _, what)) = known.iter().find(|(off, magic, _)| at(*off, magic)) {
        return (*what).to_owned();
    }
    if at(0x52, b"FAT32") || at(0x36, b"FAT1") || at(3, b"NTFS    ") || at(3, b"EXFAT   ") {
        return "a FAT, NTFS or exFAT filesystem".to_owned();
    }
    if at(0x1FE, &[0x55, 0xAA]) {
        return if head.get(0x1C2) == Some(&0xEE) {
            "a damaged GPT".to_owned()
        } else {
            "an MBR partition table".to_owned()
        };
    }
    "data (non-zero bytes where partition tables and filesystems begin or end)".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn table(ss: u64) -> Table {
        let mib = (1 << 20) / ss;
        Table {
            sector_bytes: ss,
            disk_guid: [7; 16],
            partitions: vec![
                Partition {
                    name: "liken:biosBoot".into(),
                    type_guid: guid(BIOS_BOOT).unwrap(),
                    unique_guid: [1; 16],
                    first_lba: mib,
                    last_lba: 2 * mib - 1,
                },
                Partition {
                    name: "liken:machineState".into(),
                    type_guid: guid(LIKEN_DATA).unwrap(),
                    unique_guid: [2; 16],
                    first_lba: 2 * mib,
                    last_lba: 10 * mib - 1,
                },
            ],
        }
    }

    #[test]
    fn guids_round_trip_in_mixed_endian() {
        let g = guid(BIOS_BOOT).unwrap();
        assert_eq!(&g[..4], &[0x48, 0x61, 0x68, 0x21]);
        assert_eq!(guid_text(&g), BIOS_BOOT);
        assert_eq!(guid_text(&guid(LIKEN_DATA).unwrap()), LIKEN_DATA);
        for bad in [
            "",
            "21686148-6449-6E6F-744E",
            "g1686148-6449-6E6F-744E-656564454649",
        ] {
            assert!(guid(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn writes_and_reads_back_at_both_sector_sizes() {
        for ss in [512, 4096] {
            let mut disk = Cursor::new(vec![0u8; 16 << 20]);
            let t = table(ss);
            write(&mut disk, &t).unwrap();
            assert_eq!(read(&mut disk, ss).unwrap(), Found::Gpt(t.clone()));
            assert_eq!(t.partitions[1].size_bytes(ss), 8 << 20);
            let again = {
                let mut d = Cursor::new(vec![0u8; 16 << 20]);
                write(&mut d, &t).unwrap();
                d.into_inner()
            };
            assert_eq!(disk.into_inner(), again, "deterministic");
        }
    }

    #[test]
    fn the_backup_serves_when_the_primary_is_damaged() {
        let mut disk = Cursor::new(vec![0u8; 16 << 20]);
        write(&mut disk, &table(512)).unwrap();
        disk.get_mut()[512 + 20] ^= 0xFF;
        assert_eq!(read(&mut disk, 512).unwrap(), Found::Gpt(table(512)));
    }

    #[test]
    fn blank_and_foreign() {
        let mut disk = Cursor::new(vec![0u8; 4 << 20]);
        assert_eq!(read(&mut disk, 512).unwrap(), Found::Blank);
        let cases: [(usize, &[u8], &str); 4] = [
            (0x438, &[0x53, 0xEF], "ext2/3/4"),
            (0x1FE, &[0x55, 0xAA], "MBR"),
            (0x10040, b"_BHRfS_M", "btrfs"),
            ((4 << 20) - 100, &[1], "non-zero"),
        ];
        for (off, magic, want) in cases {
            let mut bytes = vec![0u8; 4 << 20];
            bytes[off..off + magic.len()].copy_from_slice(magic);
            match read(&mut Cursor::new(bytes), 512).unwrap() {
                Found::Foreign(what) => assert!(what.contains(want), "{what}"),
                other => panic!("{want}: {other:?}"),
            }
        }
    }

    #[test]
    fn refuses_what_does_not_fit() {
        let mut disk = Cursor::new(vec![0u8; 4 << 20]);
        let mut t = table(512);
        t.partitions[1].last_lba = 9000;
        assert!(matches!(write(&mut disk, &t), Err(Error::Partition { .. })));
        t.partitions[1].name = "x".repeat(37);
        assert!(matches!(write(&mut disk, &t), Err(Error::Partition { .. })));
    }
}
