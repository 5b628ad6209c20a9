//! Prints the assistant example's tools as a Markdown catalog for people.
//!
//! ```sh
//! cargo run -p routing-bench --bin catalog
//! ```

// The assistant's tools are in the registry only if its crate is linked.
toolkit::link_tools!(example_assistant);

fn main() {
    print!("{}", toolkit::docs::markdown(toolkit::registry()));
}
