//! Recording schema: round trip, and errors that name the file and the field.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::sync::Arc;

use pagesnap_engine::recording::{
    AxNode, AxOracle, DomCounts, NodeKind, Point, RecNode, Recording, RecordingError, Rect, SCHEMA,
    ScrollState, Size, Style, Viewport,
};

fn sample() -> Recording {
    let node = |parent: Option<u32>, kind: NodeKind, tag: &str| RecNode {
        parent,
        kind,
        tag: tag.to_owned(),
        ..RecNode::default()
    };
    let mut nodes = vec![
        node(None, NodeKind::Document, ""),
        node(Some(0), NodeKind::Element, "html"),
        node(Some(1), NodeKind::Element, "body"),
        node(Some(2), NodeKind::Element, "input"),
        node(Some(2), NodeKind::Element, "my-card"),
        node(Some(4), NodeKind::ShadowRootOpen, ""),
        node(Some(5), NodeKind::Element, "button"),
        node(Some(6), NodeKind::Text, ""),
    ];
    nodes[3].attrs = vec![
        ("type".into(), "password".into()),
        ("name".into(), "pw".into()),
    ]
    .into();
    nodes[3].value = Some("hunter2".into());
    nodes[3].bounds = Some(Rect {
        x: 8.0,
        y: 10.5,
        width: 200.0,
        height: 21.0,
    });
    nodes[3].style = Some(Arc::new(Style {
        display: "inline-block".into(),
        visibility: "visible".into(),
        opacity: 0.5,
        position: "static".into(),
        z_index: "auto".into(),
        cursor: "text".into(),
        overflow_x: "clip".into(),
        overflow_y: "clip".into(),
        pointer_events: "auto".into(),
        background_color: "rgb(255, 255, 255)".into(),
        color: "rgb(31, 41, 51)".into(),
        font_size: Some(13.0),
        clip_path: "inset(100%)".into(),
        text_shadow: "rgb(0, 0, 0) 1px 1px 0px".into(),
        ..Style::default()
    }));
    nodes[3].paint_order = Some(3);
    nodes[3].backdrop = Some("rgb(255, 255, 255)".into());
    nodes[3].backend_id = 42;
    nodes[2].scroll = Some(ScrollState {
        x: 0.0,
        y: 120.0,
        width: 1280.0,
        height: 4000.0,
        client_width: 1280.0,
        client_height: 720.0,
    });
    nodes[6].clickable = true;
    nodes[7].text = Some("Go ✓".into());
    Recording {
        schema: SCHEMA.to_owned(),
        url: "file:fixtures/sites/x/index.html".into(),
        title: "X".into(),
        captured_at: "2026-11-22T00:00:00Z".into(),
        browser: "Chrome/156".into(),
        viewport: Viewport {
            width: 1280.0,
            height: 720.0,
            device_scale_factor: 1.0,
        },
        scroll: Point { x: 0.0, y: 120.0 },
        document_size: Size {
            width: 1280.0,
            height: 4000.0,
        },
        focused: Some(3),
        nodes,
        ax: AxOracle::from_nodes(vec![
            AxNode {
                backend_id: Some(42),
                role: "textbox".into(),
                name: "Password".into(),
                ignored: false,
            },
            AxNode {
                backend_id: None,
                role: "StaticText".into(),
                name: String::new(),
                ignored: true,
            },
        ]),
        counts: Some(DomCounts {
            document: 4,
            shadow: 1,
            iframe: 0,
        }),
        capture: Default::default(),
    }
}

#[test]
fn round_trip_is_identical() {
    let recording = sample();
    let bytes = recording.to_gz_bytes().unwrap();
    let back = Recording::from_gz_bytes(&bytes, "sample.json.gz").unwrap();
    assert_eq!(back, recording);
    // Encoding is deterministic too.
    assert_eq!(back.to_gz_bytes().unwrap(), bytes);
}

/// The oracle is written as the array of AX node objects it always was, so
/// readers from before it was parsed lazily read new files, and a decoded
/// oracle is written back unchanged.
#[test]
fn the_oracle_keeps_its_json_shape() {
    #[derive(serde::Deserialize)]
    struct EarlierReader {
        ax: Vec<AxNode>,
    }

    let recording = sample();
    let json = serde_json::to_string(&recording).unwrap();
    let array = r#""ax":[{"backend_id":42,"role":"textbox","name":"Password"},{"role":"StaticText","ignored":true}]"#;
    assert!(json.contains(array), "{json}");
    let earlier: EarlierReader = serde_json::from_str(&json).unwrap();
    assert_eq!(earlier.ax, *recording.ax.nodes("sample").unwrap());

    let back = Recording::from_json_bytes(json.as_bytes(), "sample.json").unwrap();
    assert_eq!(
        back.ax.nodes("sample.json").unwrap(),
        recording.ax.nodes("sample").unwrap()
    );
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
}

#[test]
fn oracles_are_equal_by_their_nodes() {
    let recording = sample();
    let json = json_with(|v| v["ax"][0]["name"] = "Passphrase".into());
    let changed = Recording::from_json_bytes(&json, "changed.json").unwrap();
    assert_ne!(changed, recording);
    assert_ne!(changed.ax, AxOracle::default());
    let json = json_with(|_| {});
    let same = Recording::from_json_bytes(&json, "same.json").unwrap();
    assert_eq!(same, recording);
    assert_eq!(same.clone(), same);
}

/// Decoding only checks that `ax` is well-formed JSON; its shape is checked
/// when it is parsed, with the same error as any other field.
#[test]
fn a_malformed_oracle_names_the_file_and_field_when_parsed() {
    let json = json_with(|v| v["ax"][1]["role"] = 7.into());
    let recording = Recording::from_json_bytes(&json, "fixtures/a/b.json").unwrap();
    let err = recording.ax.nodes("fixtures/a/b.json").unwrap_err();
    assert!(matches!(err, RecordingError::Field { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "fixtures/a/b.json: field `ax[1].role`: invalid type: integer `7`, expected a string"
    );

    let json = json_with(|v| {
        v["ax"][0].as_object_mut().unwrap().remove("role");
    });
    let recording = Recording::from_json_bytes(&json, "r.json").unwrap();
    let err = recording.ax.nodes("r.json").unwrap_err().to_string();
    assert_eq!(err, "r.json: field `ax[0]`: missing field `role`");

    let json = json_with(|v| v["ax"] = serde_json::json!({"role": "button"}));
    let recording = Recording::from_json_bytes(&json, "r.json").unwrap();
    let err = recording.ax.nodes("r.json").unwrap_err().to_string();
    assert!(
        err.starts_with("r.json: field `ax`: invalid type: map"),
        "{err}"
    );

    let json = json_with(|v| {
        v.as_object_mut().unwrap().remove("ax");
    });
    let recording = Recording::from_json_bytes(&json, "r.json").unwrap();
    assert!(recording.ax.nodes("r.json").unwrap().is_empty());
}

fn json_with(edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let mut value = serde_json::to_value(sample()).unwrap();
    edit(&mut value);
    serde_json::to_vec(&value).unwrap()
}

#[test]
fn truncated_gzip_names_the_file() {
    let bytes = sample().to_gz_bytes().unwrap();
    let err =
        Recording::from_gz_bytes(&bytes[..bytes.len() / 2], "fixtures/a/b.json.gz").unwrap_err();
    assert!(matches!(err, RecordingError::Gzip { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with("fixtures/a/b.json.gz: "),
        "{err}"
    );
}

#[test]
fn wrong_type_names_the_field_path() {
    let json = json_with(|v| v["nodes"][3]["bounds"]["x"] = "left".into());
    let err = Recording::from_json_bytes(&json, "r.json")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("r.json") && err.contains("nodes[3].bounds.x"),
        "{err}"
    );

    let json = json_with(|v| v["viewport"]["width"] = serde_json::Value::Bool(true));
    let err = Recording::from_json_bytes(&json, "r.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("viewport.width"), "{err}");

    let json = json_with(|v| v["nodes"][1]["kind"] = "comment".into());
    let err = Recording::from_json_bytes(&json, "r.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("nodes[1].kind"), "{err}");
}

#[test]
fn newer_or_missing_schema_is_refused() {
    let json = json_with(|v| v["schema"] = "pagesnap.recording/2".into());
    let err = Recording::from_json_bytes(&json, "new.json").unwrap_err();
    assert!(matches!(err, RecordingError::Schema { .. }));
    let text = err.to_string();
    assert!(
        text.contains("new.json")
            && text.contains("`schema`")
            && text.contains("pagesnap.recording/2"),
        "{text}"
    );

    // A newer file whose nodes changed shape still fails on `schema`.
    let json = json_with(|v| {
        v["schema"] = "pagesnap.recording/2".into();
        v["nodes"] = serde_json::json!({"columns": []});
    });
    let err = Recording::from_json_bytes(&json, "new.json").unwrap_err();
    assert!(matches!(err, RecordingError::Schema { .. }), "{err}");

    let json = json_with(|v| {
        v.as_object_mut().unwrap().remove("schema");
    });
    let err = Recording::from_json_bytes(&json, "old.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("old.json") && err.contains("schema"), "{err}");
}

#[test]
fn broken_tree_order_is_refused() {
    // Node 7 (text) claims node 3 as parent, but node 3's subtree ended at 3.
    let json = json_with(|v| v["nodes"][7]["parent"] = 3.into());
    let err = Recording::from_json_bytes(&json, "t.json")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("nodes[7]") && err.contains("document order"),
        "{err}"
    );

    let json = json_with(|v| v["nodes"][2]["parent"] = 5.into());
    let err = Recording::from_json_bytes(&json, "t.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("nodes[2]"), "{err}");

    let json = json_with(|v| v["focused"] = 99.into());
    let err = Recording::from_json_bytes(&json, "t.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("focused"), "{err}");
}

/// Issue 17: a zero or negative viewport was accepted and strategies printed
/// `0.0 pages below`. Decoding refuses it, naming the field and the value.
#[test]
fn a_viewport_without_area_or_scale_is_refused() {
    for (field, value, shown) in [
        ("width", serde_json::json!(0.0), "0"),
        ("height", serde_json::json!(-720), "-720"),
        ("device_scale_factor", serde_json::json!(0), "0"),
        ("width", serde_json::json!(-0.5), "-0.5"),
    ] {
        let json = json_with(|v| v["viewport"][field] = value.clone());
        let err = Recording::from_json_bytes(&json, "v.json").unwrap_err();
        assert!(matches!(err, RecordingError::Field { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!("v.json: field `viewport.{field}`: must be a positive number, found {shown}")
        );
    }
    let json = json_with(|v| v["viewport"]["device_scale_factor"] = 0.25.into());
    assert!(Recording::from_json_bytes(&json, "v.json").is_ok());
}

#[test]
fn not_json_at_all_is_a_clear_error() {
    let err = Recording::from_json_bytes(b"<html>", "page.json")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("page.json: "), "{err}");
}
