//! Writes the Cluster and Machine reference pages into the directory given
//! (docs/reference).

fn main() -> std::io::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "docs/reference".to_owned());
    std::fs::create_dir_all(&dir)?;
    for (name, body) in liken_documents::refdoc::pages() {
        let path = std::path::Path::new(&dir).join(name);
        std::fs::write(&path, body)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
