//! Redaction: secret fields (passwords, card numbers, tokens, SSNs) and secret-looking values never reach the model.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::LazyLock;

use crate::analyze::{Analysis, whitespace};
use crate::bytes;
use crate::chunk::{self, Chunk};
use crate::page::{Namespace, Node, NodeId, Page};

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// Words in a field's name, id, autocomplete, label or placeholder that mark it secret.
const SECRET_WORDS: &[&str] = &[
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
fn contains_any_word(haystack: &str, words: &[String]) -> bool {
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

/// Replaces secret-looking tokens (JWTs, API keys, long high-entropy
/// strings, Luhn-valid card numbers, US SSNs) in free text. Returns the text
/// and the number of replacements.
pub fn redact_text(text: &str) -> (String, usize) {
    let (out, count) = redact(text);
    (out.into_owned(), count)
}

/// [`redact_text`] without a copy when nothing is secret, which is nearly
/// always: one pass over the text, allocating only when it replaces. Words
/// shorter than the shortest secret are stepped over byte by byte.
pub fn redact(text: &str) -> (Cow<'_, str>, usize) {
    let mut out: Option<String> = None;
    // `text[copied..]` is still to be copied into `out` once it exists.
    let mut copied = 0;
    let count = scan(text, &mut |range| {
        let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
        out.push_str(&text[copied..range.start]);
        out.push_str(REDACTED);
        copied = range.end;
    });
    match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            (Cow::Owned(out), count)
        }
        None => (Cow::Borrowed(text), 0),
    }
}

/// The byte ranges of `text` that [`redact`] replaces, in order.
pub fn secret_ranges(text: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    scan(text, &mut |range| ranges.push(range));
    ranges
}

/// The one pass behind [`redact`]: calls `found` with each secret's range,
/// in order and disjoint; returns how many there were.
fn scan(text: &str, report: &mut dyn FnMut(Range<usize>)) -> usize {
    scan_with(text, report, true)
}

/// [`scan`], stepping over what can start no secret at once when `skip`
/// holds, character by character when not (the tests compare the two).
fn scan_with(text: &str, report: &mut dyn FnMut(Range<usize>), skip: bool) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut at = 0;
    // The character before `at` in the text (`None` at the start).
    let mut before: Option<char> = None;
    // The end of the last range found: ranges stay in order and disjoint.
    let last_end = std::cell::Cell::new(0);
    let found = &mut |range: Range<usize>| {
        last_end.set(range.end);
        report(range);
    };
    // The last token read: its start, end and whether it holds a digit.
    let mut token = (usize::MAX, 0, false);
    let mut token_at = |at: usize| {
        if token.0 != at {
            let (end, digit) = token_end(text, at);
            token = (at, end, digit);
        }
        (token.1, token.2)
    };
    while at < bytes.len() {
        if skip && before.is_none_or(char::is_whitespace) {
            let next = plain_words_end(bytes, at);
            if next > at {
                // Whatever whitespace came last: `before` is only asked
                // whether it is whitespace or alphanumeric.
                before = Some(' ');
                at = next;
                continue;
            }
        }
        if skip {
            let b = bytes[at];
            // A space between words starts nothing.
            if b == b' ' {
                before = Some(' ');
                at += 1;
                continue;
            }
            // Nor does a short word without digits (an IBAN's head holds
            // two, a PEM line opens with `-`): the token rule below would
            // step over it too.
            if b.is_ascii_graphic() && b != b'-' && before.is_none_or(char::is_whitespace) {
                let (end, digit) = token_at(at);
                if end - at < MIN_SECRET && !digit {
                    before = match bytes[end - 1] {
                        last if last.is_ascii() => Some(char::from(last)),
                        _ => text[..end].chars().next_back(),
                    };
                    at = end;
                    continue;
                }
            }
        }
        // A PEM private key block spans lines, and its last line may be too
        // short to look secret on its own: the whole block goes. A text
        // that starts inside a block (the last words of a page, cut for a
        // context) loses the key lines before its end line too.
        if bytes[at] == b'-' {
            let block = pem_private_key_end(text, at)
                .map(|end| (at, end))
                .or_else(|| pem_tail(text, at, last_end.get()));
            if let Some((start, end)) = block {
                found(start..end);
                count += 1;
                before = text[..end].chars().next_back();
                at = end;
                continue;
            }
        }
        // IBANs span spaces too (`DE89 3704 0044 …`).
        if bytes[at].is_ascii_uppercase() && before.is_none_or(|c| !c.is_ascii_alphanumeric()) {
            if let Some(end) = iban_end(bytes, at) {
                found(at..end);
                count += 1;
                before = Some(char::from(bytes[end - 1]));
                at = end;
                continue;
            }
        }
        // Card numbers and SSNs span spaces/dashes, so check digit runs first.
        if bytes[at].is_ascii_digit() && before.is_none_or(|c| !c.is_ascii_alphanumeric()) {
            let end = digit_run_end(bytes, at);
            let run = &text[at..end];
            let boundary_after = text[end..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_ascii_alphanumeric());
            if boundary_after && run.len() >= MIN_DIGIT_RUN && (is_card(run) || is_ssn(run)) {
                found(at..end);
                count += 1;
                before = Some(char::from(bytes[end - 1]));
                at = end;
                continue;
            }
        }
        let c = match bytes[at] {
            b if b.is_ascii() => char::from(b),
            _ => text[at..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER),
        };
        // Whitespace-delimited tokens; none shorter than MIN_SECRET can hold one.
        if !c.is_whitespace() && before.is_none_or(char::is_whitespace) {
            let (end, digit) = token_at(at);
            if end - at >= MIN_SECRET {
                let n = redact_token(text, at..end, found);
                if n > 0 || (skip && !may_start_more(&bytes[at..end], digit)) {
                    count += n;
                    before = text[..end].chars().next_back();
                    at = end;
                    continue;
                }
            } else if !digit {
                // A short word without digits starts no secret anywhere in it.
                before = text[..end].chars().next_back();
                at = end;
                continue;
            }
        }
        before = Some(c);
        at += c.len_utf8();
        // Inside a token only a `-` (a PEM line), or an uppercase letter or
        // a digit after a character that is not alphanumeric (an IBAN, a
        // card number), can start a secret: the ASCII bytes in between are
        // stepped over at once.
        if skip && !c.is_whitespace() {
            let mut last = c;
            while let Some(&b) = bytes.get(at) {
                // Outside ASCII only whitespace ends the token, and few
                // characters may be whitespace: the rest are stepped a
                // character at a time.
                if !b.is_ascii() {
                    if whitespace::may_be_space(bytes, at) {
                        let c = text[at..]
                            .chars()
                            .next()
                            .unwrap_or(char::REPLACEMENT_CHARACTER);
                        if c.is_whitespace() {
                            break;
                        }
                        at += c.len_utf8();
                    } else {
                        // `at` starts a character: all of it goes.
                        at += whitespace::char_width(b);
                    }
                    // Neither alphanumeric nor whitespace, as the character is.
                    last = char::REPLACEMENT_CHARACTER;
                    continue;
                }
                let starts = b == b'-'
                    || ((b.is_ascii_uppercase() || b.is_ascii_digit())
                        && !last.is_ascii_alphanumeric());
                if !b.is_ascii() || b.is_ascii_whitespace() || b == 0x0b || starts {
                    break;
                }
                last = char::from(b);
                at += 1;
            }
            before = Some(last);
        }
    }
    count
}

/// Whether a token [`redact_token`] found nothing in may still start a
/// secret past its first character: a card or SSN (nine digits at least,
/// or digits running on past its end), an IBAN (`AA99`) or a PEM line.
/// `digit` tells whether the token holds an ASCII digit: without one, only
/// a PEM line can start.
fn may_start_more(token: &[u8], digit: bool) -> bool {
    if !digit {
        return memchr::memchr_iter(b'-', token).any(|i| token[i..].starts_with(b"-----"));
    }
    let mut digits = 0;
    let mut dashes = 0;
    // How much of `AA99` the bytes read so far end with.
    let mut iban = 0;
    for &b in token {
        digits += usize::from(b.is_ascii_digit());
        dashes = if b == b'-' { dashes + 1 } else { 0 };
        iban = match (iban, b.is_ascii_uppercase(), b.is_ascii_digit()) {
            (0 | 3, true, _) => 1,
            (1 | 2, true, _) => 2,
            (2 | 3, _, true) => iban + 1,
            _ => 0,
        };
        if dashes == 5 || iban == 4 {
            return true;
        }
    }
    digits >= 9 || token.last().is_some_and(u8::is_ascii_digit)
}

/// From `at`, the start of a word, past every word that can start no
/// secret and the ASCII whitespace after it. Returns where the scan must
/// look next: the start of a word, or the end of the text.
///
/// A word here is printable ASCII without digits, between ASCII
/// whitespace, not opening with `-`. One shorter than the shortest secret
/// is what [`scan_with`] steps over too. A longer one holding none of
/// `A`–`Z`, `-`, `_`, `:`, `=` is no secret either: every key prefix and
/// JWT needs an uppercase letter, `-` or `_`; high-entropy keys, cards,
/// SSNs and IBANs need digits; PEM lines `-`; URL passwords and secret-key
/// values `:` or `=`.
fn plain_words_end(bytes: &[u8], mut at: usize) -> usize {
    loop {
        if bytes.get(at).is_none_or(|&b| b == b'-') {
            return at;
        }
        let end = word_end(bytes, at);
        let class = |b: &u8| WORD_BYTE[usize::from(*b)];
        if bytes.get(end).is_some_and(|b| class(b) == OTHER)
            || (end - at >= MIN_SECRET && bytes[at..end].iter().any(|b| class(b) == MARK))
        {
            return at;
        }
        at = end;
        while bytes.get(at).is_some_and(|b| class(b) == BLANK) {
            at += 1;
        }
    }
}

/// The first byte from `at` that is no part of a plain word (whitespace, a
/// digit, a control, a byte outside ASCII), or the end; sixteen at a time,
/// then eight.
fn word_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(chunk) = Chunk::load(bytes, at) {
        let stop = chunk.below_or_wide(b'!') | chunk.within(b'0', b'9') | chunk.equal(0x7f);
        if stop != 0 {
            return at + stop.trailing_zeros() as usize;
        }
        at += chunk::LEN;
    }
    while let Some(word) = bytes::word(bytes, at) {
        let stop = bytes::below(word, b'!')
            | bytes::within(word, b'0', b'9')
            | bytes::equal(word, 0x7f)
            | bytes::non_ascii(word);
        if stop != 0 {
            return at + bytes::first(stop);
        }
        at += 8;
    }
    bytes[at..]
        .iter()
        .position(|&b| WORD_BYTE[usize::from(b)] & (BLANK | OTHER) != 0)
        .map_or(bytes.len(), |len| at + len)
}

/// What a byte is to [`plain_words_end`], as bits: 0 part of a plain word;
/// [`MARK`] part of a word that may be a secret when long; [`BLANK`] ASCII
/// whitespace (what `char::is_whitespace` accepts); [`OTHER`] something
/// left to the full scan (digits, controls, bytes outside ASCII).
const MARK: u8 = 1;
const BLANK: u8 = 2;
const OTHER: u8 = 4;
const WORD_BYTE: [u8; 256] = {
    let mut class = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        class[b] = match b as u8 {
            b'0'..=b'9' => OTHER,
            b'A'..=b'Z' | b'-' | b'_' | b':' | b'=' => MARK,
            b'!'..=b'~' => 0,
            b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' => BLANK,
            _ => OTHER,
        };
        b += 1;
    }
    class
};

/// Whether [`redact`] surely leaves more than `chars` characters of `text`,
/// counted without scanning for secrets: only [`untouched_words`] count.
/// Whitespace collapsing keeps them too.
pub fn keeps_more_than(text: &str, chars: usize) -> bool {
    let mut kept = 0;
    untouched_words(text).any(|word| {
        kept += word.len();
        kept > chars
    })
}

/// Words no secret can touch: between ASCII spaces, shorter than the
/// shortest secret token, printable ASCII without digits, with a lowercase
/// letter (so no IBAN group); none when the text holds `-----` (a PEM block
/// takes whole words).
fn untouched_words(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let pem = text.contains("-----");
    text.split(|c: char| c.is_ascii_whitespace())
        .filter(move |word| {
            !pem && word.len() < MIN_SECRET
                && word
                    .bytes()
                    .all(|b| b.is_ascii_graphic() && !b.is_ascii_digit())
                && word.bytes().any(|b| b.is_ascii_lowercase())
        })
        .map(move |word| {
            // `split` yields subslices of `text`.
            let start = word.as_ptr() as usize - text.as_ptr() as usize;
            start..start + word.len()
        })
}

/// Secrets that run across text nodes: an API key split over two `<code>`
/// elements, a card number in four `<span>`s. The texts of each run of
/// inline content (text nodes under one block container, in document
/// order) are joined as a reader sees them and scanned; a secret that spans
/// more than one node is cut out of every node it touches, and `[redacted]`
/// stands where it starts. Returns, per such node, its text so redacted and
/// how many secrets start in it. Secrets inside one node are left to the
/// per-text redaction every strategy already runs.
pub fn joined_secrets(page: &Page, analysis: &Analysis) -> BTreeMap<NodeId, (String, usize)> {
    let mut out = BTreeMap::new();
    // Per node: the block box its inline content flows in (a document or
    // shadow root bounds it too).
    let mut container = vec![0usize; page.len()];
    let mut group: Vec<(NodeId, &str)> = Vec::new();
    let mut group_container = usize::MAX;
    for id in page.ids() {
        let i = id.index();
        let parent = page.parent(id).map(|p| container[p.index()]);
        container[i] = match page.node(id) {
            Node::Element(_) if !analysis.dom.display(id).is_inline() => i,
            Node::Element(_) | Node::Text(_) => parent.unwrap_or(i),
            _ => i,
        };
        if let Node::Text(text) = page.node(id) {
            if container[i] != group_container {
                flush_joined(&group, &mut out);
                group.clear();
                group_container = container[i];
            }
            group.push((id, &text[..]));
        }
    }
    flush_joined(&group, &mut out);
    out
}

/// Tokens either side of a node boundary that a secret crossing it can
/// span (a card's four groups, an IBAN's nine).
const JOINED_REACH: usize = 9;

/// [`joined_secrets`] for one run of inline texts. Only boundaries a secret
/// could cross are looked at, and only the few tokens around each.
fn flush_joined(group: &[(NodeId, &str)], out: &mut BTreeMap<NodeId, (String, usize)>) {
    if group.len() < 2 {
        return;
    }
    let mut joined = String::new();
    let mut spans = Vec::with_capacity(group.len());
    for (_, text) in group {
        let start = joined.len();
        joined.push_str(text);
        spans.push(start..joined.len());
    }
    let bytes = joined.as_bytes();
    let mut crossing: Vec<Range<usize>> = Vec::new();
    for span in &spans[..spans.len() - 1] {
        let at = span.end;
        if at == 0 || at >= bytes.len() {
            continue;
        }
        // Whitespace either side of the boundary: at most one byte in all
        // (read from the bytes next to it: whitespace-only text nodes are
        // common and long).
        let ws = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_whitespace);
        let left = usize::from(ws(at - 1));
        let right = usize::from(ws(at));
        if left + right > 1 || (left == 1 && at >= 2 && ws(at - 2)) || (right == 1 && ws(at + 1)) {
            continue;
        }
        // Just past the whitespace character at `i` (which may be wider
        // than a byte: U+00A0).
        let word_start = |end: usize| token_start(&joined, end);
        let word_end = |start: usize| token_end(&joined, start).0;
        let (token_start, token_end) = (word_start(at - left), word_end(at + right));
        let window = if left + right == 0 && token_end - token_start >= MIN_SECRET {
            // A token split between nodes (`sk-proj-` + `4f9a…`).
            token_start..token_end
        } else {
            // Digit groups a space apart (cards, IBANs, SSNs): the run of
            // such groups around the boundary.
            let group = |word: &str| {
                !word.is_empty()
                    && word.bytes().all(|b| {
                        b.is_ascii_digit() || b.is_ascii_uppercase() || b == b'-' || b == b'.'
                    })
            };
            if !(group(&joined[token_start..at - left]) && group(&joined[at + right..token_end])) {
                continue;
            }
            let mut start = token_start;
            for _ in 0..JOINED_REACH {
                let Some(before) = start.checked_sub(1).filter(|&i| bytes[i] == b' ') else {
                    break;
                };
                let previous = word_start(before);
                if !group(&joined[previous..before]) {
                    break;
                }
                start = previous;
            }
            let mut end = token_end;
            for _ in 0..JOINED_REACH {
                if bytes.get(end) != Some(&b' ') {
                    break;
                }
                let next = word_end(end + 1);
                if !group(&joined[end + 1..next]) {
                    break;
                }
                end = next;
            }
            if end - start < MIN_DIGIT_RUN {
                continue;
            }
            start..end
        };
        let (start, end) = (window.start, window.end);
        let node_of = |i: usize| spans.partition_point(|span| span.end <= i);
        crossing.extend(
            secret_ranges(&joined[start..end])
                .into_iter()
                .map(|r| r.start + start..r.end + start)
                .filter(|r| node_of(r.start) != node_of(r.end - 1)),
        );
    }
    if crossing.is_empty() {
        return;
    }
    crossing.sort_by_key(|r| (r.start, r.end));
    crossing.dedup_by(|later, earlier| {
        // Windows overlap: keep one of each secret, the widest.
        if later.start < earlier.end {
            earlier.end = earlier.end.max(later.end);
            true
        } else {
            false
        }
    });
    for (k, span) in spans.iter().enumerate() {
        let first = crossing.partition_point(|r| r.end <= span.start);
        let touching = crossing[first..]
            .iter()
            .take_while(|r| r.start < span.end)
            .collect::<Vec<_>>();
        if touching.is_empty() {
            continue;
        }
        let mut text = String::new();
        let mut starts = 0;
        let mut pos = span.start;
        for r in touching {
            if r.start > pos {
                text.push_str(&joined[pos..r.start]);
            }
            if r.start >= span.start {
                text.push_str(REDACTED);
                starts += 1;
            }
            pos = r.end.min(span.end);
        }
        text.push_str(&joined[pos..span.end]);
        out.insert(group[k].0, (text, starts));
    }
}

/// Where the whitespace-delimited token starting at `start` ends, and
/// whether it holds an ASCII digit.
fn token_end(text: &str, start: usize) -> (usize, bool) {
    let bytes = text.as_bytes();
    let mut at = start;
    let mut digit = false;
    while at < bytes.len() {
        // Eight bytes at once while none is whitespace, a digit or outside
        // ASCII (control characters stop the jump too, and are stepped).
        while let Some(word) = bytes::word(bytes, at) {
            let stop = bytes::below(word, b' ' + 1)
                | bytes::within(word, b'0', b'9')
                | bytes::non_ascii(word);
            if stop != 0 {
                at += bytes::first(stop);
                break;
            }
            at += 8;
        }
        let Some(&b) = bytes.get(at) else {
            break;
        };
        match TOKEN_BYTE[usize::from(b)] {
            PLAIN => at += 1,
            DIGIT => {
                digit = true;
                at += 1;
            }
            // `char::is_whitespace` on ASCII: the five `u8` ones and vertical tab.
            SPACE => return (at, digit),
            // Outside ASCII eight bytes at once would stop at every byte:
            // one by one to the next ASCII byte or possible space.
            _ if !whitespace::may_be_space(bytes, at) => {
                at = whitespace::past_plain_wide(bytes, at + 1);
            }
            _ => match text[at..].chars().next() {
                Some(c) if c.is_whitespace() => return (at, digit),
                Some(c) => at += c.len_utf8(),
                None => break,
            },
        }
    }
    (bytes.len(), digit)
}

/// Where the whitespace-delimited token ending at `end` starts: just past
/// the last whitespace character before `end`, or 0. Read backwards by
/// byte, decoding only characters outside ASCII that may be whitespace.
fn token_start(text: &str, end: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = end;
    while at > 0 {
        let b = bytes[at - 1];
        if b.is_ascii() {
            if TOKEN_BYTE[usize::from(b)] == SPACE {
                return at;
            }
            at -= 1;
            continue;
        }
        // Back to the character's first byte.
        let mut start = at - 1;
        while start > 0 && (0x80..0xc0).contains(&bytes[start]) {
            start -= 1;
        }
        if whitespace::may_start_space(bytes[start])
            && text[start..at]
                .chars()
                .next()
                .is_some_and(char::is_whitespace)
        {
            return at;
        }
        at = start;
    }
    0
}

/// What a byte is to [`token_end`].
const PLAIN: u8 = 0;
const DIGIT: u8 = 1;
const SPACE: u8 = 2;
/// A byte of a character outside ASCII, which may be whitespace.
const WIDE: u8 = 3;
const TOKEN_BYTE: [u8; 256] = {
    let mut class = [PLAIN; 256];
    let mut b = 0;
    while b < 256 {
        class[b] = match b as u8 {
            b'0'..=b'9' => DIGIT,
            b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' => SPACE,
            0x80..=0xff => WIDE,
            _ => PLAIN,
        };
        b += 1;
    }
    class
};

/// Bytes of the shortest token [`looks_secret`] accepts.
const MIN_SECRET: usize = 12;
/// Characters of the shortest digit run that can be a secret (`ddd-dd-dddd`).
const MIN_DIGIT_RUN: usize = 11;

/// Redacts a whitespace-delimited token of `text`: the whole token (less
/// surrounding punctuation) when it looks secret, else its secret-looking
/// pieces between URL and key-value delimiters (`/t?token=eyJ…&a=1`). Calls
/// `replace` with each range to redact; returns how many there were.
fn redact_token(text: &str, token: Range<usize>, replace: &mut dyn FnMut(Range<usize>)) -> usize {
    let start = token.start;
    let token = &text[token];
    // Quotes and punctuation around a secret, ASCII or not (`“sk-…”`, `«eyJ…»`).
    let around = |c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '/' | '='));
    let lead = token.len() - token.trim_start_matches(around).len();
    let trimmed = token[lead..].trim_end_matches(around);
    if looks_secret(trimmed) {
        replace(start + lead..start + lead + trimmed.len());
        return 1;
    }
    let mut found = 0;
    let mut piece_start = 0;
    // `https://user:password@host`: the password, whatever it looks like.
    if let Some(password) = url_password(token) {
        replace(start + password.start..start + password.end);
        found += 1;
        piece_start = password.end;
    }
    // The last piece was a secret key, perhaps with its closing quote.
    let mut key_before = false;
    // ... and then `=` or `:` (`?password=…`, `"token":"…"`): the next
    // piece is its value.
    let mut value_of_secret_key = false;
    // Every delimiter is ASCII: bytes are read, and a piece still starts and
    // ends on a character boundary.
    let bytes = token.as_bytes();
    let from = piece_start;
    for (i, b) in (from..token.len())
        .map(|i| (i, bytes[i]))
        .chain([(token.len(), b'/')])
    {
        if PIECE_DELIMITER[usize::from(b)] {
            let piece = &token[piece_start..i];
            let quote = matches!(b, b'"' | b'\'');
            let assigns = matches!(b, b'=' | b':');
            if !piece.is_empty() {
                // The whole token less its punctuation was tested above.
                let tested = piece_start == lead && i == lead + trimmed.len();
                if (value_of_secret_key && piece.len() >= 4) || (!tested && looks_secret(piece)) {
                    replace(start + piece_start..start + i);
                    found += 1;
                }
                key_before = (quote || assigns) && is_secret_key(piece);
                value_of_secret_key = key_before && assigns;
            } else if key_before && assigns {
                value_of_secret_key = true;
            } else if !quote {
                key_before = false;
                value_of_secret_key = false;
            }
            piece_start = i + 1;
        }
    }
    found
}

/// Quoted values assigned to secret keys in code (`password = "…"`,
/// `"apiKey": '…'`, `token:\`…\``): what an inline `<script>` holds. The
/// key is a whole word (any case, `_`/`-` kept), then optional closing
/// quote, `=` or `:`, and a quoted value, which is replaced. Returns the
/// text and how many values were.
pub fn redact_assignments(text: &str) -> (Cow<'_, str>, usize) {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let quote = |b: u8| matches!(b, b'"' | b'\'' | b'`');
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut count = 0;
    let mut from = 0;
    // From each `=` or `:`, back to the key and on to the quoted value.
    while let Some(found) = bytes[from..].iter().position(|&b| b == b'=' || b == b':') {
        let op = from + found;
        from = op + 1;
        let mut k = op;
        while k > 0 && blank(bytes[k - 1]) {
            k -= 1;
        }
        if k > 0 && quote(bytes[k - 1]) {
            k -= 1;
        }
        let key_end = k;
        while k > 0 && word(bytes[k - 1]) {
            k -= 1;
        }
        let key = &bytes[k..key_end];
        // Secret words end the key (`dbPassword`, `stripe_secret`); they end
        // in d, t, y or n, which rules out most keys at once.
        let last = key.last().map(u8::to_ascii_lowercase);
        let secret = matches!(last, Some(b'd' | b't' | b'y' | b'n'))
            && [
                "password", "passwd", "pwd", "secret", "apikey", "api_key", "api-key", "token",
            ]
            .iter()
            .any(|w| {
                key.len() >= w.len()
                    && key[key.len() - w.len()..].eq_ignore_ascii_case(w.as_bytes())
            });
        if !secret {
            continue;
        }
        let mut j = op + 1;
        while j < bytes.len() && blank(bytes[j]) {
            j += 1;
        }
        let Some(&open) = bytes.get(j).filter(|&&b| quote(b)) else {
            continue;
        };
        let value_start = j + 1;
        let Some(len) = text[value_start..].find(char::from(open)) else {
            continue;
        };
        let value_end = value_start + len;
        if len > 0 && value_start >= copied {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..value_start]);
            out.push_str(REDACTED);
            copied = value_end;
            count += 1;
        }
        from = value_end + 1;
    }
    match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            (Cow::Owned(out), count)
        }
        None => (Cow::Borrowed(text), 0),
    }
}

/// Elements whose text children are raw text, serialized without escaping
/// (HTML §13.3, serializing fragments): code, where secrets are assigned
/// (`password = "…"`, see [`redact_assignments`]).
pub const RAW_TEXT: &[&str] = &[
    "script",
    "style",
    "xmp",
    "noembed",
    "noframes",
    "plaintext",
    "noscript",
];

/// Attributes that name what a `<meta>` element's `content` is.
const META_NAMES: &[&str] = &["name", "property", "http-equiv", "itemprop"];

/// Whether a `<meta>` element with these attributes holds a credential in
/// its `content` (its name, property, … says so, see [`is_secret_meta_name`]).
pub fn is_secret_meta<'a>(mut attr: impl FnMut(&str) -> Option<&'a str>) -> bool {
    META_NAMES
        .iter()
        .filter_map(|key| attr(key))
        .any(is_secret_meta_name)
}

/// A `<meta>` name whose content is a credential: CSRF/XSRF tokens,
/// nonces, API keys, secrets.
pub fn is_secret_meta_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "csrf", "xsrf", "token", "nonce", "secret", "api-key", "api_key", "apikey",
    ]
    .iter()
    .any(|word| name.contains(word))
}

/// Keys whose value is a secret whatever it looks like.
fn is_secret_key(key: &str) -> bool {
    const KEYS: &[&str] = &[
        "password",
        "passwd",
        "pwd",
        "pass",
        "passphrase",
        "secret",
        "client_secret",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "auth_token",
        "api_key",
        "apikey",
        "api-key",
        "private_key",
        "session",
        "sessionid",
        "session_id",
    ];
    (3..=13).contains(&key.len()) && KEYS.iter().any(|k| k.eq_ignore_ascii_case(key))
}

/// The password of a URL's userinfo (`scheme://user:password@host`), as a
/// byte range of `token`.
fn url_password(token: &str) -> Option<Range<usize>> {
    // `://`, found from its colons (a substring searcher costs more to set
    // up than a URL takes to read).
    let bytes = token.as_bytes();
    let authority_start =
        memchr::memchr_iter(b':', bytes).find(|&i| bytes.get(i + 1..i + 3) == Some(b"//"))? + 3;
    let authority_len = token[authority_start..]
        .find(['/', '?', '#'])
        .unwrap_or(token.len() - authority_start);
    let authority = &token[authority_start..authority_start + authority_len];
    let userinfo = &authority[..authority.rfind('@')?];
    let colon = userinfo.find(':')?;
    let password = authority_start + colon + 1..authority_start + userinfo.len();
    // Already redacted: redacting again finds nothing new.
    (!password.is_empty() && &token[password.clone()] != REDACTED).then_some(password)
}

/// The end of a PEM private key block (RFC 7468: `-----BEGIN … PRIVATE
/// KEY-----` … `-----END … PRIVATE KEY-----`, RSA, EC, OpenSSH and
/// encrypted keys alike) starting at `start`; a block cut off before its end
/// line runs to the end of the text. Certificates and public keys are not
/// secrets and stay. Linear: a block is searched for its end once, and the
/// scan resumes past it.
fn pem_private_key_end(text: &str, start: usize) -> Option<usize> {
    const BEGIN: &str = "-----BEGIN ";
    const DASHES: &str = "-----";
    let rest = text.get(start..)?;
    if !rest.starts_with(BEGIN) {
        return None;
    }
    // The label ends at the next dashes, on the same line.
    let label_len = rest[BEGIN.len()..].find(DASHES)?;
    let label = &rest[BEGIN.len()..BEGIN.len() + label_len];
    if label.contains('\n') || !label.ends_with("PRIVATE KEY") {
        return None;
    }
    let body = start + BEGIN.len() + label_len + DASHES.len();
    let Some(end_line) = text[body..].find("-----END ") else {
        return Some(text.len());
    };
    let after_end = body + end_line + "-----END ".len();
    Some(
        text[after_end..]
            .find(DASHES)
            .map_or(text.len(), |k| after_end + k + DASHES.len()),
    )
}

/// A PEM private key's end line at `at` (`-----END … PRIVATE KEY-----`)
/// whose begin line is not in the text: the range from the first of the
/// base64 lines just before it (not before `floor`, where the previous
/// secret found ends) to the end of the end line.
fn pem_tail(text: &str, at: usize, floor: usize) -> Option<(usize, usize)> {
    const END: &str = "-----END ";
    const DASHES: &str = "-----";
    let rest = text.get(at..)?;
    if !rest.starts_with(END) {
        return None;
    }
    let label_len = rest[END.len()..].find(DASHES)?;
    let label = &rest[END.len()..END.len() + label_len];
    if label.contains('\n') || !label.ends_with("PRIVATE KEY") {
        return None;
    }
    let end = at + END.len() + label_len + DASHES.len();
    let base64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=');
    let bytes = text.as_bytes();
    let mut start = at;
    // Back over whitespace and base64 words, never past `floor`.
    let mut k = at;
    while k > floor {
        let b = bytes[k - 1];
        if b.is_ascii_whitespace() {
            k -= 1;
        } else if base64(b) {
            while k > floor && base64(bytes[k - 1]) {
                k -= 1;
            }
            start = k;
        } else {
            break;
        }
    }
    Some((start, end))
}

/// The end of an IBAN starting at `start` (two letters, two check digits,
/// then up to 30 letters or digits, plain or in groups of four separated by
/// single spaces), when its ISO 13616 check (mod 97 = 1) holds.
fn iban_end(bytes: &[u8], start: usize) -> Option<usize> {
    let head = bytes.get(start..start + 4)?;
    if !(head[0].is_ascii_uppercase()
        && head[1].is_ascii_uppercase()
        && head[2].is_ascii_digit()
        && head[3].is_ascii_digit())
    {
        return None;
    }
    let alnum = |b: u8| b.is_ascii_digit() || b.is_ascii_uppercase();
    let mut end = start;
    let mut at = start;
    let mut chars = 0;
    let spaced = bytes.get(start + 4) == Some(&b' ');
    // Candidate ends: after each group (spaced) or the whole run (plain).
    let mut ends = Vec::new();
    loop {
        let group_start = at;
        while at < bytes.len() && alnum(bytes[at]) && chars < 34 {
            at += 1;
            chars += 1;
        }
        let group = at - group_start;
        if group == 0 || (spaced && group > 4) {
            break;
        }
        end = at;
        ends.push((end, chars));
        if !spaced || group < 4 || bytes.get(at) != Some(&b' ') {
            break;
        }
        at += 1;
    }
    if bytes.get(end).is_some_and(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    ends.into_iter()
        .rev()
        .find(|&(end, chars)| (15..=34).contains(&chars) && iban_checks(&bytes[start..end]))
        .map(|(end, _)| end)
}

/// ISO 13616: the country code and check digits moved to the end, letters
/// as 10–35, the number mod 97 is 1.
fn iban_checks(iban: &[u8]) -> bool {
    let digits = iban.iter().copied().filter(|&b| b != b' ');
    let rotated = digits.clone().skip(4).chain(digits.take(4));
    let mut rest = 0u32;
    for b in rotated {
        let value = if b.is_ascii_digit() {
            u32::from(b - b'0')
        } else {
            u32::from(b - b'A') + 10
        };
        rest = if value >= 10 {
            (rest * 100 + value) % 97
        } else {
            (rest * 10 + value) % 97
        };
    }
    rest == 1
}

/// Where a token splits into pieces, each checked with [`looks_secret`]
/// (URL and key-value delimiters), by byte: it is read for every byte of
/// every token long enough to hide a secret.
const PIECE_DELIMITER: [bool; 256] = {
    let mut delimiter = [false; 256];
    let all = b"/?&=#:;,'\"()<>[]{}";
    let mut k = 0;
    while k < all.len() {
        delimiter[all[k] as usize] = true;
        k += 1;
    }
    delimiter
};

/// End of the longest run of ASCII digits from `start`, groups joined by
/// single spaces or dashes (`4242 4242-4242`).
fn digit_run_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    let mut j = start;
    while j < bytes.len() {
        if bytes[j].is_ascii_digit() {
            end = j + 1;
        } else if !(matches!(bytes[j], b' ' | b'-' | b'.')
            && bytes.get(j + 1).is_some_and(u8::is_ascii_digit))
        {
            break;
        }
        j += 1;
    }
    end
}

/// A single token that looks like a credential.
pub fn looks_secret(token: &str) -> bool {
    if token.len() < MIN_SECRET {
        return false;
    }
    // JWT: three base64url segments, header starting with `eyJ`.
    if token.starts_with("eyJ")
        && token.split('.').count() == 3
        && token
            .split('.')
            .all(|p| p.len() >= 4 && p.chars().all(is_b64url))
    {
        return true;
    }
    // Well-known key prefixes.
    const PREFIXES: &[&str] = &[
        "sk-",
        "sk_live_",
        "sk_test_",
        "pk_live_",
        "rk_live_",
        "ghp_",
        "gho_",
        "ghs_",
        "github_pat_",
        "xoxb-",
        "xoxp-",
        "AKIA",
        "AIza",
        "glpat-",
    ];
    // Every prefix starts with one of these: most tokens are turned away
    // by their first byte.
    if matches!(token.as_bytes()[0], b's' | b'p' | b'r' | b'g' | b'x' | b'A')
        && PREFIXES.iter().any(|p| token.starts_with(p))
        && token.len() >= 16
        && token.chars().all(|c| is_b64url(c) || c == '-')
    {
        return true;
    }
    // Long high-entropy strings mixing letters and digits (not URLs, paths or words).
    token.len() >= 24 && key_shaped(token.as_bytes()) && entropy(token) >= 3.5
}

/// Whether `token` is made of base64 (standard or URL-safe) and `=` only,
/// holds no `//` (a URL), and mixes ASCII letters and digits: one pass over
/// the bytes (a character outside ASCII is none of these, nor are its bytes).
fn key_shaped(token: &[u8]) -> bool {
    let (mut digit, mut letter, mut slash) = (false, false, false);
    for &b in token {
        match b {
            b'0'..=b'9' => digit = true,
            b'a'..=b'z' | b'A'..=b'Z' => letter = true,
            b'/' if slash => return false,
            b'-' | b'_' | b'+' | b'=' | b'/' => {}
            _ => return false,
        }
        slash = b == b'/';
    }
    digit && letter
}

fn is_b64url(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Shannon entropy of the token's bytes, in bits per byte. The bytes that
/// occur are summed in byte order (a bit set of them is walked, not all 256
/// counts), so the float result does not depend on how they are found.
fn entropy(token: &str) -> f64 {
    let mut counts = [0u32; 256];
    let mut seen = [0u64; 4];
    for b in token.bytes() {
        counts[usize::from(b)] += 1;
        seen[usize::from(b >> 6)] |= 1 << (b & 63);
    }
    let n = token.len() as f64;
    // As `Iterator::sum` of floats starts.
    let mut sum = -0.0;
    for (k, mut bits) in seen.into_iter().enumerate() {
        while bits != 0 {
            let b = k * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let p = f64::from(counts[b]) / n;
            sum += -p * p.log2();
        }
    }
    sum
}

/// 13–19 digits (separators skipped) passing the Luhn check; with dots,
/// only in groups of four (`4111.1111.1111.1111`, not a decimal number).
fn is_card(run: &str) -> bool {
    if run.contains('.') && !run.split(['.', ' ', '-']).all(|g| g.len() == 4) {
        return false;
    }
    let digits = run.bytes().filter(u8::is_ascii_digit);
    if !(13..=19).contains(&digits.clone().count()) {
        return false;
    }
    let mut sum = 0;
    for (i, d) in digits.rev().map(|b| u32::from(b - b'0')).enumerate() {
        let d = if i % 2 == 1 { d * 2 } else { d };
        sum += if d > 9 { d - 9 } else { d };
    }
    sum % 10 == 0
}

/// `ddd-dd-dddd`.
fn is_ssn(run: &str) -> bool {
    let mut lens = run.split('-').map(str::len);
    run.bytes().all(|b| b.is_ascii_digit() || b == b'-')
        && lens.next() == Some(3)
        && lens.next() == Some(2)
        && lens.next() == Some(4)
        && lens.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_each_kind_of_secret() {
        let cases = [
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
            "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            "4242 4242 4242 4242",
            "4242-4242-4242-4242",
            "078-05-1120",
        ];
        for secret in cases {
            let (out, n) = redact_text(&format!("token: {secret}."));
            assert_eq!(n, 1, "{secret}");
            assert!(!out.contains(secret) && out.contains(REDACTED), "{out}");
        }
    }

    #[test]
    fn redacts_secrets_inside_urls() {
        let (out, n) = redact_text(
            "/callback?token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcDEF123_-x&next=/home",
        );
        assert_eq!(n, 1);
        assert_eq!(out, "/callback?token=[redacted]&next=/home");
    }

    #[test]
    fn redacts_ibans_url_passwords_secret_values_and_dotted_cards() {
        let cases = [
            (
                "IBAN DE89 3704 0044 0532 0130 00 is mine",
                "DE89 3704 0044 0532 0130 00",
            ),
            ("iban: GB82WEST12345698765432.", "GB82WEST12345698765432"),
            (
                "see https://admin:hunter2pass@db.example.com/x",
                "hunter2pass",
            ),
            (
                "/login?user=bob&password=a1b2c3d4e5f6a7b8c9d0&next=/",
                "a1b2c3d4e5f6a7b8c9d0",
            ),
            (
                "const config = {\"pwd\":\"correct-horse\"};",
                "correct-horse",
            ),
            ("card 4111.1111.1111.1111 expires", "4111.1111.1111.1111"),
        ];
        for (text, secret) in cases {
            let (out, n) = redact_text(text);
            assert!(n >= 1 && !out.contains(secret), "{text:?} -> {out:?}");
            assert!(out.contains(REDACTED), "{out}");
        }
        // Lookalikes stay: a wrong IBAN check, decimals, a URL without a
        // password, a harmless key.
        for text in [
            "DE89 3704 0044 0532 0130 02",
            "pi is 3.14159265358979",
            "https://user@example.com/path",
            "/search?q=password&page=2",
            "AB12 is a plain code",
        ] {
            assert_eq!(redact_text(text), (text.to_owned(), 0), "{text:?}");
        }
    }

    #[test]
    fn finds_secrets_at_every_kind_of_boundary() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcDEF123_-x";
        let key = "sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c";
        let cases = [
            ("x/4242-4242-4242-4242 y".to_owned(), "x/[redacted] y", 1),
            ("é078-05-1120".to_owned(), "é[redacted]", 1),
            ("1 078-05-1120".to_owned(), "1 [redacted]", 1),
            (format!("«{jwt}»"), "«[redacted]»", 1),
            (format!("key “{key}”."), "key “[redacted]”.", 1),
            (format!("({key})."), "([redacted]).", 1),
            (
                format!("x\u{3000}{key}\u{3000}y"),
                "x\u{3000}[redacted]\u{3000}y",
                1,
            ),
            (
                format!("/cb?token={jwt}&next=/home?k={key}#x"),
                "/cb?token=[redacted]&next=/home?k=[redacted]#x",
                2,
            ),
        ];
        for (text, want, n) in cases {
            assert_eq!(redact_text(&text), (want.to_owned(), n), "{text}");
        }
    }

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

    #[test]
    fn redacts_pem_private_key_blocks_whole_and_leaves_certificates() {
        let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\nPkPBzGSZP7YinomS\n-----END RSA PRIVATE KEY-----";
        let (out, n) = redact_text(&format!("key:\n{key}\nrotate it"));
        assert_eq!((out.as_str(), n), ("key:\n[redacted]\nrotate it", 1));
        // Flattened into one line (an accessible name), or cut off.
        let flat = key.replace('\n', " ");
        assert_eq!(redact_text(&flat), ("[redacted]".to_owned(), 1));
        let cut = &key[..60];
        assert_eq!(redact_text(cut), ("[redacted]".to_owned(), 1));
        // The last words of a page, its begin line cut off.
        let tail =
            "Signing key | 9yIJX6uF/AAbc+ PkPBzGSZP7YinomS -----END PRIVATE KEY----- Rotate it";
        assert_eq!(
            redact_text(tail),
            ("Signing key | [redacted] Rotate it".to_owned(), 1)
        );
        for text in [
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
            "-----BEGIN PUBLIC KEY----- MIIB -----END PUBLIC KEY-----",
            "----- a rule of dashes -----",
        ] {
            assert_eq!(redact_text(text), (text.to_owned(), 0), "{text}");
        }
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for text in [
            "Call 555-1234 or 2024-11-22",
            "Order #123456 total 42.50",
            "https://example.com/a/very/long/path/that-is-not-a-secret",
            "internationalization",
            "4242 4242 4242 4241",
            "a 4242 4242 4242 4242x",
            "078-05-1120-1",
            "«internationalization» — “Straßenbahnhaltestelle”",
        ] {
            assert_eq!(redact_text(text), (text.to_owned(), 0), "{text}");
        }
    }

    /// Pieces of text around which secrets start and end: words, digits,
    /// separators, non-ASCII letters and spaces, and secrets of each kind.
    const PIECES: &[&str] = &[
        "word",
        "Word",
        "the quick brown fox, ",
        "jumps (over) the lazy; dog! ",
        "lowercasewordsrunlong ",
        "plasma.[81] ",
        "a",
        "X",
        "42",
        "2015",
        " ",
        "  ",
        "\n",
        "\u{a0}",
        "\u{3000}",
        "-",
        "--",
        "-----",
        ".",
        ":",
        "=",
        "/",
        "?",
        "(",
        ")",
        "\"",
        "é",
        "ひらがな",
        "漢字",
        "«",
        "—",
        "DE89",
        "3704",
        "0044",
        "0532",
        "0130",
        "00",
        "DE89370400440532013000",
        "4242",
        "4242424242424242",
        "078-05-1120",
        "password=",
        "token:",
        "https://user:hunter2@example.com/x",
        "sk-live-4f9a8b7c6d5e4f3a2b1c",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcDEF123_-x",
        "-----BEGIN PRIVATE KEY-----",
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
        "-----END PRIVATE KEY-----",
        "internationalization",
        "x4242",
        "a_b-c",
        "AKIA",
        "Zq9xWv3Lk8Rt2Yp7Mn4Bc6Hd1Jf5Gs0T",
        "GB82 WEST 1234 5698 7654 32",
        "WEST",
        "GB82",
        "\t",
        "\u{7f}",
        "_",
        "sk",
        "ghp_",
        "xoxb",
        "@",
        "'",
        ",",
        "experimentation.",
    ];

    proptest::proptest! {
        /// Stepping over what starts no secret finds exactly the ranges the
        /// character-by-character scan finds.
        #[test]
        fn skipping_finds_what_the_character_scan_finds(
            picks in proptest::collection::vec(0..PIECES.len(), 0..40)
        ) {
            let text: String = picks.iter().map(|&i| PIECES[i]).collect();
            let mut fast = Vec::new();
            let n_fast = scan_with(&text, &mut |r| fast.push(r), true);
            let mut slow = Vec::new();
            let n_slow = scan_with(&text, &mut |r| slow.push(r), false);
            proptest::prop_assert_eq!(&fast, &slow, "{:?}", text);
            proptest::prop_assert_eq!(n_fast, n_slow);
        }

        /// Tokens found from either end are `split_whitespace`'s.
        #[test]
        fn token_ends_are_where_whitespace_is(
            picks in proptest::collection::vec(0..PIECES.len(), 0..12),
            cut in 0usize..200,
        ) {
            let text: String = picks.iter().map(|&i| PIECES[i]).collect();
            let mut at = cut.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let want_start = text[..at]
                .char_indices()
                .rev()
                .find(|(_, c)| c.is_whitespace())
                .map_or(0, |(i, c)| i + c.len_utf8());
            let want_end = text[at..]
                .find(char::is_whitespace)
                .map_or(text.len(), |i| at + i);
            proptest::prop_assert_eq!(token_start(&text, at), want_start);
            proptest::prop_assert_eq!(token_end(&text, at).0, want_end);
        }

        /// The high-entropy rule read byte by byte, with its entropy summed
        /// over the bytes that occur, decides as the rule written with
        /// `char` iterators and a sum over all 256 counts does.
        #[test]
        fn key_shape_and_entropy_match_the_rule_written_plainly(
            token in "[a-zA-Z0-9_/+=\\-.:é]{0,40}",
        ) {
            let plain_entropy = |token: &str| -> f64 {
                let mut counts = [0u32; 256];
                for b in token.bytes() {
                    counts[usize::from(b)] += 1;
                }
                let n = token.len() as f64;
                counts
                    .iter()
                    .filter(|&&c| c > 0)
                    .map(|&c| {
                        let p = f64::from(c) / n;
                        -p * p.log2()
                    })
                    .sum()
            };
            let plain_shape = token
                .chars()
                .all(|c| is_b64url(c) || c == '+' || c == '/' || c == '=')
                && !token.contains("//")
                && token.chars().any(|c| c.is_ascii_digit())
                && token.chars().any(|c| c.is_ascii_alphabetic());
            proptest::prop_assert_eq!(key_shaped(token.as_bytes()), plain_shape);
            if !token.is_empty() {
                proptest::prop_assert_eq!(entropy(&token).to_bits(), plain_entropy(&token).to_bits());
            }
        }

        /// The words counted as kept are kept: no secret found overlaps one.
        #[test]
        fn untouched_words_are_never_redacted(
            picks in proptest::collection::vec(0..PIECES.len(), 0..40),
        ) {
            let text: String = picks.iter().map(|&i| PIECES[i]).collect();
            let secrets = secret_ranges(&text);
            for word in untouched_words(&text) {
                let hit = secrets.iter().find(|s| s.start < word.end && word.start < s.end);
                proptest::prop_assert!(hit.is_none(), "{:?}: {:?} in {:?}", text, &text[word], hit);
            }
        }
    }
}
