//! The Cluster and Machine reference pages, rendered from the CRDs.
//!
//! Each object in a schema becomes a section with a table of its fields
//! (type, whether required, the description, and the pattern, enum, default
//! and rules the schema enforces), so a page says exactly what the API server
//! accepts. `make docs` writes them to docs/reference/; a test keeps the
//! committed pages current.

use std::fmt::Write as _;

use serde_json::Value;

/// The pages, as (file name under docs/reference/, contents).
pub fn pages() -> Vec<(&'static str, String)> {
    crate::crd::files()
        .into_iter()
        .map(|(crd, body)| {
            let value: Value = serde_yaml::from_str(&body).unwrap_or_default();
            let title = value["spec"]["names"]["kind"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            let page = if title == "Cluster" {
                "cluster.md"
            } else {
                "machine.md"
            };
            (page, page_of(crd, &title, &value))
        })
        .collect()
}

fn page_of(crd: &str, title: &str, value: &Value) -> String {
    let schema = &value["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    let mut md = format!(
        "<!-- Generated from manifests/{crd} by `make docs`. Do not edit. -->\n\n# {title}\n\n{}\n",
        schema["description"].as_str().unwrap_or("")
    );
    for part in ["spec", "status"] {
        section(&mut md, part, &schema["properties"][part], 2);
    }
    md
}

fn type_of(s: &Value) -> String {
    match s["type"].as_str() {
        Some("array") => format!("[]{}", type_of(&s["items"])),
        Some("object") if s.get("properties").is_none() => match s.get("additionalProperties") {
            Some(v) => format!("map[string]{}", type_of(v)),
            None => "object".into(),
        },
        Some(t) => t.into(),
        None => "any".into(),
    }
}

/// The object schema a field leads to, if it leads to one with properties.
fn object_of(s: &Value) -> Option<&Value> {
    if s.get("properties").is_some() {
        return Some(s);
    }
    match s["type"].as_str() {
        Some("array") => object_of(&s["items"]),
        _ => None,
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
        .replace("\n\n", "<br><br>")
        .replace('\n', " ")
}

fn section(md: &mut String, path: &str, schema: &Value, depth: usize) {
    let Some(props) = schema["properties"].as_object() else {
        return;
    };
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let _ = writeln!(md, "\n{} {path}\n", "#".repeat(depth.min(6)));
    if let Some(d) = schema["description"].as_str() {
        let _ = writeln!(md, "{d}\n");
    }
    md.push_str("| Field | Type | Required | Description |\n| --- | --- | --- | --- |\n");
    let mut children = Vec::new();
    for (name, field) in props {
        let mut desc = field["description"].as_str().unwrap_or("").to_owned();
        if let Some(p) = field["pattern"]
            .as_str()
            .or(field["items"]["pattern"].as_str())
        {
            let _ = write!(desc, " Pattern: `{p}`.");
        }
        if let Some(e) = field["enum"]
            .as_array()
            .or(field["items"]["enum"].as_array())
        {
            let values: Vec<String> = e
                .iter()
                .map(|v| format!("`{}`", v.as_str().unwrap_or("")))
                .collect();
            let _ = write!(desc, " One of: {}.", values.join(", "));
        }
        if let Some(d) = field.get("default") {
            let _ = write!(desc, " Default: `{d}`.");
        }
        for rule in field["x-kubernetes-validations"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(m) = rule["message"].as_str() {
                let _ = write!(desc, " Rule: {m}.");
            }
        }
        let child_path = format!("{path}.{name}");
        let ty = type_of(field);
        let ty = if object_of(field).is_some() {
            let anchor = child_path.replace('.', "").to_lowercase();
            format!(
                "[{}](#{anchor})",
                ty.replace('[', "\\[").replace(']', "\\]")
            )
        } else {
            ty
        };
        let req = if required.contains(&name.as_str()) {
            "yes"
        } else {
            "no"
        };
        let _ = writeln!(md, "| `{name}` | {ty} | {req} | {} |", cell(desc.trim()));
        if let Some(obj) = object_of(field) {
            children.push((child_path, obj));
        }
    }
    for (child_path, obj) in children {
        section(md, &child_path, obj, depth + 1);
    }
}
