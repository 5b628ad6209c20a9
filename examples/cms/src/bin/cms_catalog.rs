//! Prints the CMS's catalog as JSON catalog entries: the routing benchmark's
//! `bench/routing/data/cms.json`.
//!
//! `cargo run -p example-cms --bin cms_catalog > bench/routing/data/cms.json`

fn main() {
    print!("{}", example_cms::catalog_json());
}
