//! Any bytes given to the Cluster parser give a document or an error, never
//! a panic; an accepted document renders canonically and parses back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use liken_documents::{ClusterDocument, canonical};

fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = ClusterDocument::from_yaml("fuzz", data) {
        let rendered = canonical::cluster(&doc.metadata.name, &doc.spec);
        let back = ClusterDocument::from_yaml("rendered", &rendered.bytes)
            .expect("a canonical rendering parses");
        assert_eq!(canonical::cluster(&back.metadata.name, &back.spec), rendered);
    }
});
