//! `--dtype NAME`: the element type of generated rows (docs/contract.md §1), shared by the commands that
//! generate their own data (`stats iterations`, `bench cpu`). Files carry their own type.

use rtopk::Dtype;

/// The names `--dtype` takes, for help and messages.
pub(crate) const DTYPE_NAMES: &str = "float32, float16 or bfloat16";

/// An element type by the name numpy and torch give it. Anything else (`float64`, an integer
/// type) is refused with the names that are taken: clap prints it and exits with code 2.
pub(crate) fn parse_dtype(text: &str) -> Result<Dtype, String> {
    // generated rows are drawn in the kernel's three floats only
    Dtype::from_name(text).filter(|d| d.is_kernel_float()).ok_or_else(|| {
        format!("'{text}' is not an element type rtopk takes; expected {DTYPE_NAMES}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_others_are_refused() {
        for d in Dtype::FLOATS {
            assert_eq!(parse_dtype(d.name()), Ok(d));
        }
        for bad in ["float64", "f16", "int32", "", "Float16"] {
            let e = parse_dtype(bad).unwrap_err();
            assert!(e.contains(&format!("'{bad}'")) && e.contains(DTYPE_NAMES), "{e}");
        }
    }
}
