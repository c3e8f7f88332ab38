//! The seed papers' top-k algorithms on CPU (AIR, GridSelect, WarpSelect, Dr. Top-k, torch radix, sort) with work counters (being written).
