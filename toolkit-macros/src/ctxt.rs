//! The collector of one `#[tool]`'s mistakes: every rule records what it finds
//! here, and all of them are reported together (as `Ctxt` in `serde_derive`).

use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Every independent mistake of one `#[tool]`. Consume it with [`Ctxt::check`]:
/// dropping it unchecked is a bug in the macro (its errors would be lost), and
/// panics.
pub(crate) struct Ctxt {
    /// `None` once checked.
    errors: Option<Vec<syn::Error>>,
}

impl Ctxt {
    pub(crate) fn new() -> Ctxt {
        Ctxt {
            errors: Some(Vec::new()),
        }
    }

    /// Records a mistake spanned on `tokens`.
    pub(crate) fn error(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records a mistake at `span`.
    pub(crate) fn at(&mut self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Records an error syn produced.
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.errors
            .as_mut()
            .expect("a `Ctxt` is not used after `check`")
            .push(error);
    }

    /// All mistakes as one error, if there were any.
    pub(crate) fn check(mut self) -> Result<(), syn::Error> {
        let errors = self.errors.take().expect("a `Ctxt` is checked once");
        match errors.into_iter().reduce(|mut all, next| {
            all.combine(next);
            all
        }) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        assert!(
            std::thread::panicking() || self.errors.is_none(),
            "the errors of a `#[tool]` were never checked"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::Ctxt;

    #[test]
    fn errors_come_back_together() {
        let mut errors = Ctxt::new();
        errors.at(proc_macro2::Span::call_site(), "first");
        errors.at(proc_macro2::Span::call_site(), "second");
        let messages: Vec<String> = errors
            .check()
            .expect_err("two errors")
            .into_iter()
            .map(|error| error.to_string())
            .collect();
        assert_eq!(messages, ["first", "second"]);
    }

    #[test]
    #[should_panic(expected = "never checked")]
    fn an_unchecked_context_panics() {
        let _errors = Ctxt::new();
    }
}
