//! Deterministic 32-lane warp and block simulator, and the RTop-K kernel written against it (being written).
