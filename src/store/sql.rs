//! A statement built piece by piece, its parameters numbered `$1`, `$2`,
//! ... as both backends read them (sqlx's own `QueryBuilder` writes the
//! `Any` driver's parameters as `?`, which PostgreSQL does not read).

use std::fmt::Write;

use sqlx::{Any, Arguments, Encode, Type, any::AnyArguments, query::Query};

#[derive(Default)]
pub(super) struct Sql {
    text: String,
    arguments: AnyArguments,
    bound: usize,
}

impl Sql {
    /// Appends SQL text.
    pub(super) fn push(&mut self, text: impl std::fmt::Display) -> &mut Sql {
        let _ = write!(self.text, "{text}");
        self
    }

    /// Appends a parameter holding `value`.
    pub(super) fn bind<T>(&mut self, value: T) -> &mut Sql
    where
        T: for<'q> Encode<'q, Any> + Type<Any> + Send + 'static,
    {
        self.bound += 1;
        let _ = write!(self.text, "${}", self.bound);
        // Encoding into `Any`'s values cannot fail for the types bound here
        // (integers and text).
        let _ = self.arguments.add(value);
        self
    }

    /// The statement, ready to run.
    pub(super) fn build(self) -> Query<'static, Any, AnyArguments> {
        sqlx::query_with(sqlx::AssertSqlSafe(self.text), self.arguments)
    }
}
