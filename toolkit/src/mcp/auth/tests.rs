//! Tests of the verifiers.
