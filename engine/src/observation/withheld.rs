//! Text no person can see, withheld from the observation and counted by why (issue 56).

use serde::{Deserialize, Serialize};

use crate::analyze::Hidden;

/// Text runs withheld, counted by why (in meta: `{"unpainted": 2,
/// "covered": 1}`, reasons with none left out). Only the reasons a page can
/// use to hide text that the DOM or the accessibility tree still hold are
/// counted ([`Hidden::WITHHELD`]); `display: none` and the like are not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Withheld([usize; Hidden::COUNT]);

impl Withheld {
    /// Counts one run hidden for `reason`; other reasons are not counted.
    pub fn add(&mut self, reason: Hidden) {
        if Hidden::WITHHELD.contains(&reason) {
            self.0[reason as usize] += 1;
        }
    }

    /// How many for `reason`.
    pub fn get(&self, reason: Hidden) -> usize {
        self.0[reason as usize]
    }

    /// All runs withheld.
    pub fn total(&self) -> usize {
        self.0.iter().sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// The reasons with runs and their counts, in [`Hidden::WITHHELD`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Hidden, usize)> + '_ {
        Hidden::WITHHELD
            .into_iter()
            .map(|reason| (reason, self.get(reason)))
            .filter(|&(_, n)| n > 0)
    }
}

impl Serialize for Withheld {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Withheld {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let counts = std::collections::BTreeMap::<Hidden, usize>::deserialize(deserializer)?;
        let mut out = Withheld::default();
        for (reason, n) in counts {
            out.0[reason as usize] = n;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_only_the_reasons_withheld_and_round_trips() {
        let mut withheld = Withheld::default();
        withheld.add(Hidden::Unpainted);
        withheld.add(Hidden::Unpainted);
        withheld.add(Hidden::Covered);
        withheld.add(Hidden::NotRendered);
        assert_eq!(withheld.total(), 3);
        let json = serde_json::to_string(&withheld).unwrap();
        assert_eq!(json, r#"{"unpainted":2,"covered":1}"#);
        assert_eq!(serde_json::from_str::<Withheld>(&json).unwrap(), withheld);
    }
}
