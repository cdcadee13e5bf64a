//! A trigger's filters: "does this event's field hold this test, and if not, why?" Three
//! tests — equality, one of a list, a glob on a string — each on one field; on a list field
//! (a ticket's labels) a test holds when it holds for one element.

use serde::Serialize;
use serde_json::Value;

/// What a filter asks of its field.
#[derive(Clone, Debug)]
pub enum Test {
    /// The field is this value (a string, an integer, a boolean).
    Equals(Value),
    /// The field is one of these values.
    OneOf(Vec<Value>),
    /// The field is a string this glob matches (`*`, `?`, `[..]`, `{a,b}`).
    Glob { pattern: String, matcher: globset::GlobMatcher },
}

impl Test {
    pub fn kind(&self) -> &'static str {
        match self {
            Test::Equals(_) => "equals",
            Test::OneOf(_) => "one_of",
            Test::Glob { .. } => "glob",
        }
    }

    /// What the test expects, as shown.
    pub fn expected(&self) -> Value {
        match self {
            Test::Equals(v) => v.clone(),
            Test::OneOf(vs) => Value::Array(vs.clone()),
            Test::Glob { pattern, .. } => Value::from(pattern.clone()),
        }
    }

    fn holds_one(&self, v: &Value) -> bool {
        match self {
            Test::Equals(want) => same(want, v),
            Test::OneOf(list) => list.iter().any(|w| same(w, v)),
            Test::Glob { matcher, .. } => v.as_str().is_some_and(|s| matcher.is_match(s)),
        }
    }

    /// Whether the test holds for `v` (for one element, when `v` is a list).
    pub fn holds(&self, v: &Value) -> bool {
        match v {
            Value::Array(items) => items.iter().any(|x| self.holds_one(x)),
            v => self.holds_one(v),
        }
    }
}

/// Equality as a person writing a filter means it: numbers by value (3 and 3.0), the rest
/// as JSON.
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => x == y,
        _ => a == b,
    }
}

/// One filter: a field and its test.
#[derive(Clone, Debug)]
pub struct Filter {
    pub field: String,
    pub test: Test,
}

/// Why a filter did not hold.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Miss {
    /// The event's field.
    pub field: String,
    /// equals, one_of or glob.
    pub filter: String,
    /// What the filter asks (a value, the list, the pattern).
    pub expected: Value,
    /// What the event has there (null: nothing).
    pub actual: Value,
}

impl Miss {
    /// One line: "priority is \"low\", not one of [\"high\",\"urgent\"]".
    pub fn say(&self) -> String {
        let what = match self.filter.as_str() {
            "equals" => format!("not {}", self.expected),
            "one_of" => format!("not one of {}", self.expected),
            _ => format!("not matched by the glob {}", self.expected),
        };
        let actual = if self.actual.is_null() { "absent (null)".to_string() } else { self.actual.to_string() };
        format!("{} is {actual}, {what}", self.field)
    }
}

/// The first filter (in order) that does not hold for `fields`, if any.
pub fn first_miss(filters: &[Filter], fields: &serde_json::Map<String, Value>) -> Option<Miss> {
    filters.iter().find_map(|f| {
        let actual = fields.get(&f.field).cloned().unwrap_or(Value::Null);
        (!f.test.holds(&actual)).then(|| Miss {
            field: f.field.clone(),
            filter: f.test.kind().into(),
            expected: f.test.expected(),
            actual,
        })
    })
}

/// A glob as a filter takes it: `*` matches any run of characters (`/` too), a literal
/// otherwise; `Err` says why it does not compile.
pub fn glob(pattern: &str) -> Result<globset::GlobMatcher, String> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_test_and_a_list_field() {
        let g = Test::Glob { pattern: "*crash*".into(), matcher: glob("*crash*").unwrap() };
        assert!(g.holds(&json!("app crash on start")) && !g.holds(&json!("slow")) && !g.holds(&json!(3)));
        let o = Test::OneOf(vec![json!("high"), json!("urgent")]);
        assert!(o.holds(&json!("urgent")) && !o.holds(&json!("low")) && !o.holds(&Value::Null));
        assert!(Test::Equals(json!(3)).holds(&json!(3.0)));
        assert!(Test::Equals(json!("bug")).holds(&json!(["ui", "bug"])));
        assert!(!Test::Equals(json!("bug")).holds(&json!([])));
        assert!(glob("[").is_err());
    }
}
