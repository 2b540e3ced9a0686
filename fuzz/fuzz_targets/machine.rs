//! Any bytes given to the Machine parser give a document or an error, never
//! a panic; an accepted document renders canonically and parses back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use liken_documents::{MachineDocument, canonical};

fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = MachineDocument::from_yaml("fuzz", data) {
        let rendered = canonical::machine(&doc.metadata.name, &doc.spec);
        let back = MachineDocument::from_yaml("rendered", &rendered.bytes)
            .expect("a canonical rendering parses");
        assert_eq!(canonical::machine(&back.metadata.name, &back.spec), rendered);
    }
});
