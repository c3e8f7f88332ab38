//! `.npy` input and output (docs/contract.md §4), in bounded memory, never clobbering a file.
//!
//! # Input
//! [`MatrixReader`] accepts exactly one kind of file: a 2-D, C-order array of little-endian
//! float32 (`<f4`) or float16 (`<f2`) whose data is exactly `N · M · 4` (or `· 2`) bytes.
//! The preamble and the header (a Python dict literal, parsed as strictly as numpy parses it:
//! a shape written as a list is refused) are checked when the file is opened, and so is the
//! data's size against the file's length; then rows are read block by block into one reused
//! buffer of the file's own type ([`NpyFloat`]: `f32` or `f16`), bit-exact, never converted.
//! Big-endian, native-order and other dtypes (`>f2`, `<f8`, integers, bfloat16's raw `<V2`)
//! are refused with what was found and what is expected. [`read_matrix`] reads every row at
//! once, for callers that need them all.
//!
//! # Output paths
//! [`Outputs`] writes a command's output files all or nothing, under these rules:
//! * A **regular file** is replaced atomically: the data goes to a temporary file
//!   (`.NAME.rtopk-PID-N.tmp`) in the target's directory, which is renamed over the target
//!   once every output is complete. The replaced file's permission bits are kept; a hard link
//!   elsewhere keeps the old contents.
//! * A **symlink** is followed: its target is replaced (or created, if the link dangles) and
//!   the link stays a link.
//! * A **character device** (`/dev/null`, a terminal, `/dev/stdout` when it is one) or a
//!   **FIFO** (a pipe, `/dev/stdout` in a pipeline) is written in place, never renamed over:
//!   its data is staged in a temporary file in the system's temporary directory and copied in
//!   after every output is complete, before the renames.
//! * A **directory, block device or socket** is refused (exit code 2); a device node is never
//!   replaced.
//! * Paths are compared as files, not strings: an existing file by device and inode (so
//!   `./v.npy`, `dir/../v.npy`, a symlink and a hard link all name `v.npy`), a new one by its
//!   canonical directory and name. Two outputs naming one file, or an output naming an input,
//!   are refused (exit code 2) before anything is written.
//! * **All or nothing**: a failure, or a SIGINT/SIGTERM/SIGHUP whose handler calls
//!   [`remove_pending_temporaries`], removes every temporary file and leaves earlier outputs
//!   as they were. A SIGKILL cannot be caught: it may leave a `.rtopk-*.tmp` file behind.

mod header;
mod literal;
mod output;
mod reader;
mod temp;
#[cfg(test)]
mod testing;
mod vector;
mod writer;

pub use header::{Header, shape_string};
pub use output::{OutputSpec, Outputs};
pub use reader::{DEFAULT_BLOCK_BYTES, MatrixReader, read_matrix, read_matrix_as};
pub use temp::remove_pending_temporaries;
pub use vector::{read_counts, read_f32s};
pub use writer::{NpyDtype, NpyFloat, NpyWriter};
