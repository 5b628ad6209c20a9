//! Example: assistant.
