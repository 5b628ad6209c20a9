//! Replays every seed and every kept regression input through the targets'
//! code, on stable: `cargo test --lib --no-default-features` in `fuzz/`.
//!
//! Only the files directly in `regressions/<target>/` are replayed: inputs that
//! must pass. Findings still open in code another branch owns are kept in
//! `regressions/<target>/open/` with a `.txt` saying what breaks (RELIABILITY.md).

use std::path::Path;

fn replay(directory: &str, run: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(directory);
    let mut count = 0;
    let Ok(entries) = std::fs::read_dir(&root) else {
        return 0;
    };
    let mut paths: Vec<_> = entries
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.is_file())
        .collect();
    paths.sort();
    for path in paths {
        let data = std::fs::read(&path).expect("readable input");
        println!("replaying {}", path.display());
        run(&data);
        count += 1;
    }
    count
}

#[test]
fn dispatch_seeds_and_regressions() {
    assert!(replay("seeds/dispatch", crate::dispatch::run) > 0);
    replay("regressions/dispatch", crate::dispatch::run);
}

#[test]
fn schema_seeds_and_regressions() {
    assert!(replay("seeds/schema", crate::schema::run) > 0);
    replay("regressions/schema", crate::schema::run);
}
