//! The assistant's Markdown catalog, pinned.

toolkit::link_tools!(example_assistant);

#[test]
fn the_assistant_catalog_is_pinned() {
    insta::assert_snapshot!(
        "assistant_catalog",
        toolkit::docs::markdown(toolkit::registry())
    );
}
