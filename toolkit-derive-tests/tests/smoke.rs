use serde_json::json;
toolkit::link_tools!(other_tools);

#[test]
fn smoke() {
    let registry = toolkit::registry();
    for tool in registry {
        println!(
            "{} {}",
            tool.name,
            serde_json::to_string_pretty(tool.schema()).unwrap()
        );
    }
    let ctx = toolkit::Context::new().with(toolkit_derive_tests::TaskStore::default());
    let r = futures_executor::block_on(registry.call(
        "create_tasks",
        r#"{"tasks":[{"title":"a"}]}"#,
        &ctx,
    ));
    println!("{}", r.to_json());
    let r = futures_executor::block_on(registry.call("get_task", r#"{"limit":"x"}"#, &ctx));
    println!("{}", r.to_json());
    let r = futures_executor::block_on(registry.call("set_mood", r#"{"mood":"angry"}"#, &ctx));
    println!("{}", r.to_json());
    let _ = json!(1);
}
