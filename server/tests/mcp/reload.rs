//! Hot reload: a corpus published while the server runs is swapped in whole; requests in flight finish
//! on the corpus they started on; a corpus that does not open leaves the previous one serving.

use std::{os::unix::fs::symlink, path::Path, sync::Arc};

use axum::{body::Body, http::Request};
use server::transport::{
    http::{HttpConfig, HttpState},
    reload::{Reload, Reloader},
};

use crate::support::{corpus_dir, post, send};

/// Points `out_dir/current` at `target` the way the bake publishes: a new link renamed over the old.
fn publish(out_dir: &Path, target: &str) {
    let staged = out_dir.join("current.next");
    let _ = std::fs::remove_file(&staged);
    symlink(target, &staged).unwrap();
    std::fs::rename(&staged, out_dir.join("current")).unwrap();
}

#[tokio::test]
async fn a_published_corpus_is_swapped_in_and_a_broken_one_changes_nothing() {
    // Two published versions (links to the test corpus under two names) and a broken one.
    let out = tempfile::tempdir().unwrap();
    let real = corpus::manifest::current_dir(corpus_dir()).unwrap();
    let real = std::fs::canonicalize(real).unwrap();
    symlink(&real, out.path().join("first")).unwrap();
    symlink(&real, out.path().join("second")).unwrap();
    std::fs::create_dir(out.path().join("broken")).unwrap();
    std::fs::write(out.path().join("broken/manifest.json"), "{ not a manifest").unwrap();
    // A corpus whose manifest and tables open, but whose discoveries (read on first use) are torn.
    std::fs::create_dir(out.path().join("torn")).unwrap();
    for entry in std::fs::read_dir(&real).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if name == "discoveries.json" {
            std::fs::write(out.path().join("torn").join(name), "{").unwrap();
        } else {
            symlink(&path, out.path().join("torn").join(name)).unwrap();
        }
    }
    publish(out.path(), "first");

    let state = Arc::new(HttpState::new(
        server::build(out.path()).unwrap(),
        HttpConfig::local(true, 1000),
    ));
    let reloader = Reloader::new(
        &state,
        out.path().to_path_buf(),
        Box::new(|dir: &Path| server::build_verified(dir)),
    );
    assert_eq!(reloader.check(&state, false), Reload::Unchanged);

    // A request that started before the swap keeps its corpus.
    let in_flight = state.server();
    publish(out.path(), "second");
    let Reload::Loaded { from, to } = reloader.check(&state, false) else {
        panic!("the second corpus loads");
    };
    assert_eq!(from, to, "the same content under another name");
    assert!(!Arc::ptr_eq(&in_flight, &state.server()));
    assert!(
        state
            .server()
            .plugin()
            .corpus()
            .baked
            .dir()
            .ends_with("second")
    );
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"resolve_metric","arguments":{"query":"esperanza de vida"}}}"#;
    let old_answer = in_flight.handle_text(ping).into_body().unwrap();
    assert!(old_answer.contains("sp_dyn_le00_in"), "{old_answer}");
    assert_eq!(reloader.check(&state, false), Reload::Unchanged);

    // A broken corpus is refused, named, and the second one goes on serving.
    publish(out.path(), "broken");
    let Reload::Failed(error) = reloader.check(&state, false) else {
        panic!("the broken corpus is refused");
    };
    assert!(error.contains("manifest"), "{error}");
    assert!(
        state
            .server()
            .plugin()
            .corpus()
            .baked
            .dir()
            .ends_with("second")
    );
    // Refused once, not again at every poll; a torn artifact is refused too, naming it.
    assert_eq!(reloader.check(&state, false), Reload::Unchanged);
    publish(out.path(), "torn");
    let Reload::Failed(error) = reloader.check(&state, false) else {
        panic!("the torn corpus is refused");
    };
    assert!(error.contains("discoveries.json"), "{error}");
    let serving = state.server();
    assert!(serving.plugin().corpus().baked.dir().ends_with("second"));
    let (response, bytes) = send(&state, post(ping, &[])).await;
    assert_eq!(response.status(), 200);
    assert!(String::from_utf8(bytes).unwrap().contains("sp_dyn_le00_in"));

    // SIGHUP reloads even when the pointer has not moved.
    publish(out.path(), "second");
    assert!(matches!(
        reloader.check(&state, true),
        Reload::Loaded { .. }
    ));
    let (_, metrics) = send(
        &state,
        Request::get("/metrics").body(Body::empty()).unwrap(),
    )
    .await;
    let metrics = String::from_utf8(metrics).unwrap();
    assert!(
        metrics.contains("lac_corpus_corpus_reloads_total{outcome=\"failed\"}"),
        "{metrics}"
    );
}

/// A corpus is warm once read ahead of its calls (a reload warms the new one before the swap), and not
/// before: what the transport waits for before it measures a tool's calls (`transport::call_costs`).
#[test]
fn a_corpus_is_warm_once_read_ahead_and_not_before() {
    let corpus = server::load::load_corpus(corpus_dir()).unwrap();
    assert!(!corpus.is_warm(), "nothing read ahead yet");
    corpus.warm().unwrap();
    assert!(corpus.is_warm());
    let plugin = server::tools::Plugin::new(Arc::new(corpus), server::tools::all()).unwrap();
    assert!(plugin.is_warm(), "the plugin says what its corpus says");
}
