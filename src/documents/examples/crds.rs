//! Writes the generated CRDs into the directory given (manifests/).

fn main() -> std::io::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "manifests".to_owned());
    for (name, body) in liken_documents::crd::files() {
        let path = std::path::Path::new(&dir).join(name);
        std::fs::write(&path, body)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
