//! The one pass over a text that finds secrets: tokens between whitespace, with what can start no secret stepped over at once.

use std::ops::Range;

use super::digits::{digit_run_end, is_card, is_ssn};
use super::iban::iban_end;
use super::pem::{pem_private_key_end, pem_tail};
use super::pieces::redact_token;
use super::{Kind, Place};
use crate::analyze::whitespace;
use crate::bytes;
use crate::chunk::{self, Chunk};
use crate::class::WORD_STOP;

/// [`scan`], stepping over what can start no secret at once when `skip`
/// holds, character by character when not (the tests compare the two).
pub(super) fn scan_with(
    text: &str,
    report: &mut dyn FnMut(Range<usize>, Kind),
    skip: bool,
) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut at = 0;
    // The character before `at` in the text (`None` at the start).
    let mut before: Option<char> = None;
    // The end of the last range found: ranges stay in order and disjoint.
    let last_end = std::cell::Cell::new(0);
    let found = &mut |range: Range<usize>, kind: Kind| {
        last_end.set(range.end);
        report(range, kind);
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
                found(start..end, Kind::PrivateKey);
                count += 1;
                before = text[..end].chars().next_back();
                at = end;
                continue;
            }
        }
        // IBANs span spaces too (`DE89 3704 0044 …`).
        if bytes[at].is_ascii_uppercase() && before.is_none_or(|c| !c.is_ascii_alphanumeric()) {
            if let Some(end) = iban_end(bytes, at) {
                found(at..end, Kind::Iban);
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
            let kind = if !boundary_after || run.len() < MIN_DIGIT_RUN {
                None
            } else if is_card(run) && !unbroken_in_url(text, at..end) && !joined_to_word(text, at) {
                Some(Kind::Card)
            } else if is_ssn(run) {
                Some(Kind::Ssn)
            } else {
                None
            };
            if let Some(kind) = kind {
                found(at..end, kind);
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

/// Whether the digit run at `run` is one unbroken number in a URL's path
/// or query: an id (`/video/4485986878001`), not a card, which a URL shows
/// grouped if at all.
fn unbroken_in_url(text: &str, run: Range<usize>) -> bool {
    text[run.clone()].bytes().all(|b| b.is_ascii_digit())
        && matches!(Place::of(text, run), Place::UrlPath | Place::UrlQuery)
}

/// Whether the digit run at `at` continues a word or a number through
/// `-`, `.` or `_` (`pub-4358676377058562`, `1.4930555555555556`): an id
/// or a fraction, not a card.
fn joined_to_word(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    at >= 2 && matches!(bytes[at - 1], b'-' | b'.' | b'_') && bytes[at - 2].is_ascii_alphanumeric()
}

/// Whether a token [`redact_token`] found nothing in may still start a
/// secret past its first character: a card or SSN (nine digits at least,
/// or digits running on past its end), an IBAN (`AA99`) or a PEM line.
/// `digit` tells whether the token holds an ASCII digit: without one, only
/// a PEM line can start.
pub(super) fn may_start_more(token: &[u8], digit: bool) -> bool {
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
pub(super) fn plain_words_end(bytes: &[u8], mut at: usize) -> usize {
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
pub(super) fn word_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(chunk) = Chunk::load(bytes, at) {
        let stop = WORD_STOP.chunk(chunk);
        if stop != 0 {
            return at + stop.trailing_zeros() as usize;
        }
        at += chunk::LEN;
    }
    while let Some(word) = bytes::word(bytes, at) {
        let stop = WORD_STOP.word(word);
        if stop != 0 {
            return at + bytes::first(stop);
        }
        at += 8;
    }
    bytes[at..]
        .iter()
        .position(|&b| WORD_STOP.has(b))
        .map_or(bytes.len(), |len| at + len)
}

/// What a byte is to [`plain_words_end`], as bits: 0 part of a plain word;
/// [`MARK`] part of a word that may be a secret when long; [`BLANK`] ASCII
/// whitespace (what `char::is_whitespace` accepts); [`OTHER`] something
/// left to the full scan (digits, controls, bytes outside ASCII).
pub(super) const MARK: u8 = 1;
pub(super) const BLANK: u8 = 2;
pub(super) const OTHER: u8 = 4;
pub(super) const WORD_BYTE: [u8; 256] = {
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
pub(super) fn untouched_words(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
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

/// Where the whitespace-delimited token starting at `start` ends, and
/// whether it holds an ASCII digit.
pub(super) fn token_end(text: &str, start: usize) -> (usize, bool) {
    let bytes = text.as_bytes();
    let mut at = start;
    let mut digit = false;
    while at < bytes.len() {
        // Eight bytes at once while none is whitespace, a digit or outside
        // ASCII (control characters and DEL stop the jump too, and are stepped).
        while let Some(word) = bytes::word(bytes, at) {
            let stop = WORD_STOP.word(word);
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
pub(super) fn token_start(text: &str, end: usize) -> usize {
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
pub(super) const PLAIN: u8 = 0;
pub(super) const DIGIT: u8 = 1;
pub(super) const SPACE: u8 = 2;
/// A byte of a character outside ASCII, which may be whitespace.
pub(super) const WIDE: u8 = 3;
pub(super) const TOKEN_BYTE: [u8; 256] = {
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

/// Bytes of the shortest token [`secret_kind`](super::keys::secret_kind) accepts.
pub(super) const MIN_SECRET: usize = 12;
/// Characters of the shortest digit run that can be a secret (`ddd-dd-dddd`).
pub(super) const MIN_DIGIT_RUN: usize = 11;

#[cfg(test)]
mod tests {
    use super::super::secret_ranges;
    use super::*;

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
            let n_fast = scan_with(&text, &mut |r, kind| fast.push((r, kind)), true);
            let mut slow = Vec::new();
            let n_slow = scan_with(&text, &mut |r, kind| slow.push((r, kind)), false);
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
