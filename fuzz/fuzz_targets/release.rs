//! The channel's documents (Release, Channel, Versions) come from a network
//! peer: any bytes give a document or an error, never a panic, and an
//! accepted Release names only plain file names.
#![no_main]
use libfuzzer_sys::fuzz_target;
use liken_documents::release::{Channel, Release, Versions, safe_file_name};

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = Release::from_yaml("fuzz", data) {
        assert!(r.artifacts.iter().all(|a| safe_file_name(&a.name)));
    }
    let _ = Channel::from_yaml("fuzz", data);
    let _ = Versions::from_yaml("fuzz", data);
});
