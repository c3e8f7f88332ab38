//! The Python literal inside a `.npy` header, parsed strictly.
//!
//! numpy writes the header as the `repr` of a dict and reads it back with `ast.literal_eval`;
//! this parser accepts the same literals (strings, integers, `True`/`False`/`None`, tuples,
//! lists, dicts) so that a header numpy would reject is rejected here too, and so that a
//! message can quote exactly what the file says. Nesting is capped: real headers nest two deep.

/// Deepest bracket nesting accepted (a structured dtype's descr nests three deep).
const MAX_NESTING: usize = 8;

/// A parsed literal.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    /// `'text'` or `"text"`.
    Str(String),
    /// An integer (header integers are shapes: anything beyond `i128` is refused).
    Int(i128),
    /// `True` or `False`.
    Bool(bool),
    /// `None`.
    None,
    /// `(a, b)`, `(a,)` or `()`.
    Tuple(Vec<Value>),
    /// `[a, b]`.
    List(Vec<Value>),
    /// `{k: v, ...}`.
    Dict(Vec<(Value, Value)>),
}

/// One `key: value` entry of the header dict, with the value's source text for messages.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Entry {
    /// The key (header keys are strings).
    pub(super) key: String,
    /// The value.
    pub(super) value: Value,
    /// The value as written in the file.
    pub(super) text: String,
}

/// Parses a header: one dict literal with string keys, then only whitespace.
pub(super) fn parse_dict(text: &str) -> Result<Vec<Entry>, String> {
    let mut p = Parser { s: text.as_bytes(), pos: 0, depth: 0 };
    p.skip_ws();
    p.expect(b'{', "the header does not start with a dict '{'")?;
    p.depth = 1;
    let mut entries = Vec::new();
    loop {
        p.skip_ws();
        if p.eat(b'}') {
            break;
        }
        let Value::Str(key) = p.value()? else {
            return Err(format!("a header key must be a string (at byte {})", p.pos));
        };
        p.skip_ws();
        p.expect(b':', &format!("expected ':' after the key '{key}'"))?;
        p.skip_ws();
        let start = p.pos;
        let value = p.value()?;
        let text = String::from_utf8_lossy(&p.s[start..p.pos]).into_owned();
        entries.push(Entry { key, value, text });
        p.skip_ws();
        if p.eat(b'}') {
            break;
        }
        p.expect(b',', "expected ',' or '}' after a header value")?;
    }
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(format!("unexpected text after the header dict (at byte {})", p.pos));
    }
    Ok(entries)
}

/// A recursive-descent parser over the header bytes.
struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn expect(&mut self, c: u8, msg: &str) -> Result<(), String> {
        if self.eat(c) { Ok(()) } else { Err(format!("{msg} (at byte {})", self.pos)) }
    }

    /// Spaces, tabs and line breaks (numpy pads the header with spaces and ends it with '\n').
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            Some(q @ (b'\'' | b'"')) => self.string(q),
            Some(b'(') => self.sequence(b')').map(|(items, tuple)| match (items, tuple) {
                (mut one, false) if one.len() == 1 => one.remove(0),
                (items, _) => Value::Tuple(items),
            }),
            Some(b'[') => self.sequence(b']').map(|(items, _)| Value::List(items)),
            Some(b'{') => self.dict(),
            Some(b'-' | b'+' | b'0'..=b'9') => self.int(),
            Some(c) if c.is_ascii_alphabetic() => self.name(),
            Some(c) => Err(format!("unexpected character {:?} (at byte {})", c as char, self.pos)),
            None => Err("the header ends inside a value".into()),
        }
    }

    fn open(&mut self) -> Result<(), String> {
        self.pos += 1;
        self.depth += 1;
        if self.depth > MAX_NESTING { Err("brackets nested too deeply".into()) } else { Ok(()) }
    }

    /// `( ... )` or `[ ... ]`; the flag says whether a comma was seen (so `(5,)` is a tuple and
    /// `(5)` is the integer 5, as in Python).
    fn sequence(&mut self, close: u8) -> Result<(Vec<Value>, bool), String> {
        self.open()?;
        let mut items = Vec::new();
        let mut comma = false;
        loop {
            self.skip_ws();
            if self.eat(close) {
                break;
            }
            items.push(self.value()?);
            self.skip_ws();
            if self.eat(close) {
                break;
            }
            self.expect(b',', &format!("expected ',' or '{}'", close as char))?;
            comma = true;
        }
        self.depth -= 1;
        let tuple = comma || items.is_empty();
        Ok((items, tuple))
    }

    fn dict(&mut self) -> Result<Value, String> {
        self.open()?;
        let mut entries = Vec::new();
        loop {
            self.skip_ws();
            if self.eat(b'}') {
                break;
            }
            let key = self.value()?;
            self.skip_ws();
            self.expect(b':', "expected ':' in a dict")?;
            self.skip_ws();
            entries.push((key, self.value()?));
            self.skip_ws();
            if self.eat(b'}') {
                break;
            }
            self.expect(b',', "expected ',' or '}'")?;
        }
        self.depth -= 1;
        Ok(Value::Dict(entries))
    }

    fn string(&mut self, quote: u8) -> Result<Value, String> {
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None | Some(b'\n') => {
                    return Err(format!("unterminated string (starting at byte {start})"));
                }
                Some(c) if c == quote => {
                    self.pos += 1;
                    return Ok(Value::Str(String::from_utf8_lossy(&out).into_owned()));
                }
                Some(b'\\') => {
                    let Some(&c) = self.s.get(self.pos + 1) else {
                        return Err(format!("unterminated string (starting at byte {start})"));
                    };
                    out.push(match c {
                        b'n' => b'\n',
                        b't' => b'\t',
                        c => c,
                    });
                    self.pos += 2;
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn int(&mut self) -> Result<Value, String> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.pos += 1;
            self.skip_ws();
        }
        let digits = self.pos;
        let mut n: i128 = 0;
        while let Some(c @ b'0'..=b'9') = self.peek() {
            n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add(i128::from(c - b'0')))
                .ok_or_else(|| format!("integer too large (at byte {start})"))?;
            self.pos += 1;
        }
        if self.pos == digits {
            return Err(format!("expected a number (at byte {start})"));
        }
        // Python 2's numpy wrote shapes as `(3L, 4L)`; numpy still reads those files.
        if matches!(self.peek(), Some(b'L' | b'l')) {
            self.pos += 1;
        }
        if matches!(self.peek(), Some(b'.' | b'e' | b'E' | b'x' | b'_')) {
            return Err(format!("not an integer (at byte {start})"));
        }
        Ok(Value::Int(if negative { -n } else { n }))
    }

    fn name(&mut self) -> Result<Value, String> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
            self.pos += 1;
        }
        match &self.s[start..self.pos] {
            b"True" => Ok(Value::Bool(true)),
            b"False" => Ok(Value::Bool(false)),
            b"None" => Ok(Value::None),
            other => Err(format!(
                "unexpected name '{}' (at byte {start})",
                String::from_utf8_lossy(other)
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value_of(text: &str) -> Result<Value, String> {
        parse_dict(&format!("{{'v': {text}}}")).map(|mut e| e.remove(0).value)
    }

    #[test]
    fn parses_what_numpy_writes() {
        let e = parse_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }    \n")
            .unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(e[0].value, Value::Str("<f4".into()));
        assert_eq!(e[1].value, Value::Bool(false));
        assert_eq!(e[2].value, Value::Tuple(vec![Value::Int(2), Value::Int(3)]));
        assert_eq!(e[2].text, "(2, 3)");
    }

    #[test]
    fn tuples_lists_and_parentheses_are_told_apart() {
        assert_eq!(value_of("(5,)"), Ok(Value::Tuple(vec![Value::Int(5)])));
        assert_eq!(value_of("()"), Ok(Value::Tuple(vec![])));
        assert_eq!(value_of("(5)"), Ok(Value::Int(5)));
        assert_eq!(value_of("[5, 8]"), Ok(Value::List(vec![Value::Int(5), Value::Int(8)])));
        assert_eq!(value_of("(3L, 4L)"), Ok(Value::Tuple(vec![Value::Int(3), Value::Int(4)])));
        assert_eq!(value_of("-2"), Ok(Value::Int(-2)));
        assert_eq!(value_of("\"x\""), Ok(Value::Str("x".into())));
        assert!(matches!(value_of("[('a', '<f4')]"), Ok(Value::List(_))));
    }

    #[test]
    fn rejects_what_literal_eval_rejects() {
        for bad in [
            "(2, 3",
            "'open",
            "1.5",
            "0x10",
            "true",
            "@",
            "(1 2)",
            "99999999999999999999999999999999999999999",
        ] {
            assert!(value_of(bad).is_err(), "{bad}");
        }
        assert!(parse_dict("{'a': 1} x").is_err());
        assert!(parse_dict("['a', 1]").is_err());
        assert!(parse_dict("{1: 1}").is_err());
        assert!(parse_dict("{'a' 1}").is_err());
        let deep = format!("{{'a': {}1{}}}", "[".repeat(9), "]".repeat(9));
        assert_eq!(parse_dict(&deep).unwrap_err(), "brackets nested too deeply");
    }
}
