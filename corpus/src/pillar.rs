//! Pillars: the thematic areas (`parameter` in the tool API) that every indicator belongs to, with a
//! normaliser from free text (`"educación"`, `"education"`, `"educação"` → `educacion`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::{Names, folding::fold};

/// One pillar of `pillars.json`, declared in the corpus catalog (`data/corpus.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pillar {
    /// Stable id in Spanish, lower snake case without accents (`medio_ambiente`).
    pub id: String,
    /// Names in en/es/pt (all three required for pillars).
    pub names: Names,
    /// Other words that resolve to this pillar (`security`, `segurança`, `violence`).
    #[serde(default)]
    pub aliases: Vec<String>,
}

/// The pillars of a corpus, in catalog order, with a case- and accent-insensitive lookup over ids, names
/// and aliases.
#[derive(Debug, Clone)]
pub struct PillarRegistry {
    pillars: Vec<Pillar>,
    by_key: HashMap<String, usize>,
}

impl PillarRegistry {
    /// Builds the registry; ids win over names, names over aliases, and the first pillar wins a tie.
    pub fn new(pillars: Vec<Pillar>) -> Self {
        let mut by_key = HashMap::new();
        let ids = pillars
            .iter()
            .enumerate()
            .map(|(pillar_idx, pillar)| (pillar_idx, vec![pillar.id.as_str()]));
        let names = pillars
            .iter()
            .enumerate()
            .map(|(pillar_idx, pillar)| (pillar_idx, pillar.names.all().collect()));
        let aliases = pillars.iter().enumerate().map(|(pillar_idx, pillar)| {
            (
                pillar_idx,
                pillar
                    .aliases
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
            )
        });
        for (pillar_idx, texts) in ids.chain(names).chain(aliases) {
            for text in texts {
                by_key.entry(fold(text)).or_insert(pillar_idx);
            }
        }
        PillarRegistry { pillars, by_key }
    }

    /// Resolves free text to a pillar, or `None`.
    pub fn resolve(&self, text: &str) -> Option<&Pillar> {
        self.by_key
            .get(&fold(text))
            .map(|&pillar_idx| &self.pillars[pillar_idx])
    }

    /// The pillar with exactly this id.
    pub fn get(&self, id: &str) -> Option<&Pillar> {
        self.pillars.iter().find(|pillar| pillar.id == id)
    }

    /// Every pillar, in catalog order.
    pub fn pillars(&self) -> &[Pillar] {
        &self.pillars
    }
}
