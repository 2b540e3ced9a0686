//! The storage step's two contacts with the machine: reading what each disk
//! holds ([`observe`]) and writing the GPTs a satisfied plan claims
//! ([`claim`]). Every path is resolved under [`Roots`], so tests run on a
//! fake /sys and /dev holding disk images.
//!
//! [`observe`] lists the disks the kernel found (the entries of
//! `<sys>/block` with a `device` link, so loop, ram, zram, dm and md
//! devices, which have none, are not disks here), in name order, each with
//! its size and logical sector size from sysfs, its names (`/dev/<name>`
//! first, then every `disk/by-id` and `disk/by-path` link that resolves to
//! it) and its contents read through liken-formats' GPT reader. It opens
//! each disk read-only and writes nothing.
//!
//! [`claim`] acts only on a plan that is [`Plan::satisfied`]; for each
//! disk the plan claims it reads the disk again and writes only when it is
//! still blank, so a disk that gained data since it was observed is left
//! as it is. Asking the kernel to re-read the partition table is the
//! caller's, through the syscall seam.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use liken_formats::gpt::{self, Found, Guid};

use super::observe;
use super::plan::{Action, ObservedDisk, Plan};

/// The directory names a disk as this boot's userspace sees it.
pub const DEV: &str = "/dev";

/// Where /sys and /dev are.
#[derive(Clone, Debug)]
pub struct Roots {
    pub sys: PathBuf,
    pub dev: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("reading {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("{path} holds {text:?}, not a number")]
    Number { path: PathBuf, text: String },
    #[error("reading the partition table of {device}: {source}")]
    Table { device: String, source: gpt::Error },
    #[error("writing the partition table of {device}: {source}")]
    Write { device: String, source: gpt::Error },
    #[error("opening {device} to claim it: {source}")]
    Open { device: String, source: io::Error },
    #[error("the storage plan is refused, so no disk is claimed: {0}")]
    Refused(String),
    #[error("{device} is no longer blank ({now}); it was not claimed")]
    NoLongerBlank { device: String, now: String },
}

/// Every disk the kernel found, and what it holds.
pub fn observe(roots: &Roots) -> Result<Vec<ObservedDisk>, Error> {
    let block = roots.sys.join("block");
    let mut names: Vec<String> = read_dir(&block)?
        .into_iter()
        .filter(|n| block.join(n).join("device").exists())
        .collect();
    names.sort();
    let mut disks = Vec::with_capacity(names.len());
    for name in names {
        let dir = block.join(&name);
        let sectors = number(&dir.join("size"))?;
        let logical = number(&dir.join("queue/logical_block_size"))?;
        let device = format!("{DEV}/{name}");
        let path = roots.dev.join(&name);
        let mut file = File::open(&path).map_err(|source| Error::Read {
            path: path.clone(),
            source,
        })?;
        let found = gpt::read(&mut file, logical).map_err(|source| Error::Table {
            device: device.clone(),
            source,
        })?;
        let mut all = vec![device];
        all.extend(links_to(&roots.dev, &name)?);
        disks.push(ObservedDisk {
            names: all,
            // sysfs counts 512-byte units whatever the sector size.
            size_bytes: sectors * 512,
            logical_sector_bytes: logical,
            contents: observe::contents(&found),
        });
    }
    Ok(disks)
}

/// Write the GPT of every disk `plan` claims; `disk_guid` draws a fresh
/// GUID per disk.
pub fn claim(plan: &Plan, roots: &Roots, mut disk_guid: impl FnMut() -> Guid) -> Result<(), Error> {
    if !plan.satisfied() {
        let why: Vec<&str> = plan.refusals().collect();
        return Err(Error::Refused(why.join("; ")));
    }
    for d in &plan.disks {
        let Action::Claim(layout) = &d.action else {
            continue;
        };
        let name = d.device.rsplit('/').next().unwrap_or(&d.device);
        let path = roots.dev.join(name);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|source| Error::Open {
                device: d.device.clone(),
                source,
            })?;
        let now =
            gpt::read(&mut file, layout.logical_sector_bytes).map_err(|source| Error::Table {
                device: d.device.clone(),
                source,
            })?;
        if now != Found::Blank {
            return Err(Error::NoLongerBlank {
                device: d.device.clone(),
                now: format!("{:?}", observe::contents(&now)),
            });
        }
        gpt::write(&mut file, &observe::table(layout, disk_guid())).map_err(|source| {
            Error::Write {
                device: d.device.clone(),
                source,
            }
        })?;
        file.sync_all().map_err(|source| Error::Open {
            device: d.device.clone(),
            source,
        })?;
    }
    Ok(())
}

/// The stable names under `<dev>/disk/by-id` and `by-path` that resolve to
/// the disk `name`, as `/dev/disk/...` paths, sorted within each.
fn links_to(dev: &Path, name: &str) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for kind in ["by-id", "by-path"] {
        let dir = dev.join("disk").join(kind);
        if !dir.is_dir() {
            continue;
        }
        let mut links: Vec<String> = read_dir(&dir)?
            .into_iter()
            .filter(|l| {
                fs::read_link(dir.join(l))
                    .ok()
                    .and_then(|t| t.file_name().map(|f| f == name))
                    .unwrap_or(false)
            })
            .collect();
        links.sort();
        out.extend(links.into_iter().map(|l| format!("{DEV}/disk/{kind}/{l}")));
    }
    Ok(out)
}

fn read_dir(dir: &Path) -> Result<Vec<String>, Error> {
    let err = |source| Error::Read {
        path: dir.to_owned(),
        source,
    };
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(err)? {
        names.push(
            entry
                .map_err(err)?
                .file_name()
                .to_string_lossy()
                .into_owned(),
        );
    }
    Ok(names)
}

fn number(path: &Path) -> Result<u64, Error> {
    let text = fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_owned(),
        source,
    })?;
    text.trim().parse().map_err(|_| Error::Number {
        path: path.to_owned(),
        text,
    })
}
