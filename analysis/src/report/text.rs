//! Markdown tables and CSV text.

/// A Markdown table (GitHub flavour).
pub(crate) fn md_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    // A bare '|' inside a cell (|Δ|, |max|) would split it: escape it.
    let cell = |c: &str| c.replace('|', "\\|");
    let headers: Vec<String> = headers.iter().map(|h| cell(h)).collect();
    let mut s = format!("| {} |\n|", headers.join(" | "));
    s.push_str(&"---|".repeat(headers.len()));
    s.push('\n');
    for r in rows {
        let r: Vec<String> = r.iter().map(|c| cell(c)).collect();
        s.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    s
}

/// A CSV document: a header line and one line per row. Fields holding a comma or a quote
/// are quoted.
pub(crate) fn csv(headers: &[&str], rows: &[Vec<String>]) -> String {
    let field = |f: &str| {
        if f.contains([',', '"', '\n']) {
            format!("\"{}\"", f.replace('"', "\"\""))
        } else {
            f.to_string()
        }
    };
    let mut s = headers.iter().map(|h| field(h)).collect::<Vec<_>>().join(",");
    s.push('\n');
    for r in rows {
        s.push_str(&r.iter().map(|f| field(f)).collect::<Vec<_>>().join(","));
        s.push('\n');
    }
    s
}

/// `x` with `d` decimals ("nan"/"inf" spelled out for CSV readers).
pub(crate) fn f(x: f64, d: usize) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{x:.d$}")
    }
}

/// A signed difference with `d` decimals.
pub(crate) fn signed(x: f64, d: usize) -> String {
    if x.is_finite() { format!("{x:+.d$}") } else { f(x, d) }
}

/// "paper / measured" for side-by-side tables.
pub(crate) fn pair(paper: f64, measured: f64, d: usize) -> String {
    format!("{} / {}", f(paper, d), f(measured, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_and_csv() {
        let rows = vec![vec!["1".to_string(), "a,b".to_string()]];
        assert_eq!(md_table(&["x", "y"], &rows), "| x | y |\n|---|---|\n| 1 | a,b |\n");
        assert_eq!(md_table(&["|x|"], &[]), "| \\|x\\| |\n|---|\n");
        assert_eq!(csv(&["x", "y"], &rows), "x,y\n1,\"a,b\"\n");
        assert_eq!(f(f64::NAN, 2), "nan");
        assert_eq!(signed(0.5, 1), "+0.5");
    }
}
