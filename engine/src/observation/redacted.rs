//! What redaction hid, as an observation's counts report it: the kind of each secret, and the redactions counted by kind.

use serde::{Deserialize, Serialize};

/// Which rule or recogniser hid a value: what a report shows per
/// redaction, so a user can see why something was hidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The value of a field that holds a secret (a password, card or token
    /// field, by its type, name, label or value).
    Field,
    /// The content of a `<meta>` that names a credential (`csrf-token`).
    Meta,
    /// A quoted value assigned to a secret key in code (`password = "…"`).
    Assignment,
    /// The value after a secret key in a URL query or a key-value pair
    /// (`?access_token=…`, `"apiKey":"…"`).
    KeyValue,
    /// The password in a URL's userinfo (`https://user:…@host`).
    UrlPassword,
    /// A key with a vendor's prefix (`sk-`, `ghp_`, `AKIA`, `xoxb-`, …).
    VendorKey,
    /// A JSON Web Token.
    Jwt,
    /// A PEM private key block.
    PrivateKey,
    /// A card number that passes the Luhn check.
    Card,
    /// A US social security number.
    Ssn,
    /// An IBAN that passes the mod-97 check.
    Iban,
    /// A long random-looking string of letters and digits.
    Random,
}

impl Kind {
    /// Every kind, in the order reports list them.
    pub const ALL: [Kind; 12] = [
        Kind::Field,
        Kind::Meta,
        Kind::Assignment,
        Kind::KeyValue,
        Kind::UrlPassword,
        Kind::VendorKey,
        Kind::Jwt,
        Kind::PrivateKey,
        Kind::Card,
        Kind::Ssn,
        Kind::Iban,
        Kind::Random,
    ];

    /// The kind as written in meta and reports (`key_value`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Field => "field",
            Kind::Meta => "meta",
            Kind::Assignment => "assignment",
            Kind::KeyValue => "key_value",
            Kind::UrlPassword => "url_password",
            Kind::VendorKey => "vendor_key",
            Kind::Jwt => "jwt",
            Kind::PrivateKey => "private_key",
            Kind::Card => "card",
            Kind::Ssn => "ssn",
            Kind::Iban => "iban",
            Kind::Random => "random",
        }
    }
}

/// Redactions counted by kind (in meta: `{"card": 1, "random": 2}`, kinds
/// with none left out).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Redacted([usize; Kind::ALL.len()]);

impl Redacted {
    /// Counts one redaction of `kind`.
    pub fn add(&mut self, kind: Kind) {
        self.0[kind as usize] += 1;
    }

    /// How many of `kind`.
    pub fn get(&self, kind: Kind) -> usize {
        self.0[kind as usize]
    }

    /// All redactions.
    pub fn total(&self) -> usize {
        self.0.iter().sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// The kinds with redactions and their counts, in [`Kind::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Kind, usize)> + '_ {
        Kind::ALL
            .into_iter()
            .map(|kind| (kind, self.get(kind)))
            .filter(|&(_, n)| n > 0)
    }
}

impl Serialize for Redacted {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Redacted {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let counts = std::collections::BTreeMap::<Kind, usize>::deserialize(deserializer)?;
        let mut out = Redacted::default();
        for (kind, n) in counts {
            out.0[kind as usize] = n;
        }
        Ok(out)
    }
}
