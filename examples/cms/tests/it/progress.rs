//! `importImage`, the CMS's slow tool, reports its steps through `Progress`; a
//! failed import reports none of them.

use std::sync::{Arc, Mutex};

use example_cms::{Cms, registry};
use futures_executor::block_on;
use serde_json::json;
use toolkit::{
    Context,
    call::{Progress, ProgressUpdate},
};

fn update(progress: f64, message: &str) -> ProgressUpdate {
    ProgressUpdate {
        progress,
        total: Some(3.0),
        message: Some(message.to_owned()),
    }
}

#[test]
fn an_import_reports_each_step_to_the_applications_callback() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let cms = Cms::sample();
    let ctx = Context::new()
        .with(cms.clone())
        .with(Progress::new(move |update| {
            sink.lock().unwrap().push(update);
        }));

    let response = block_on(registry().call_value(
        "importImage",
        &json!({"url": "https://stock.example.com/croissant.jpg", "alt": "Croissants"}),
        &ctx,
    ));
    assert_eq!(
        response.to_json(),
        json!({"result": {"id": 15, "slug": "croissant", "url": "https://cdn.example.com/croissant.jpg", "alt": "Croissants"}})
    );
    assert_eq!(
        *seen.lock().unwrap(),
        [
            update(1.0, "found the image; fetching it"),
            update(2.0, "fetched; adding it to the media library"),
            update(3.0, "imported"),
        ]
    );

    // Importing it again fails before the first step: nothing is reported.
    seen.lock().unwrap().clear();
    let again = block_on(registry().call_value(
        "importImage",
        &json!({"url": "https://stock.example.com/croissant.jpg", "alt": "Again"}),
        &ctx,
    ));
    assert!(again.error().is_some(), "{again:?}");
    assert_eq!(*seen.lock().unwrap(), []);
    assert_eq!(cms.images().len(), 2);
}
