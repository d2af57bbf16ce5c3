//! A hand-rolled argument parser: each xtask command takes a handful of
//! flags, which does not justify a clap dependency in a dev tool.
//!
//! Commands take what they know out of an [`Args`] and call
//! [`Args::finish`], which rejects anything left over, so a typo is a usage
//! error instead of a silently ignored flag.

use std::fmt::Display;
use std::str::FromStr;

use anyhow::{bail, Context};

/// The arguments of one command, consumed flag by flag.
#[derive(Debug)]
pub struct Args {
    rest: Vec<String>,
}

impl Args {
    /// Wraps the arguments that follow the command name.
    pub fn new(args: Vec<String>) -> Self {
        Args { rest: args }
    }

    /// Removes the boolean flag `name` (e.g. `--full`); `true` if it was given.
    pub fn flag(&mut self, name: &str) -> bool {
        let before = self.rest.len();
        self.rest.retain(|arg| arg != name);
        self.rest.len() != before
    }

    /// Removes `name VALUE` or `name=VALUE` and returns the value.
    ///
    /// # Errors
    /// When the flag is given twice or has no value.
    pub fn value(&mut self, name: &str) -> anyhow::Result<Option<String>> {
        let mut found = None;
        let mut idx = 0;
        while idx < self.rest.len() {
            let value = if self.rest[idx] == name {
                if idx + 1 >= self.rest.len() {
                    bail!("{name} needs a value");
                }
                self.rest.remove(idx);
                self.rest.remove(idx)
            } else if let Some(value) = self.rest[idx]
                .strip_prefix(name)
                .and_then(|tail| tail.strip_prefix('='))
            {
                let value = value.to_owned();
                self.rest.remove(idx);
                value
            } else {
                idx += 1;
                continue;
            };
            if found.replace(value).is_some() {
                bail!("{name} given more than once");
            }
        }
        Ok(found)
    }

    /// Removes every `name VALUE` and `name=VALUE` and returns the values,
    /// in order.
    ///
    /// # Errors
    /// When the flag has no value.
    pub fn values(&mut self, name: &str) -> anyhow::Result<Vec<String>> {
        let mut found = Vec::new();
        let mut idx = 0;
        while idx < self.rest.len() {
            if self.rest[idx] == name {
                if idx + 1 >= self.rest.len() {
                    bail!("{name} needs a value");
                }
                self.rest.remove(idx);
                found.push(self.rest.remove(idx));
            } else if let Some(value) = self.rest[idx]
                .strip_prefix(name)
                .and_then(|tail| tail.strip_prefix('='))
            {
                found.push(value.to_owned());
                self.rest.remove(idx);
            } else {
                idx += 1;
            }
        }
        Ok(found)
    }

    /// Like [`Args::value`], parsed with [`FromStr`].
    ///
    /// # Errors
    /// As [`Args::value`], and when the value does not parse.
    pub fn parsed<T>(&mut self, name: &str) -> anyhow::Result<Option<T>>
    where
        T: FromStr,
        T::Err: Display,
    {
        self.value(name)?
            .map(|text| {
                let text = text.replace('_', "");
                text.parse::<T>()
                    .map_err(|err| anyhow::anyhow!("{err}"))
                    .with_context(|| format!("invalid value for {name}: {text:?}"))
            })
            .transpose()
    }

    /// Removes the next positional argument, if any (flags are left alone).
    pub fn positional(&mut self) -> Option<String> {
        let idx = self.rest.iter().position(|arg| !arg.starts_with('-'))?;
        Some(self.rest.remove(idx))
    }

    /// Ends parsing.
    ///
    /// # Errors
    /// When arguments are left that no one took.
    pub fn finish(self) -> anyhow::Result<()> {
        match self.rest.as_slice() {
            [] => Ok(()),
            [one] => bail!("unexpected argument {one:?}"),
            many => bail!("unexpected arguments {many:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Args;

    fn args(text: &str) -> Args {
        Args::new(text.split_whitespace().map(String::from).collect())
    }

    #[test]
    fn values_in_both_spellings_and_underscores() {
        let mut a = args("--runs 3 --max-nodes=10_000");
        assert_eq!(a.parsed::<u32>("--runs").unwrap(), Some(3));
        assert_eq!(a.parsed::<u64>("--max-nodes").unwrap(), Some(10_000));
        assert_eq!(a.parsed::<u64>("--absent").unwrap(), None);
        a.finish().unwrap();
    }

    #[test]
    fn leftovers_and_duplicates_are_errors() {
        assert!(args("--quick --typo").finish().is_err());
        assert!(args("--runs 1 --runs 2").value("--runs").is_err());
        assert!(args("--runs").value("--runs").is_err());
        assert!(args("--runs x").parsed::<u32>("--runs").is_err());
    }

    #[test]
    fn flags_and_positionals() {
        let mut a = args("perft --quick");
        assert!(a.flag("--quick"));
        assert!(!a.flag("--full"));
        assert_eq!(a.positional().as_deref(), Some("perft"));
        assert_eq!(a.positional(), None);
        a.finish().unwrap();
    }
}
