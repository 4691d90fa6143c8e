//! Enums whose values have stable names, as they are stored and sent:
//! [`named!`] writes each one's `ALL`, `name()`, `Display`, and a `FromStr`
//! that refuses any other name with an error of its own.

/// Declares `enum $name` (with the attributes given) whose values are
/// named by the strings given, and `$error`, the error of reading a name
/// none has (`unknown $what "…": expected …`).
macro_rules! named {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident, refused as $error:ident ($what:literal) {
            $($(#[$value_meta:meta])* $value:ident = $text:literal,)+
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[$value_meta])* $value,)+
        }

        impl $name {
            /// Every value, in a stable order.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$value),+];

            /// The name, as stored and shown.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$value => $text,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        #[doc = concat!("A name no [`", stringify!($name), "`] has.")]
        #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
        #[error("unknown {} {:?}: expected {}", $what, .0, [$($text),+].join(" or "))]
        $vis struct $error(pub String);

        impl std::str::FromStr for $name {
            type Err = $error;

            fn from_str(s: &str) -> Result<$name, $error> {
                $name::ALL
                    .into_iter()
                    .find(|value| value.name() == s)
                    .ok_or_else(|| $error(s.to_owned()))
            }
        }
    };
}

pub(crate) use named;
