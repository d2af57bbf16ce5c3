//! Time controls and clocks: the PGN `TimeControl` tag, and what the
//! `[%clk]` / `[%emt]` comments of a game say about flag falls (work in
//! progress).
