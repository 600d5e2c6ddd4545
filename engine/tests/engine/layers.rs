//! The engine's layers: imports between its top-level modules run one way (docs/architecture.md), read from its source.
//!
//! The map is built from `engine/src/**/*.rs`: every path a file names
//! through `crate::`, `super::`, `self::` or a child module, in `use` items
//! and in code (comments, literals and `#[cfg(test)]` items left out), is
//! resolved to the file of the deepest module it reaches, and each file
//! belongs to the layer of its top-level module.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

/// The engine's top-level modules by layer, lowest first. A module imports
/// its own layer and those before it, never one after: the recording is
/// plain data (its dialog record too), the outputs an observation is made
/// of sit above the analysis they report, passes produce those outputs,
/// and strategies render through the passes.
const LAYERS: &[&[&str]] = &[
    &["bytes", "chunk", "class", "digits"],
    &["geom", "color"],
    &["recording"],
    &["page"],
    &["analyze"],
    &["observation", "dialog"],
    &["passes"],
    &["strategy"],
    &["testing"],
];

/// The allowed direction, as the failure states it.
fn allowed() -> String {
    let layers: Vec<String> = LAYERS.iter().map(|layer| layer.join(", ")).collect();
    format!(
        "a module imports its own layer and those before it, never one after: {}",
        layers.join(" ← ")
    )
}

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// One import: the file naming a module, on which line, and the module's file.
#[derive(Clone, Debug)]
struct Import {
    from: String,
    line: usize,
    to: String,
}

impl Import {
    fn top(file: &str) -> &str {
        file.split(['/', '.']).next().unwrap_or(file)
    }

    fn describe(&self) -> String {
        format!(
            "engine/src/{}:{} → engine/src/{}",
            self.from, self.line, self.to
        )
    }
}

/// A module's path below the crate root: `passes/redact/mod.rs` is
/// `["passes", "redact"]`, `recording.rs` is `["recording"]`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if parts
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
        parts.pop();
    }
    parts
}

/// `text` with comments, string and character literals blanked (lines kept).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, span: &[char]| {
        out.extend(span.iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
    };
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        let end = if rest.starts_with(&['/', '/']) {
            rest.iter().position(|&c| c == '\n').unwrap_or(rest.len())
        } else if rest.starts_with(&['/', '*']) {
            let (mut depth, mut j) = (1, 2);
            while j < rest.len() && depth > 0 {
                if rest[j..].starts_with(&['/', '*']) {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with(&['*', '/']) {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            j
        } else if let Some(end) = raw_string_len(rest).filter(|_| i == 0 || !word(chars[i - 1])) {
            end
        } else if rest[0] == '"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != '"' {
                j += if rest[j] == '\\' { 2 } else { 1 };
            }
            (j + 1).min(rest.len())
        } else if rest[0] == '\'' {
            char_literal_len(rest).unwrap_or(0)
        } else {
            0
        };
        if end == 0 {
            out.push(rest[0]);
            i += 1;
        } else {
            blank(&mut out, &rest[..end]);
            i += end;
        }
    }
    out
}

/// The length of a raw string literal (`r"…"`, `br#"…"#`) at the start of `rest`.
fn raw_string_len(rest: &[char]) -> Option<usize> {
    let start = usize::from(rest.first() == Some(&'b'));
    if rest.get(start) != Some(&'r') {
        return None;
    }
    let hashes = rest[start + 1..].iter().take_while(|&&c| c == '#').count();
    let open = start + 1 + hashes;
    if rest.get(open) != Some(&'"') {
        return None;
    }
    let close = (open + 1..rest.len()).find(|&j| {
        rest[j] == '"'
            && rest[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
    })?;
    Some(close + 1 + hashes)
}

/// The length of a character literal at the start of `rest`; `None` for a
/// lifetime (`'a`).
fn char_literal_len(rest: &[char]) -> Option<usize> {
    if rest.get(1) == Some(&'\\') {
        // '\'' and '\\' end at the fourth char; '\n', '\x41', '\u{…}' at the next quote.
        let from = 3;
        return (from..rest.len().min(14))
            .find(|&j| rest[j] == '\'')
            .map(|j| j + 1);
    }
    (rest.get(2) == Some(&'\'')).then_some(3)
}

/// `code` with each `#[cfg(test)]` item (the in-file unit tests) blanked.
fn without_test_items(code: &str) -> String {
    const ATTRIBUTE: &str = "#[cfg(test)]";
    let mut out = code.to_owned();
    while let Some(start) = out.find(ATTRIBUTE) {
        let bytes = out.as_bytes();
        let mut end = start + ATTRIBUTE.len();
        while end < bytes.len() && bytes[end] != b'{' && bytes[end] != b';' {
            end += 1;
        }
        if bytes.get(end) == Some(&b'{') {
            let mut depth = 0;
            while end < bytes.len() {
                match bytes[end] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                end += 1;
            }
        }
        let end = (end + 1).min(out.len());
        let blanked: String = out[start..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(start..end, &blanked);
    }
    out
}

#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    PathSep,
    Open,
    Close,
    Comma,
    Star,
    Other,
}

fn tokens(code: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Token::Word(chars[start..i].iter().collect()), line));
            continue;
        }
        let token = match c {
            ':' if chars.get(i + 1) == Some(&':') => {
                i += 1;
                Token::PathSep
            }
            '{' => Token::Open,
            '}' => Token::Close,
            ',' => Token::Comma,
            '*' => Token::Star,
            '\n' => {
                line += 1;
                i += 1;
                continue;
            }
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            _ => Token::Other,
        };
        out.push((token, line));
        i += 1;
    }
    out
}

/// The paths `code` names: each leaf of a `use` tree, and each path in code
/// that starts at `crate`, `super` or `self`; with its line.
fn named_paths(code: &str) -> Vec<(Vec<String>, usize)> {
    let tokens = tokens(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].0 {
            Token::Word(w) if w == "use" => {
                i += 1;
                use_tree(&tokens, &mut i, Vec::new(), &mut out);
            }
            Token::Word(w)
                if matches!(w.as_str(), "crate" | "super" | "self")
                    && tokens.get(i + 1).is_some_and(|t| t.0 == Token::PathSep)
                    && (i == 0 || tokens[i - 1].0 != Token::PathSep) =>
            {
                let line = tokens[i].1;
                let mut path = vec![w.clone()];
                i += 1;
                while let (Some((Token::PathSep, _)), Some((Token::Word(next), _))) =
                    (tokens.get(i), tokens.get(i + 1))
                {
                    path.push(next.clone());
                    i += 2;
                }
                out.push((path, line));
            }
            _ => i += 1,
        }
    }
    out
}

/// Reads one `use` tree from `tokens[*i]` under `prefix`, pushing its leaves.
fn use_tree(
    tokens: &[(Token, usize)],
    i: &mut usize,
    mut prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, usize)>,
) {
    let mut line = tokens.get(*i).map_or(0, |t| t.1);
    loop {
        match tokens.get(*i).map(|t| &t.0) {
            Some(Token::Word(w)) if w == "as" => {
                *i += 2;
                break;
            }
            Some(Token::Word(w)) => {
                if w != "self" || prefix.is_empty() {
                    prefix.push(w.clone());
                }
                line = tokens[*i].1;
                *i += 1;
            }
            Some(Token::PathSep) => *i += 1,
            Some(Token::Star) => {
                *i += 1;
                break;
            }
            Some(Token::Open) => {
                *i += 1;
                loop {
                    match tokens.get(*i).map(|t| &t.0) {
                        None => return,
                        Some(Token::Close) => {
                            *i += 1;
                            return;
                        }
                        Some(Token::Comma) => *i += 1,
                        Some(_) => use_tree(tokens, i, prefix.clone(), out),
                    }
                }
            }
            _ => break,
        }
    }
    if !prefix.is_empty() {
        out.push((prefix, line));
    }
}

/// The deepest module of `modules` that `path`, named in module `here`, reaches.
fn resolve(
    path: &[String],
    here: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let (mut module, rest): (Vec<String>, &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (here.to_vec(), &path[1..]),
        Some("super") => {
            let ups = path.iter().take_while(|s| *s == "super").count();
            (
                here[..here.len().saturating_sub(ups)].to_vec(),
                &path[ups..],
            )
        }
        Some(child) if modules.contains(&[here, &[child.to_owned()]].concat()) => {
            (here.to_vec(), path)
        }
        _ => return None,
    };
    let mut deepest = modules.contains(&module).then(|| module.clone());
    for segment in rest {
        module.push(segment.clone());
        if !modules.contains(&module) {
            break;
        }
        deepest = Some(module.clone());
    }
    deepest
}

/// Every import between two files of `src`, in file and line order.
fn imports(src: &Path) -> Vec<Import> {
    let mut files = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let file = path
                    .strip_prefix(src)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.insert(
                    module_of(&file),
                    (file, std::fs::read_to_string(&path).unwrap()),
                );
            }
        }
    }
    let modules: BTreeSet<Vec<String>> = files.keys().cloned().collect();
    let mut out = Vec::new();
    for (here, (file, text)) in &files {
        for (path, line) in named_paths(&without_test_items(&code_only(text))) {
            let Some(target) = resolve(&path, here, &modules) else {
                continue;
            };
            if target.is_empty() || target == *here {
                continue;
            }
            out.push(Import {
                from: file.clone(),
                line,
                to: files[&target].0.clone(),
            });
        }
    }
    out
}

/// The shortest chain of imports from top-level module `from` to `to`.
fn chain<'a>(
    graph: &BTreeMap<&'a str, BTreeMap<&'a str, &'a Import>>,
    from: &'a str,
    to: &'a str,
) -> Option<Vec<&'a Import>> {
    let mut came: BTreeMap<&str, &Import> = BTreeMap::new();
    let mut queue = VecDeque::from([from]);
    let mut seen = BTreeSet::from([from]);
    while let Some(module) = queue.pop_front() {
        if module == to {
            let mut hops = Vec::new();
            let mut at = to;
            while at != from {
                let import = came[at];
                hops.push(import);
                at = Import::top(&import.from);
            }
            hops.reverse();
            return Some(hops);
        }
        for (&next, &import) in graph.get(module).into_iter().flatten() {
            if seen.insert(next) {
                came.insert(next, import);
                queue.push_back(next);
            }
        }
    }
    None
}

#[test]
fn imports_between_the_engines_layers_run_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let imports = imports(&src);
    // The first import of each top-level module by another stands for them all.
    let mut graph: BTreeMap<&str, BTreeMap<&str, &Import>> = BTreeMap::new();
    for import in &imports {
        let (from, to) = (Import::top(&import.from), Import::top(&import.to));
        if from != to && from != "lib" {
            graph.entry(from).or_default().entry(to).or_insert(import);
        }
    }
    let mut failures = Vec::new();
    let mut cycles = BTreeSet::new();
    for (&from, targets) in &graph {
        for (&to, &import) in targets {
            let (Some(low), Some(high)) = (layer(to), layer(from)) else {
                failures.push(format!(
                    "{}: `{from}` or `{to}` is in no layer of LAYERS",
                    import.describe()
                ));
                continue;
            };
            if low < high {
                continue;
            }
            // An import up or across: name the cycle it closes, if any.
            match chain(&graph, to, from) {
                Some(back) => {
                    let mut names = vec![from];
                    names.extend(back.iter().map(|i| Import::top(&i.from)));
                    // Two modules of one layer importing each other close one cycle, met twice.
                    if !cycles.insert(names.iter().copied().collect::<BTreeSet<_>>()) {
                        continue;
                    }
                    names.push(from);
                    let hops: Vec<String> = std::iter::once(import)
                        .chain(back)
                        .map(|i| format!("    {}", i.describe()))
                        .collect();
                    failures.push(format!("cycle {}:\n{}", names.join(" → "), hops.join("\n")));
                }
                None if low > high => failures.push(format!(
                    "{} imports a later layer ({from} → {to})",
                    import.describe()
                )),
                None => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "the engine's imports break its layers ({}):\n{}",
        allowed(),
        failures.join("\n")
    );
}

#[test]
fn the_import_map_sees_the_engines_own_imports() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let imports = imports(&src);
    let has = |from: &str, to: &str| imports.iter().any(|i| i.from == from && i.to == to);
    assert!(has("page/build.rs", "recording.rs"));
    assert!(has("strategy/flat.rs", "passes/budget.rs"));
    assert!(has("analyze/mod.rs", "analyze/role.rs"), "a re-export");
    assert!(
        has("analyze/states.rs", "analyze/value.rs"),
        "a `super::` path"
    );
}

#[test]
fn the_import_map_reads_use_trees_and_paths_in_code() {
    let text = r##"
        use crate::{a::{self, b::C}, d as e};
        pub(crate) use super::f::*;
        use std::io;
        // use crate::commented;
        const S: &str = "crate::quoted"; const R: &str = r#"crate::raw"#;
        fn g<'x>(c: char) -> bool { c == '"' && crate::h::i(1) }
        #[cfg(test)]
        mod tests { use crate::testing; }
    "##;
    let paths: Vec<String> = named_paths(&without_test_items(&code_only(text)))
        .into_iter()
        .map(|(path, line)| format!("{}@{line}", path.join("::")))
        .collect();
    assert_eq!(
        paths,
        [
            "crate::a@2",
            "crate::a::b::C@2",
            "crate::d@2",
            "super::f@3",
            "std::io@4",
            "crate::h::i@7",
        ]
    );
}
