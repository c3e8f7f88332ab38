//! E(n) of RTop-K Appendix A, Monte Carlo iteration statistics and the paper-reproduction report (being written).
