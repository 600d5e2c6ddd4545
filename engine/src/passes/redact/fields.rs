//! The field rule: inputs whose value is secret by what the field is (a password, a card number, a token), read from its type, name, id, autocomplete, label and placeholder.

use std::sync::LazyLock;

use super::redact;
use crate::analyze::Analysis;
use crate::page::{Namespace, Page};

/// Words in a field's name, id, autocomplete, label or placeholder that mark it secret.
pub(super) const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "pin",
    "passcode",
    "secret",
    "token",
    "api key",
    "apikey",
    "api_key",
    "api-key",
    "access key",
    "private key",
    "card number",
    "cardnumber",
    "card_number",
    "cc-number",
    "ccnumber",
    "cc-csc",
    "cvv",
    "cvc",
    "csc",
    "security code",
    "ssn",
    "social security",
    "one-time-code",
    "otp",
    "iban",
    "pin code",
];

/// Per node: an input/textarea whose value is secret by what the field is.
pub fn secret_fields(page: &Page, analysis: &Analysis) -> Vec<bool> {
    // `_` and `-` count as spaces on both sides, so `api_key`, `api-key` and
    // `api key` are one word; every secret word starts with a letter. Made
    // once per process: a page without fields should not pay for it.
    static WORDS: LazyLock<Vec<String>> = LazyLock::new(|| {
        SECRET_WORDS
            .iter()
            .map(|w| w.replace(['_', '-'], " "))
            .collect()
    });
    let mut out = vec![false; page.len()];
    // One buffer for every field: lowercased, `_`/`-` as spaces.
    let mut haystack = String::new();
    let push = |haystack: &mut String, text: &str| {
        haystack.extend(text.chars().map(|c| match c {
            '_' | '-' => ' ',
            c => c.to_ascii_lowercase(),
        }));
    };
    for element in page.elements() {
        let e = element.value();
        if e.ns != Namespace::Html || !(e.name == "input" || e.name == "textarea") {
            continue;
        }
        // The one reading of `type` (trimmed, any case), as the states and
        // names read it: `type=" password"` is a password field to all three.
        if crate::analyze::dom::has_input_type(e, "password") {
            out[element.id().index()] = true;
            continue;
        }
        haystack.clear();
        for key in [
            "name",
            "id",
            "autocomplete",
            "aria-label",
            "placeholder",
            "title",
        ] {
            if let Some(v) = e.attr(key) {
                push(&mut haystack, v);
                haystack.push(' ');
            }
        }
        if let Some(name) = analysis.name(element.id()) {
            push(&mut haystack, &name.text);
        }
        let hit = contains_any_word(&haystack, &WORDS);
        let value_secret = || {
            element
                .layout()
                .value
                .as_deref()
                .or_else(|| e.attr("value"))
                .is_some_and(|v| redact(v).1 != 0)
        };
        out[element.id().index()] = hit || value_secret();
    }
    out
}

/// Whether one of `words` (ASCII, each starting with a letter) occurs in
/// `haystack` with no ASCII letter or digit just before or after it. One
/// pass over the word starts; a word only ever matches at one.
pub(super) fn contains_any_word(haystack: &str, words: &[String]) -> bool {
    let bytes = haystack.as_bytes();
    let alnum = |at: usize| bytes.get(at).is_some_and(u8::is_ascii_alphanumeric);
    (0..bytes.len())
        .filter(|&at| alnum(at) && (at == 0 || !alnum(at - 1)))
        .any(|at| {
            words.iter().any(|word| {
                // The first byte first: most starts match no word.
                word.as_bytes().first() == Some(&bytes[at])
                    && bytes[at..].starts_with(word.as_bytes())
                    && !alnum(at + word.len())
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_fields_match_whole_words_of_name_id_autocomplete_and_label() {
        let page = crate::page::Page::from_html(
            "<input id=a name=api_key><input id=b name=user-password>\
             <input id=c autocomplete=one-time-code><input id=d aria-label='Card number'>\
             <input id=e name=passwordless><input id=f name=hotpink><input id=g type=password>\
             <label>Your CVV <input id=h></label><input id=i value=4242424242424242>\
             <input id=j name=q placeholder='Search tokens…'><input id=k name=tokenizer>",
        );
        let analysis = crate::analyze::Analysis::new(&page);
        let secret = secret_fields(&page, &analysis);
        let is_secret = |id: &str| {
            let selector =
                crate::page::Selector::parse(&format!("#{id}")).unwrap_or_else(|e| panic!("{e}"));
            let element = page
                .select(&selector)
                .next()
                .unwrap_or_else(|| panic!("#{id}"));
            secret[element.id().index()]
        };
        for id in ["a", "b", "c", "d", "g", "h", "i"] {
            assert!(is_secret(id), "#{id} is secret");
        }
        // `tokens` is not the word `token`; `passwordless`, `hotpink`, `tokenizer` hold no word.
        for id in ["e", "f", "j", "k"] {
            assert!(!is_secret(id), "#{id} is not secret");
        }
    }
}
