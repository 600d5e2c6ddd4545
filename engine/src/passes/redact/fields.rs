//! The field rule: inputs whose value is secret by what the field is (a password, a card number, a token), read from its type, name, id, autocomplete, label and placeholder.

use super::vocabulary::names_secret_field;
use super::{Kind, Place, redact_each};
use crate::analyze::Analysis;
use crate::page::{Namespace, Page};

/// Per node: an input/textarea whose value is secret by what the field is.
pub fn secret_fields(page: &Page, analysis: &Analysis) -> Vec<bool> {
    let mut out = vec![false; page.len()];
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
        let named = [
            "name",
            "id",
            "autocomplete",
            "aria-label",
            "placeholder",
            "title",
        ]
        .into_iter()
        .filter_map(|key| e.attr(key))
        .chain(analysis.name(element.id()).map(|name| name.text.as_str()))
        .any(names_secret_field);
        // A value with a credential's shape (a card, a key with a vendor's
        // prefix, a JWT) makes any field secret; a merely random-looking
        // one does not (form build ids, cache keys).
        let value_secret = || {
            element
                .layout()
                .value
                .as_deref()
                .or_else(|| e.attr("value"))
                .is_some_and(|v| {
                    let mut shaped = false;
                    redact_each(v, Place::Field, &mut |_, kind, _| {
                        shaped |= kind != Kind::Random;
                    });
                    shaped
                })
        };
        out[element.id().index()] = named || value_secret();
    }
    out
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
