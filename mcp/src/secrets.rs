//! Known secrets (`--secrets FILE`, dotenv): shown to the agent as `<secret:NAME>`, typed by the server when a value says `{secret:NAME}`, never echoed.

use std::path::Path;

use anyhow::{Context, Result, bail};

/// The secrets of `--secrets`, longest value first (so a value that contains
/// another is masked whole).
#[derive(Clone, Debug, Default)]
pub struct Secrets {
    entries: Vec<(String, String)>,
}

impl Secrets {
    /// Reads a dotenv file: `NAME=value` lines, `#` comments, an optional
    /// `export ` prefix, values optionally in single or double quotes.
    pub fn load(path: &Path) -> Result<Secrets> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("--secrets {}: could not read the file", path.display()))?;
        Secrets::parse(&text).with_context(|| format!("--secrets {}", path.display()))
    }

    /// Parses dotenv text (see [`Secrets::load`]).
    pub fn parse(text: &str) -> Result<Secrets> {
        let mut entries: Vec<(String, String)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let line = line.strip_prefix("export ").unwrap_or(line);
            let Some((name, value)) = line.split_once('=') else {
                bail!("line {}: expected NAME=value", n + 1);
            };
            let name = name.trim();
            let valid = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                bail!(
                    "line {}: {name:?} is not a secret name (letters, digits, _)",
                    n + 1
                );
            }
            let value = value.trim();
            let value = ['"', '\'']
                .iter()
                .find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q)))
                .unwrap_or(value);
            if value.is_empty() {
                bail!("line {}: secret {name} is empty", n + 1);
            }
            if entries.iter().any(|(known, _)| known == name) {
                bail!("line {}: secret {name} is given twice", n + 1);
            }
            entries.push((name.to_owned(), value.to_owned()));
        }
        entries.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
        Ok(Secrets { entries })
    }

    /// The names, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.entries.iter().map(|(n, _)| n.as_str()).collect();
        names.sort_unstable();
        names
    }

    /// `text` with every known value replaced by `<secret:NAME>`.
    pub fn mask(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (name, value) in &self.entries {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), &format!("<secret:{name}>"));
            }
        }
        out
    }

    /// Every string in `value` masked ([`Secrets::mask`]).
    pub fn mask_json(&self, value: &mut serde_json::Value) {
        if self.entries.is_empty() {
            return;
        }
        match value {
            serde_json::Value::String(s) => *s = self.mask(s),
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| self.mask_json(v)),
            serde_json::Value::Object(map) => map.values_mut().for_each(|v| self.mask_json(v)),
            _ => {}
        }
    }

    /// `{secret:NAME}` in `text` replaced by the secret's value; an unknown
    /// name is an error naming the known ones.
    pub fn substitute(&self, text: &str) -> Result<String, String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("{secret:") {
            out.push_str(&rest[..start]);
            let after = &rest[start + "{secret:".len()..];
            let Some(end) = after.find('}') else {
                return Err("unclosed {secret:NAME} in the value".to_owned());
            };
            let name = &after[..end];
            match self.entries.iter().find(|(n, _)| n == name) {
                Some((_, value)) => out.push_str(value),
                None => {
                    return Err(format!(
                        "unknown secret {name:?} (known: {})",
                        if self.entries.is_empty() {
                            "none; give them with --secrets FILE".to_owned()
                        } else {
                            self.names().join(", ")
                        }
                    ));
                }
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_masks_and_substitutes() {
        let secrets = Secrets::parse(
            "# comment\nexport API_TOKEN=\"tok-123-abc\"\nPASSWORD='hunter2'\nPIN=tok\n",
        )
        .unwrap();
        assert_eq!(secrets.names(), ["API_TOKEN", "PASSWORD", "PIN"]);
        // The longer value is masked whole, not as `<secret:PIN>-123-abc`.
        assert_eq!(
            secrets.mask("key tok-123-abc, pw hunter2, tok"),
            "key <secret:API_TOKEN>, pw <secret:PASSWORD>, <secret:PIN>"
        );
        assert_eq!(
            secrets.substitute("{secret:PASSWORD}!").unwrap(),
            "hunter2!"
        );
        let err = secrets.substitute("{secret:NOPE}").unwrap_err();
        assert!(err.contains("NOPE") && err.contains("PASSWORD"), "{err}");
    }

    #[test]
    fn bad_lines_are_named() {
        let err = Secrets::parse("OK=1\nnot a line\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2"), "{err}");
        let err = Secrets::parse("A=\n").unwrap_err().to_string();
        assert!(err.contains("empty"), "{err}");
        let err = Secrets::parse("A=1\nA=2\n").unwrap_err().to_string();
        assert!(err.contains("twice"), "{err}");
    }
}
