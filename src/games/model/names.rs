//! What a name shown to other players may hold: one line of text that reads
//! as it is written. A control character (a newline, a tab, ...) would break
//! the line it is listed and stored on; an invisible format character (a
//! bidi override or isolate, a zero-width space or joiner, the byte order
//! mark, a line or paragraph separator, ...) would let a name render
//! reversed or pass for another. Every script's letters, accents and CJK
//! are names' own.

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

use super::GameError;
use crate::reason::Reason;

/// Why `text` cannot be a name, if it cannot: the reason, and what is
/// wrong with it (its first character that a name may not hold).
pub(crate) fn hidden_character(text: &str) -> Option<(Reason, String)> {
    text.chars().find_map(|c| {
        let (reason, what) = match c.general_category() {
            GeneralCategory::Control => (Reason::ControlCharacter, "control characters"),
            GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator => (
                Reason::InvisibleCharacter,
                "invisible formatting characters (bidi controls, zero-width characters, ...)",
            ),
            _ => return None,
        };
        Some((
            reason,
            format!("must not contain {what} (it has U+{:04X})", u32::from(c)),
        ))
    })
}

/// INVALID_ARGUMENT for `field` when `text` holds a character a name may
/// not (see the module docs).
pub(crate) fn refuse_hidden_characters(field: &'static str, text: &str) -> Result<(), GameError> {
    match hidden_character(text) {
        None => Ok(()),
        Some((reason, message)) => Err(GameError::invalid(field, reason, message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_visible_unicode_on_one_line() {
        for name in [
            "Ann",
            "Zoë Ångström",
            "Nguyễn Văn A",
            "王小明",
            "Мария",
            "علي",
            "🐉 dragon",
        ] {
            assert_eq!(hidden_character(name), None, "{name}");
        }
        for (name, reason) in [
            ("a\nb", Reason::ControlCharacter),
            ("a\tb", Reason::ControlCharacter),
            ("a\u{7f}", Reason::ControlCharacter),
            ("\u{202e}nnA", Reason::InvisibleCharacter),
            ("A\u{202a}b", Reason::InvisibleCharacter),
            ("A\u{2066}b\u{2069}", Reason::InvisibleCharacter),
            ("A\u{200b}nn", Reason::InvisibleCharacter),
            ("A\u{200d}nn", Reason::InvisibleCharacter),
            ("A\u{200f}", Reason::InvisibleCharacter),
            ("\u{feff}Ann", Reason::InvisibleCharacter),
            ("A\u{2060}nn", Reason::InvisibleCharacter),
            ("A\u{00ad}nn", Reason::InvisibleCharacter),
            ("A\u{061c}nn", Reason::InvisibleCharacter),
            ("A\u{2028}nn", Reason::InvisibleCharacter),
            ("A\u{e0041}", Reason::InvisibleCharacter),
        ] {
            assert_eq!(
                hidden_character(name).map(|(r, _)| r),
                Some(reason),
                "{name:?}"
            );
        }
    }
}
