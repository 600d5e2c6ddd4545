//! Frames from another site in real Chromium (`localhost` framed by `127.0.0.1`, rendered out of process): captured under their `<iframe>` with refs and the oracle, typed into, chosen in and clicked, redacted, covered frames refused by name, nested frames, refs that stay stable across steps, and a frame's own listeners read at every capture.

use std::path::Path;

use pagesnap_browser::{
    self as capture, Chromium, ChromiumSession, Failure, Live, Needs, OpenOptions, Outcome,
    UserAction, split_key,
};
use pagesnap_engine::recording::NodeKind;
use pagesnap_engine::strategy::{self, Options};
use pagesnap_harness::live::server::Server;

use crate::support::root;

async fn aria(session: &ChromiumSession) -> Live {
    session
        .observe(strategy::by_name("aria").unwrap(), &Options::default())
        .await
        .unwrap()
}

/// The backend id (node key) of the item named `name` in `live`.
fn key_of(live: &Live, role: &str, name: &str) -> u64 {
    live.observation
        .meta
        .items
        .iter()
        .find(|i| i.role == role && i.name == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", live.observation.text))
        .backend_id
}

async fn perform(session: &ChromiumSession, action: UserAction) -> Outcome {
    session.perform(&action).await.unwrap()
}

#[test]
fn a_payment_form_from_another_site_is_seen_typed_into_and_submitted() {
    let server = Server::start(&root().join("fixtures/sites")).unwrap();
    let runtime = capture::runtime().unwrap();
    runtime.block_on(async {
        let chromium = Chromium::launch(false).await.unwrap();
        let session = chromium
            .open(
                &server.url("iframe_form/cross.html"),
                &OpenOptions::default(),
            )
            .await
            .unwrap();

        // The recording holds the frame's document under its <iframe>, its
        // nodes keyed by a frame number, the oracle's nodes with them.
        let (captured, _) = session.capture_with(Needs::RECORD).await.unwrap();
        let recording = &captured.recording;
        assert!(recording.capture.missing_frames.is_empty());
        let inner = recording
            .nodes
            .iter()
            .position(|n| n.kind == NodeKind::IframeDocument)
            .unwrap();
        let owner = recording.nodes[inner].parent.unwrap() as usize;
        assert_eq!(recording.nodes[owner].tag, "iframe");
        let pay = recording
            .nodes
            .iter()
            .find(|n| n.attrs.iter().any(|(k, v)| k == "id" && v == "pay"))
            .unwrap();
        let (frame, _) = split_key(pay.backend_id);
        assert!(frame > 0, "the frame's nodes carry its number");
        let ax = recording.ax.nodes("cross").unwrap();
        assert!(
            ax.iter()
                .any(|a| a.backend_id == Some(pay.backend_id) && a.role == "button"),
            "the oracle holds the frame's nodes, keyed alike"
        );
        // Geometry is in the page's coordinates: the button is inside the frame's box.
        let (fb, pb) = (recording.nodes[owner].bounds.unwrap(), pay.bounds.unwrap());
        assert!(
            pb.x >= fb.x && pb.y >= fb.y && pb.x + pb.width <= fb.x + fb.width + 1.0,
            "{pb:?} in {fb:?}"
        );
        let counts = recording.counts.unwrap();
        assert!(
            counts.iframe > 20,
            "the frame's elements are counted: {counts:?}"
        );

        // Every strategy shows the frame's fields with refs.
        for name in ["aria", "flat", "structural", "som", "html-pruned"] {
            let live = session
                .observe(strategy::by_name(name).unwrap(), &Options::default())
                .await
                .unwrap();
            let items = &live.observation.meta.items;
            for field in ["Card holder name", "Card number", "Pay"] {
                assert!(
                    items
                        .iter()
                        .any(|i| i.name == field && split_key(i.backend_id).0 > 0),
                    "{name}: no ref for {field:?}"
                );
            }
        }

        // Act inside the frame as a user: type, choose, click.
        let before = aria(&session).await;
        let number = key_of(&before, "textbox", "Card number");
        for (role, name, text) in [
            ("textbox", "Card holder name", "Ada Lovelace"),
            ("textbox", "Card number", "4242 4242 4242 4242"),
            ("textbox", "Expiry date", "12/27"),
        ] {
            let backend_id = key_of(&before, role, name);
            let outcome = perform(
                &session,
                UserAction::Type {
                    backend_id: Some(backend_id),
                    text: text.to_owned(),
                },
            )
            .await;
            assert_eq!(outcome, Outcome::Done { note: None }, "{name}");
        }
        let country = key_of(&before, "combobox", "Country");
        let outcome = perform(
            &session,
            UserAction::Select {
                backend_id: country,
                value: "Portugal".to_owned(),
            },
        )
        .await;
        assert_eq!(outcome, Outcome::Done { note: None });

        // The card number typed into the other site's field is redacted like
        // any other, and its ref did not move.
        let after = aria(&session).await;
        assert_eq!(key_of(&after, "textbox", "Card number"), number);
        let field = after
            .observation
            .text
            .lines()
            .find(|l| l.contains("textbox \"Card number\""))
            .unwrap()
            .to_owned();
        assert!(!after.observation.text.contains("4242 4242"), "{field}");
        assert!(after.observation.text.contains("Ada Lovelace"));

        let pay = key_of(&after, "button", "Pay");
        let outcome = perform(&session, UserAction::click(pay)).await;
        assert_eq!(outcome, Outcome::Done { note: None });
        // The frame told the page what was submitted.
        let told = session
            .eval("document.documentElement.dataset.payment ?? null")
            .await
            .unwrap();
        let fields: serde_json::Value = serde_json::from_str(told.as_str().unwrap()).unwrap();
        assert_eq!(fields["holder"], "Ada Lovelace");
        assert_eq!(fields["number"], "4242424242424242");
        assert_eq!(fields["country"], "PT");
        session.close().await;
        chromium.close().await.unwrap();
    });
}

/// Pages of this test's own: a frame from the other site under an overlay,
/// and a frame nested in a frame from another site.
fn write_pages(dir: &Path) {
    std::fs::write(
        dir.join("inner.html"),
        r#"<!DOCTYPE html><title>inner</title>
<button id="go" onclick="document.title = 'clicked'">Go inside</button>
<div id="cover" style="position:absolute; left:0; top:0; width:200px; height:60px; background:#fff; display:none">Inner cover</div>
<script>
  addEventListener('message', (e) => { if (e.data === 'cover') document.getElementById('cover').style.display = 'block'; });
</script>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("top.html"),
        r#"<!DOCTYPE html><title>top</title>
<iframe id="f" title="Other site" style="position:absolute; left:20px; top:40px; width:400px; height:200px; border:5px solid #000"></iframe>
<div id="veil" style="position:absolute; left:0; top:0; width:600px; height:400px; display:none">A veil over the frame</div>
<script>
  const url = new URL('inner.html', location.href); url.hostname = 'localhost';
  document.getElementById('f').src = url.href;
</script>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("middle.html"),
        r#"<!DOCTYPE html><title>middle</title>
<p>Middle frame</p>
<iframe id="g" title="Back home" style="width:300px; height:120px"></iframe>
<script>
  const url = new URL('inner.html', location.href); url.hostname = '127.0.0.1';
  document.getElementById('g').src = url.href;
</script>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("nested.html"),
        r#"<!DOCTYPE html><title>nested</title>
<iframe id="m" title="Middle" style="width:500px; height:300px"></iframe>
<script>
  const url = new URL('middle.html', location.href); url.hostname = 'localhost';
  document.getElementById('m').src = url.href;
</script>"#,
    )
    .unwrap();
}

#[test]
fn covered_frames_nested_frames_and_frames_that_leave_are_handled_by_name() {
    let dir = tempfile::tempdir().unwrap();
    write_pages(dir.path());
    let server = Server::start(dir.path()).unwrap();
    let runtime = capture::runtime().unwrap();
    runtime.block_on(async {
        let chromium = Chromium::launch(false).await.unwrap();
        let session = chromium
            .open(&server.url("top.html"), &OpenOptions::default())
            .await
            .unwrap();
        let live = aria(&session).await;
        let go = key_of(&live, "button", "Go inside");
        assert!(split_key(go).0 > 0);

        // The frame covered on the page: `covered`, naming the veil.
        session
            .eval("document.getElementById('veil').style.display = 'block'")
            .await
            .unwrap();
        match perform(&session, UserAction::click(go)).await {
            Outcome::Failed {
                kind: Failure::Covered,
                message,
            } => assert!(message.contains("veil"), "{message}"),
            other => panic!("{other:?}"),
        }
        session
            .eval("document.getElementById('veil').style.display = 'none'")
            .await
            .unwrap();

        // The element covered inside its own frame: `covered`, naming the cover.
        // (The page cannot reach into the frame: it asks it by postMessage.)
        session
            .eval("document.getElementById('f').contentWindow.postMessage('cover', '*')")
            .await
            .unwrap();
        let started = std::time::Instant::now();
        while !aria(&session)
            .await
            .observation
            .text
            .contains("Inner cover")
        {
            assert!(
                started.elapsed().as_secs() < 10,
                "the frame never showed its cover"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        match perform(&session, UserAction::click(go)).await {
            Outcome::Failed {
                kind: Failure::Covered,
                message,
            } => assert!(message.contains("Inner cover"), "{message}"),
            other => panic!("{other:?}"),
        }

        // The frame leaves the page: its refs are stale, not an error.
        session
            .eval("document.getElementById('f').remove()")
            .await
            .unwrap();
        let gone = aria(&session).await;
        assert!(!gone.observation.text.contains("Go inside"));
        match perform(&session, UserAction::click(go)).await {
            Outcome::Failed {
                kind: Failure::Stale,
                ..
            } => {}
            other => panic!("{other:?}"),
        }

        // Nested: 127.0.0.1 → localhost → 127.0.0.1, each frame's content under its <iframe>.
        let nested = chromium
            .open(&server.url("nested.html"), &OpenOptions::default())
            .await
            .unwrap();
        let live = aria(&nested).await;
        let text = &live.observation.text;
        assert!(text.contains("iframe \"Middle\""), "{text}");
        assert!(text.contains("Middle frame"), "{text}");
        assert!(text.contains("iframe \"Back home\""), "{text}");
        let go = key_of(&live, "button", "Go inside");
        let outcome = perform(&nested, UserAction::click(go)).await;
        assert_eq!(outcome, Outcome::Done { note: None });
        // Refs stay where they were across steps.
        assert_eq!(key_of(&aria(&nested).await, "button", "Go inside"), go);
        nested.close().await;
        session.close().await;
        chromium.close().await.unwrap();
    });
}

/// A frame of another site has its own listeners read at every capture
/// (through a handle on its document asked for that capture and released
/// after it): the element a script made a hover target there is one, in the
/// first capture and the next.
#[test]
fn a_frame_of_another_site_has_its_listeners_read_at_every_capture() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("listened.html"),
        r#"<!DOCTYPE html><title>listened</title>
<div id="menu">Menu</div><div id="plain">Plain</div>
<script>document.getElementById('menu').addEventListener('mouseenter', () => {});</script>"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("host.html"),
        r#"<!DOCTYPE html><title>host</title>
<iframe id="f" title="Other site" style="width:400px; height:200px"></iframe>
<script>
  const url = new URL('listened.html', location.href); url.hostname = 'localhost';
  document.getElementById('f').src = url.href;
</script>"#,
    )
    .unwrap();
    let server = Server::start(dir.path()).unwrap();
    let runtime = capture::runtime().unwrap();
    runtime.block_on(async {
        let chromium = Chromium::launch(false).await.unwrap();
        let session = chromium
            .open(&server.url("host.html"), &OpenOptions::default())
            .await
            .unwrap();
        for capture in ["first", "second"] {
            let recording = session.capture().await.unwrap().recording;
            let hovered: Vec<&str> = recording
                .nodes
                .iter()
                .filter(|node| node.hover)
                .filter_map(|node| {
                    node.attrs
                        .iter()
                        .find(|(name, _)| name == "id")
                        .map(|(_, value)| value.as_str())
                })
                .collect();
            assert_eq!(hovered, ["menu"], "the {capture} capture's hover targets");
        }
        session.close().await;
        chromium.close().await.unwrap();
    });
}
