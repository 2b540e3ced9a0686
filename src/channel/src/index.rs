//! The channel's index: a front page, a page per release, a page for the
//! source mirror, versions.yaml and the favicon.
//!
//! Input: the channel's base URL and its object keys (one per line, as a
//! bucket listing gives them). [`gather`] downloads only what the channel
//! itself serves: channel.yaml, each `<version>/release.yaml` the keys name
//! (its digest computed from the bytes received, never taken from anywhere
//! else) and each `<version>/notes.md` the keys name. The source mirror's
//! page lists the `sources/` keys. [`render`] turns that into pages and
//! holds no information of its own, so running the command again over the
//! same channel repairs any page; [`write_pages`] writes each file
//! atomically. Every string from the channel is HTML-escaped, and every
//! link is built from percent-encoded path segments.
//!
//! Refused: a release.yaml that does not parse or names another version,
//! and a channel.yaml whose latest release has no release.yaml among the
//! keys (the index would advertise a release no machine can fetch).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use liken_api::Version;
use liken_documents::canonical;
use liken_documents::cluster::CatalogEntry;
use liken_documents::error::Problems;
use liken_documents::{Channel, Release, Versions};

use crate::atomic;
use crate::http::{self, Client, HttpError};
use crate::layout::{
    CHANNEL_FILE, INDEX_FILE, NOTES_FILE, RELEASE_FILE, SOURCES_DIR, VERSIONS_FILE,
};

/// What the keys say the channel holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keys {
    /// Versions with a release.yaml, newest first.
    pub versions: Vec<Version>,
    /// Versions with a notes.md.
    pub notes: BTreeSet<Version>,
    /// Keys under sources/ (without the prefix), sorted.
    pub sources: Vec<String>,
}

/// Sorts the object keys into what the index needs; other keys are ignored.
pub fn parse_keys(text: &str) -> Keys {
    let mut versions = BTreeSet::new();
    let mut notes = BTreeSet::new();
    let mut sources = BTreeSet::new();
    for line in text.lines() {
        let key = line.trim().trim_start_matches('/');
        if let Some(rest) = key.strip_prefix("sources/") {
            if !rest.is_empty() && rest != INDEX_FILE && !rest.ends_with('/') {
                sources.insert(rest.to_owned());
            }
            continue;
        }
        let Some((dir, file)) = key.split_once('/') else {
            continue;
        };
        let Ok(version) = Version::parse(dir) else {
            continue;
        };
        match file {
            RELEASE_FILE => {
                versions.insert(version);
            }
            NOTES_FILE => {
                notes.insert(version);
            }
            _ => {}
        }
    }
    Keys {
        versions: versions.into_iter().rev().collect(),
        notes,
        sources: sources.into_iter().collect(),
    }
}

/// One release as the channel serves it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReleaseView {
    pub version: Version,
    /// sha256 of the exact bytes of its release.yaml.
    pub digest: String,
    pub release: Release,
    pub notes: Option<String>,
}

/// Everything the pages show.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelView {
    pub source: String,
    pub latest: Version,
    /// Newest first.
    pub releases: Vec<ReleaseView>,
    pub sources: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{0}")]
    Http(#[from] HttpError),
    #[error("{0}")]
    Document(Problems),
    #[error(
        "channel.yaml names {latest} as the latest release, but the keys hold no \
         {latest}/release.yaml; publish that release before indexing"
    )]
    LatestMissing { latest: Version },
    #[error("{url} describes release {named}, not {wanted}")]
    VersionMismatch {
        url: String,
        named: String,
        wanted: Version,
    },
    #[error("{path}: {source}")]
    Write { path: PathBuf, source: io::Error },
}

/// Downloads the documents the pages are made of.
pub fn gather(client: &Client, source: &str, keys: &Keys) -> Result<ChannelView, IndexError> {
    http::check_scheme(source)?;
    let url = http::join(source, &[CHANNEL_FILE]);
    let channel =
        Channel::from_yaml(&url, &client.get_document(&url)?).map_err(IndexError::Document)?;
    if !keys.versions.contains(&channel.latest) {
        return Err(IndexError::LatestMissing {
            latest: channel.latest,
        });
    }
    let mut releases = Vec::with_capacity(keys.versions.len());
    for version in &keys.versions {
        let url = http::join(source, &[version.as_str(), RELEASE_FILE]);
        let bytes = client.get_document(&url)?;
        let release = Release::from_yaml(&url, &bytes).map_err(IndexError::Document)?;
        if release.metadata.name != version.as_str() {
            return Err(IndexError::VersionMismatch {
                url,
                named: release.metadata.name.clone(),
                wanted: version.clone(),
            });
        }
        let notes = if keys.notes.contains(version) {
            let url = http::join(source, &[version.as_str(), NOTES_FILE]);
            Some(String::from_utf8_lossy(&client.get_document(&url)?).into_owned())
        } else {
            None
        };
        releases.push(ReleaseView {
            version: version.clone(),
            digest: canonical::sha256(&bytes),
            release,
            notes,
        });
    }
    Ok(ChannelView {
        source: source.trim_end_matches('/').to_owned(),
        latest: channel.latest,
        releases,
        sources: keys.sources.clone(),
    })
}

/// One file of the index, relative to the output directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// Escapes text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Percent-encodes one path segment for a link.
pub fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~+".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The id of a component version's heading on the sources page.
fn anchor(component: &str, version: &str) -> String {
    format!("{component}@{version}")
}

/// A relative link from segments.
fn link(segments: &[&str]) -> String {
    segments
        .iter()
        .map(|s| encode_segment(s))
        .collect::<Vec<_>>()
        .join("/")
}

/// `1.2 GiB` and friends.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `2026.07.20-001` -> `2026-07-20`.
fn date_of(v: &Version) -> String {
    v.as_str()[..10].replace('.', "-")
}

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:60rem;margin:2rem auto;\
padding:0 1rem;color:#1d2521;background:#fcfcfa;line-height:1.5}\
h1{font-size:1.7rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d8ddd9}\
a{color:#1f6b45}table{border-collapse:collapse;width:100%;margin:.5rem 0}\
th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #e4e8e5;vertical-align:top}\
th{font-weight:600;background:#f0f3f1}code,pre,.digest{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.85rem}\
.digest{word-break:break-all;color:#3d4a43}pre{background:#eef2ef;padding:.8rem 1rem;overflow-x:auto;border-radius:4px}\
.latest{background:#1f6b45;color:#fff;border-radius:3px;padding:.05rem .4rem;font-size:.75rem;margin-left:.4rem;\
vertical-align:middle}.muted{color:#5d6a63}.num{text-align:right;white-space:nowrap}\
.nowrap{white-space:nowrap}nav{margin-bottom:1rem}";

fn page(title: &str, body: &str) -> Vec<u8> {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
    .into_bytes()
}

fn latest_mark(view: &ChannelView, v: &Version) -> &'static str {
    if *v == view.latest {
        "<span class=\"latest\">latest</span>"
    } else {
        ""
    }
}

fn catalog_entry(r: &ReleaseView) -> String {
    format!("- version: \"{}\"\n  digest: {}\n", r.version, r.digest)
}

fn front_page(view: &ChannelView) -> Vec<u8> {
    let mut b = String::new();
    b.push_str("<h1>liken releases</h1>\n");
    let _ = writeln!(
        b,
        "<p>The latest release is <a href=\"{}/\">{}</a>. Each release page gives the catalog \
         entry to copy into your Cluster's <code>spec.releases.catalog</code>.</p>",
        link(&[view.latest.as_str()]),
        escape(view.latest.as_str())
    );
    b.push_str(
        "<table>\n<tr><th>Release</th><th>Date</th><th>Digest of release.yaml</th>\
         <th class=\"num\">Size</th></tr>\n",
    );
    for r in &view.releases {
        let size: u64 = r.release.artifacts.iter().map(|a| a.size).sum();
        let _ = writeln!(
            b,
            "<tr><td class=\"nowrap\"><a href=\"{}/\">{}</a>{}</td><td class=\"nowrap\">{}</td>\
             <td class=\"digest\">{}</td>\
             <td class=\"num\">{}</td></tr>",
            link(&[r.version.as_str()]),
            escape(r.version.as_str()),
            latest_mark(view, &r.version),
            date_of(&r.version),
            escape(&r.digest),
            human_size(size)
        );
    }
    b.push_str("</table>\n");
    let _ = writeln!(
        b,
        "<p>Machine-readable: <a href=\"{CHANNEL_FILE}\">{CHANNEL_FILE}</a> (the latest \
         release) and <a href=\"{VERSIONS_FILE}\">{VERSIONS_FILE}</a> (every release by \
         digest). Sources of the GPL and LGPL components: <a href=\"{SOURCES_DIR}/\">\
         {SOURCES_DIR}/</a>.</p>"
    );
    b.push_str(
        "<p class=\"muted\">These pages are a view of the documents above. A machine trusts \
         only the digest pinned in its Cluster, and checks every byte against it.</p>\n",
    );
    page("liken releases", &b)
}

/// Renders notes.md: headings, bullet lists and paragraphs, all escaped.
fn render_notes(notes: &str) -> String {
    let mut out = String::new();
    let mut in_list = false;
    for line in notes.lines() {
        let t = line.trim();
        let item = t.strip_prefix("- ").or_else(|| t.strip_prefix("* "));
        if item.is_none() && in_list {
            out.push_str("</ul>\n");
            in_list = false;
        }
        if let Some(item) = item {
            if !in_list {
                out.push_str("<ul>\n");
                in_list = true;
            }
            let _ = writeln!(out, "<li>{}</li>", escape(item));
        } else if let Some(h) = t.strip_prefix('#') {
            let _ = writeln!(out, "<h3>{}</h3>", escape(h.trim_start_matches('#').trim()));
        } else if !t.is_empty() {
            let _ = writeln!(out, "<p>{}</p>", escape(t));
        }
    }
    if in_list {
        out.push_str("</ul>\n");
    }
    out
}

fn release_page(view: &ChannelView, r: &ReleaseView) -> Vec<u8> {
    let v = r.version.as_str();
    let mut b = String::new();
    b.push_str("<nav><a href=\"../\">&larr; all releases</a></nav>\n");
    let _ = writeln!(
        b,
        "<h1>liken {}{}</h1>\n<p class=\"muted\">Published {}.</p>",
        escape(v),
        latest_mark(view, &r.version),
        date_of(&r.version)
    );
    b.push_str("<h2>Catalog entry</h2>\n");
    b.push_str(
        "<p>Copy this entry into <code>spec.releases.catalog</code>, then set \
         <code>spec.version</code> to this release. The digest is the sha256 of this \
         release's <a href=\"release.yaml\">release.yaml</a>.</p>\n",
    );
    let _ = writeln!(b, "<pre>{}</pre>", escape(&catalog_entry(r)));
    b.push_str("<h2>Download</h2>\n");
    let _ = writeln!(
        b,
        "<pre>liken fetch -digest {} \\\n    {} {} channel</pre>",
        escape(&r.digest),
        escape(&view.source),
        escape(v)
    );
    b.push_str(
        "<h2>Artifacts</h2>\n<table>\n<tr><th>File</th><th class=\"num\">Size</th>\
         <th>sha256</th></tr>\n",
    );
    for a in &r.release.artifacts {
        let _ = writeln!(
            b,
            "<tr><td><a href=\"{}\">{}</a></td><td class=\"num\" title=\"{} bytes\">{}</td>\
             <td class=\"digest\">{}</td></tr>",
            link(&[&a.name]),
            escape(&a.name),
            a.size,
            human_size(a.size),
            escape(&a.sha256)
        );
    }
    b.push_str("</table>\n");
    b.push_str("<h2>Components</h2>\n");
    if r.release.components.is_empty() {
        b.push_str("<p class=\"muted\">This release records no components.</p>\n");
    } else {
        b.push_str("<table>\n<tr><th>Component</th><th>Version</th><th>Source</th></tr>\n");
        for c in &r.release.components {
            let prefix = format!("{}/{}/", c.name, c.version);
            let mirrored = view.sources.iter().any(|k| k.starts_with(&prefix));
            let source = if mirrored {
                format!(
                    "<a href=\"../{SOURCES_DIR}/#{}\">mirrored</a>",
                    encode_segment(&anchor(&c.name, &c.version))
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                b,
                "<tr><td>{}</td><td><code>{}</code></td><td>{source}</td></tr>",
                escape(&c.name),
                escape(&c.version)
            );
        }
        b.push_str("</table>\n");
    }
    if let Some(notes) = &r.notes {
        b.push_str("<h2>Changes</h2>\n");
        b.push_str(&render_notes(notes));
    }
    page(&format!("liken {v}"), &b)
}

fn sources_page(view: &ChannelView) -> Vec<u8> {
    let mut b = String::new();
    b.push_str("<nav><a href=\"../\">&larr; all releases</a></nav>\n<h1>Source mirror</h1>\n");
    b.push_str(
        "<p>The source of every GPL and LGPL component that liken redistributes, at \
         <code>sources/&lt;component&gt;/&lt;version&gt;/</code>, keyed by the component's \
         own version. Each release's LICENSES.md gives the notices.</p>\n",
    );
    // component -> version -> files
    let mut tree: BTreeMap<&str, BTreeMap<&str, Vec<&str>>> = BTreeMap::new();
    let mut loose = Vec::new();
    for key in &view.sources {
        let mut parts = key.splitn(3, '/');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(c), Some(v), Some(f)) if !c.is_empty() && !v.is_empty() && !f.is_empty() => {
                tree.entry(c).or_default().entry(v).or_default().push(f);
            }
            _ => loose.push(key.as_str()),
        }
    }
    if tree.is_empty() && loose.is_empty() {
        b.push_str("<p class=\"muted\">The mirror holds no sources yet.</p>\n");
    }
    for (component, versions) in &tree {
        let _ = writeln!(b, "<h2>{}</h2>", escape(component));
        for (version, files) in versions {
            let _ = writeln!(
                b,
                "<h3 id=\"{}\"><code>{}</code></h3>\n<ul>",
                escape(&anchor(component, version)),
                escape(version)
            );
            for f in files {
                let segs: Vec<&str> = [*component, *version]
                    .into_iter()
                    .chain(f.split('/'))
                    .collect();
                let _ = writeln!(b, "<li><a href=\"{}\">{}</a></li>", link(&segs), escape(f));
            }
            b.push_str("</ul>\n");
        }
    }
    if !loose.is_empty() {
        b.push_str("<h2>Other files</h2>\n<ul>\n");
        for f in loose {
            let segs: Vec<&str> = f.split('/').collect();
            let _ = writeln!(b, "<li><a href=\"{}\">{}</a></li>", link(&segs), escape(f));
        }
        b.push_str("</ul>\n");
    }
    page("liken source mirror", &b)
}

/// A 16x16 icon: a green disc, drawn here so the index needs no asset.
pub fn favicon() -> Vec<u8> {
    const N: u32 = 16;
    let pixels = N * N * 4;
    let mask = N * 4; // one bit per pixel, rows padded to 4 bytes
    let image = 40 + pixels + mask;
    let mut out = Vec::with_capacity(22 + image as usize);
    for v in [0u16, 1, 1] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&[N as u8, N as u8, 0, 0]);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&32u16.to_le_bytes());
    out.extend_from_slice(&image.to_le_bytes());
    out.extend_from_slice(&22u32.to_le_bytes());
    for v in [40u32, N, N * 2] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&32u16.to_le_bytes());
    for v in [0u32, pixels + mask, 0, 0, 0, 0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for y in 0..N {
        for x in 0..N {
            let (dx, dy) = (x as f32 - 7.5, y as f32 - 7.5);
            let inside = dx * dx + dy * dy <= 56.0;
            // BGRA; a lighter stripe across the disc.
            let light = inside && (x as i32 - y as i32).abs() <= 1;
            let px = match (inside, light) {
                (false, _) => [0, 0, 0, 0],
                (true, true) => [0x9c, 0xd9, 0xb4, 0xff],
                (true, false) => [0x45, 0x6b, 0x1f, 0xff],
            };
            out.extend_from_slice(&px);
        }
    }
    out.extend(std::iter::repeat_n(0u8, mask as usize));
    out
}

/// The versions.yaml document for `view`.
pub fn versions_document(view: &ChannelView) -> Versions {
    let entries = view
        .releases
        .iter()
        .map(|r| CatalogEntry {
            version: r.version.clone(),
            digest: r.digest.clone(),
        })
        .collect();
    Versions::new(entries, Some(view.latest.clone()))
}

/// Every file of the index.
pub fn render(view: &ChannelView) -> Vec<Page> {
    let mut pages = vec![
        Page {
            path: PathBuf::from(INDEX_FILE),
            bytes: front_page(view),
        },
        Page {
            path: PathBuf::from(VERSIONS_FILE),
            bytes: versions_document(view).to_yaml().into_bytes(),
        },
        Page {
            path: Path::new(SOURCES_DIR).join(INDEX_FILE),
            bytes: sources_page(view),
        },
        Page {
            path: PathBuf::from("favicon.ico"),
            bytes: favicon(),
        },
    ];
    for r in &view.releases {
        pages.push(Page {
            path: Path::new(r.version.as_str()).join(INDEX_FILE),
            bytes: release_page(view, r),
        });
    }
    pages
}

/// Writes every page under `out_dir`, each atomically.
pub fn write_pages(out_dir: &Path, pages: &[Page]) -> Result<(), IndexError> {
    for p in pages {
        let path = out_dir.join(&p.path);
        let write_err = |source| IndexError::Write {
            path: path.clone(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(write_err)?;
        }
        atomic::write(&path, &p.bytes).map_err(write_err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use liken_documents::release::{Artifact, Component};

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    fn view() -> ChannelView {
        let release = |ver: &str| {
            Release::new(
                &v(ver),
                vec![Artifact {
                    name: "vmlinuz".into(),
                    sha256: "ab".repeat(32),
                    size: 1536,
                }],
                vec![Component {
                    name: "linux".into(),
                    version: "6.12<b>".into(),
                }],
            )
        };
        ChannelView {
            source: "http://127.0.0.1:8017".into(),
            latest: v("2026.07.21-001"),
            releases: vec![
                ReleaseView {
                    version: v("2026.07.21-001"),
                    digest: canonical::sha256(b"b"),
                    release: release("2026.07.21-001"),
                    notes: Some("# Changes\n- fix <script>\n- second\n\nprose & more".into()),
                },
                ReleaseView {
                    version: v("2026.07.20-001"),
                    digest: canonical::sha256(b"a"),
                    release: release("2026.07.20-001"),
                    notes: None,
                },
            ],
            sources: vec!["linux/6.12<b>/linux.tar.xz".into(), "README".into()],
        }
    }

    #[test]
    fn keys_are_sorted_into_releases_notes_and_sources() {
        let keys = parse_keys(
            "channel.yaml\n2026.07.20-001/release.yaml\n/2026.07.21-001/release.yaml\n\
             2026.07.21-001/notes.md\n2026.07.21-001/vmlinuz\n2026.02.30-001/release.yaml\n\
             sources/linux/6.12/linux-6.12.tar.xz\nsources/index.html\nsources/\n\n  \n",
        );
        let vs: Vec<&str> = keys.versions.iter().map(Version::as_str).collect();
        assert_eq!(vs, ["2026.07.21-001", "2026.07.20-001"]);
        assert!(keys.notes.contains(&v("2026.07.21-001")));
        assert_eq!(keys.sources, ["linux/6.12/linux-6.12.tar.xz"]);
    }

    #[test]
    fn pages_escape_everything_and_mark_latest() {
        let pages = render(&view());
        let get = |p: &str| {
            let page = pages.iter().find(|x| x.path == Path::new(p)).unwrap();
            String::from_utf8(page.bytes.clone()).unwrap()
        };
        let front = get("index.html");
        assert_eq!(front.matches("class=\"latest\"").count(), 1);
        assert!(front.find("2026.07.21-001").unwrap() < front.find("2026.07.20-001").unwrap());
        let rel = get("2026.07.21-001/index.html");
        assert!(
            rel.contains("- version: &quot;2026.07.21-001&quot;"),
            "{rel}"
        );
        assert!(rel.contains(&canonical::sha256(b"b")));
        assert!(rel.contains("1.5 KiB"));
        assert!(rel.contains("6.12&lt;b&gt;"));
        assert!(rel.contains("fix &lt;script&gt;"));
        assert!(rel.contains("prose &amp; more"));
        assert!(!rel.contains("<script>") && !rel.contains("<b>"));
        assert!(
            rel.contains("href=\"../sources/#linux%406.12%3Cb%3E\""),
            "{rel}"
        );
        let src = get("sources/index.html");
        assert!(
            src.contains("href=\"linux/6.12%3Cb%3E/linux.tar.xz\""),
            "{src}"
        );
        assert!(src.contains("id=\"linux@6.12&lt;b&gt;\""), "{src}");
        let versions = get("versions.yaml");
        let doc = Versions::from_yaml("versions.yaml", versions.as_bytes()).unwrap();
        assert_eq!(doc.latest, Some(v("2026.07.21-001")));
        assert_eq!(doc.releases[0].digest, canonical::sha256(b"b"));
        assert_eq!(doc.releases.len(), 2);
    }

    #[test]
    fn favicon_is_a_16px_icon() {
        let ico = favicon();
        assert_eq!(&ico[..6], &[0, 0, 1, 0, 1, 0]);
        assert_eq!(ico.len(), 22 + 40 + 16 * 16 * 4 + 16 * 4);
    }

    #[test]
    fn sizes_read_like_people_write_them() {
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(1 << 30), "1.0 GiB");
    }
}
