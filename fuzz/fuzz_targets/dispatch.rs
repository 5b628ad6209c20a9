//! Dispatch of arbitrary names and argument text; see `toolkit_fuzz::dispatch`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolkit_fuzz::dispatch::run(data));
