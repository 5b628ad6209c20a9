//! Example: voice.
