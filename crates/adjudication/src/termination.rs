//! What the `Termination` and `Result` tags say about how a game ended,
//! and the result of an event recorded outside the moves (work in
//! progress).
