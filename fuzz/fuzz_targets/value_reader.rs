//! Any bytes through the value reader, text and binary (compiled programs'
//! and `arrc run`'s input): untyped, and typed with parameter types taken
//! from the first byte. Errors are fine, panics are not; what is read is
//! written back and must read again as the same values.
#![no_main]

use arrc::core::ir::Type;
use arrc::runtime::value::{read_values, read_values_untyped, write_text, Value};
use arrc::types::ScalarType;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    // The text reader takes ranks up to 8, the binary one any rank (issue
    // 17's rank item): the round trip holds up to rank 8.
    let low_rank = |v: &Value| match v {
        Value::Array(a) => a.rank() <= 8,
        Value::Scalar(_) => true,
    };
    if let Ok(values) =
        read_values_untyped(rest).map(|v| v.into_iter().filter(low_rank).collect::<Vec<_>>())
    {
        let text: Vec<String> = values.iter().map(write_text).collect();
        let again =
            read_values_untyped(text.join(" ").as_bytes()).expect("written text reads back");
        let text2: Vec<String> = again.iter().map(write_text).collect();
        assert_eq!(text, text2);
    }
    let elem = ScalarType::ALL[first as usize % ScalarType::ALL.len()];
    let rank = (first as usize / 11) % 4;
    let ty = if rank == 0 {
        Type::Scalar(elem)
    } else {
        Type::Array(elem, rank)
    };
    let _ = read_values(rest, &[ty, Type::Scalar(ScalarType::I64)]);
    let _ = read_values(rest, &[ty]);
});
