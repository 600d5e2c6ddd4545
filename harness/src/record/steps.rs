//! The `--then` steps: `click SELECTOR; type SELECTOR TEXT; select SELECTOR VALUE; scroll PX; wait MS`, parsed into the browser's [`Step`]s.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use pagesnap_browser::Step;

/// Parses one step, e.g. `type "#user name" ada@example.com`. Tokens are
/// split on whitespace; double quotes group a token.
pub fn parse(step: &str) -> Result<Step> {
    let tokens = split_tokens(step).with_context(|| format!("in step {step:?}"))?;
    let Some((verb, args)) = tokens.split_first() else {
        bail!("empty step");
    };
    let want = |n: usize, usage: &str| -> Result<()> {
        if args.len() != n {
            bail!("step {step:?}: expected `{usage}`");
        }
        Ok(())
    };
    Ok(match verb.as_str() {
        "click" => {
            want(1, "click SELECTOR")?;
            Step::Click(args[0].clone())
        }
        "type" => {
            if args.len() < 2 {
                bail!("step {step:?}: expected `type SELECTOR TEXT`");
            }
            Step::Type(args[0].clone(), args[1..].join(" "))
        }
        "select" => {
            want(2, "select SELECTOR VALUE")?;
            Step::Select(args[0].clone(), args[1].clone())
        }
        "scroll" => {
            want(1, "scroll PX")?;
            let px = args[0].parse::<f64>().with_context(|| {
                format!("step {step:?}: `{}` is not a number of pixels", args[0])
            })?;
            Step::Scroll(px)
        }
        "wait" => {
            want(1, "wait MS")?;
            let ms = args[0]
                .trim_end_matches("ms")
                .parse::<u64>()
                .with_context(|| {
                    format!(
                        "step {step:?}: `{}` is not a number of milliseconds",
                        args[0]
                    )
                })?;
            Step::Wait(Duration::from_millis(ms))
        }
        other => bail!(
            "step {step:?}: unknown action `{other}` (expected click, type, select, scroll or wait)"
        ),
    })
}

/// Parses a `;`-separated sequence (the `--then` flag).
pub fn parse_sequence(text: &str) -> Result<Vec<Step>> {
    text.split(';')
        .map(str::trim)
        .filter(|step| !step.is_empty())
        .map(parse)
        .collect()
}

fn split_tokens(text: &str) -> Result<Vec<String>> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    let mut has_token = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                in_quotes = !in_quotes;
                has_token = true;
            }
            '\\' if in_quotes => {
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            c if c.is_whitespace() && !in_quotes => {
                if has_token {
                    tokens.push(std::mem::take(&mut current));
                    has_token = false;
                }
            }
            c => {
                current.push(c);
                has_token = true;
            }
        }
    }
    if in_quotes {
        bail!("unclosed double quote");
    }
    if has_token {
        tokens.push(current);
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_action() {
        let actions =
            parse_sequence(r#"click #go; type "form input[name=q]" hello world; select #c DE; scroll -300; wait 50ms"#)
                .unwrap();
        assert_eq!(
            actions,
            vec![
                Step::Click("#go".into()),
                Step::Type("form input[name=q]".into(), "hello world".into()),
                Step::Select("#c".into(), "DE".into()),
                Step::Scroll(-300.0),
                Step::Wait(Duration::from_millis(50)),
            ]
        );
    }

    #[test]
    fn rejects_bad_steps_with_the_step_named() {
        let err = parse("hover #x").unwrap_err().to_string();
        assert!(
            err.contains("hover #x") && err.contains("unknown action"),
            "{err}"
        );
        let err = parse("scroll lots").unwrap_err().to_string();
        assert!(err.contains("lots"), "{err}");
        assert!(parse(r##"click "#x"##).is_err());
    }
}
