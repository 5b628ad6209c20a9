//! The schema cleaner and every dialect renderer on arbitrary schemas; see
//! `toolkit_fuzz::schema`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolkit_fuzz::schema::run(data));
