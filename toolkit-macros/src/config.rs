//! The calling crate's `[package.metadata.toolkit]` table.
//!
//! ```toml
//! [package.metadata.toolkit]
//! naming = "camelCase"            # or "snake_case" (the default)
//! verbs = ["get", "create"]       # replaces the default vocabulary
//! extra-verbs = ["browse"]        # extends it
//! ```

use std::path::PathBuf;

use serde::Deserialize;

/// The verbs a tool name may start with unless the crate says otherwise.
pub(crate) const DEFAULT_VERBS: &[&str] =
    &["get", "create", "update", "delete", "search", "set", "link"];

/// How tool names are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub(crate) enum Naming {
    /// `get_tasks`: lowercase words joined by `_`, the verb first.
    #[serde(rename = "snake_case")]
    Snake,
    /// `getPage`: the verb in lowercase, then capitalized words.
    #[serde(rename = "camelCase")]
    Camel,
}

/// The checked settings for one crate.
#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) naming: Naming,
    pub(crate) verbs: Vec<String>,
    /// The manifest the settings came from, for the compiler to track.
    pub(crate) manifest: Option<PathBuf>,
}

#[derive(Deserialize)]
struct Manifest {
    package: Option<Package>,
}

#[derive(Deserialize)]
struct Package {
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
struct Metadata {
    toolkit: Option<Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Table {
    naming: Option<Naming>,
    verbs: Option<Vec<String>>,
    extra_verbs: Option<Vec<String>>,
}

impl Config {
    /// Reads the settings of the crate being compiled. The manifest is read on every
    /// expansion, not cached: an IDE's long-lived macro server must see edits.
    pub(crate) fn load() -> Result<Config, String> {
        let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
            return Ok(Config::from_table(None, None));
        };
        let path = PathBuf::from(dir).join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(Config::from_table(None, None));
        };
        Config::parse(&text).map(|table| Config::from_table(table, Some(path)))
    }

    fn parse(text: &str) -> Result<Option<Table>, String> {
        let manifest: Manifest = toml::from_str(text).map_err(|error| {
            format!(
                "invalid `[package.metadata.toolkit]` in Cargo.toml: {}",
                error.message()
            )
        })?;
        Ok(manifest
            .package
            .and_then(|package| package.metadata)
            .and_then(|metadata| metadata.toolkit))
    }

    fn from_table(table: Option<Table>, manifest: Option<PathBuf>) -> Config {
        let table = table.unwrap_or(Table {
            naming: None,
            verbs: None,
            extra_verbs: None,
        });
        let mut verbs: Vec<String> = table
            .verbs
            .unwrap_or_else(|| DEFAULT_VERBS.iter().map(|&verb| verb.to_owned()).collect());
        for verb in table.extra_verbs.unwrap_or_default() {
            if !verbs.contains(&verb) {
                verbs.push(verb);
            }
        }
        Config {
            naming: table.naming.unwrap_or(Naming::Snake),
            verbs,
            manifest,
        }
    }

    #[cfg(test)]
    pub(crate) fn default_for_tests() -> Config {
        Config::from_table(None, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Result<Config, String> {
        Config::parse(text).map(|table| Config::from_table(table, None))
    }

    #[test]
    fn defaults_without_a_table() {
        let config = config("[package]\nname = \"x\"\n").unwrap();
        assert_eq!(config.naming, Naming::Snake);
        assert_eq!(config.verbs, DEFAULT_VERBS);
    }

    #[test]
    fn replaces_and_extends_verbs() {
        let config = config(
            "[package.metadata.toolkit]\nnaming = \"camelCase\"\nverbs = [\"get\"]\nextra-verbs = [\"browse\", \"get\"]\n",
        )
        .unwrap();
        assert_eq!(config.naming, Naming::Camel);
        assert_eq!(config.verbs, ["get", "browse"]);
    }

    #[test]
    fn rejects_unknown_keys_and_values() {
        let error = config("[package.metadata.toolkit]\nnamin = \"camelCase\"\n").unwrap_err();
        assert!(
            error.starts_with(
                "invalid `[package.metadata.toolkit]` in Cargo.toml: unknown field `namin`"
            ),
            "{error}"
        );
        let error = config("[package.metadata.toolkit]\nnaming = \"kebab\"\n").unwrap_err();
        assert!(error.contains("unknown variant `kebab`"), "{error}");
    }
}
