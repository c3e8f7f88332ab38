//! `--dtype NAME`: the element type of generated rows (docs/contract.md §1), shared by the commands that
//! generate their own data (`stats iterations`, `bench cpu`), and of a planned shape (`plan`,
//! every type the kernel takes). Files carry their own type.

use rtopk::Dtype;

/// The names `--dtype` takes, for help and messages.
pub(crate) const DTYPE_NAMES: &str = "float32, float16 or bfloat16";

/// The element type of generated rows, by the name numpy and torch give it. Anything else
/// (`float64`, an integer type: the kernel takes them, but rows are drawn in the three floats
/// only) is refused with the names that are taken: clap prints it and exits with code 2.
pub(crate) fn parse_dtype(text: &str) -> Result<Dtype, String> {
    // generated rows are drawn in the kernel's three floats only
    Dtype::from_name(text).filter(|d| d.is_kernel_float()).ok_or_else(|| {
        format!("'{text}' is not an element type generated rows take; expected {DTYPE_NAMES}")
    })
}

/// An element type the kernel takes, by name: any of the nine (`rtopk plan` plans a shape of
/// any; docs/contract.md §1). Anything else is refused with their names (exit 2).
pub(crate) fn parse_kernel_dtype(text: &str) -> Result<Dtype, String> {
    Dtype::from_name(text).ok_or_else(|| {
        let names: Vec<&str> = Dtype::ALL.iter().map(|d| d.name()).collect();
        format!("'{text}' is not an element type rtopk takes; expected one of {}", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_type_parses_for_a_plan() {
        for d in Dtype::ALL {
            assert_eq!(parse_kernel_dtype(d.name()), Ok(d));
        }
        let e = parse_kernel_dtype("float128").unwrap_err();
        assert!(e.contains("'float128'") && e.contains("int64") && e.contains("bfloat16"), "{e}");
    }

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
